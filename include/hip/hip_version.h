/* hipkfd: HIP version identity.
 *
 * hipkfd presents itself as a HIP 7.2 runtime (the newest API surface it declares) so that code
 * testing HIP_VERSION picks the modern paths. HIPKFD_VERSION_* identify the implementation.
 * HIP_VERSION follows AMD's encoding: major * 10000000 + minor * 100000 + patch.
 * This file is the one source of both versions: cmake/HipkfdVersion.cmake reads the six
 * *_VERSION_MAJOR/MINOR/PATCH lines below (keep each a plain number). */
#ifndef HIP_INCLUDE_HIP_HIP_VERSION_H
#define HIP_INCLUDE_HIP_HIP_VERSION_H

#define HIP_VERSION_MAJOR 7
#define HIP_VERSION_MINOR 2
#define HIP_VERSION_PATCH 0
#define HIP_VERSION_GITHASH "hipkfd"
#define HIP_VERSION_BUILD_ID 0
#define HIP_VERSION_BUILD_NAME "hipkfd"
#define HIP_VERSION (HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000 + HIP_VERSION_PATCH)

/* The runtime behind this header is hipkfd, not AMD's clr. */
#define __HIPKFD__ 1
#define HIPKFD_VERSION_MAJOR 0
#define HIPKFD_VERSION_MINOR 1
#define HIPKFD_VERSION_PATCH 0
#define HIPKFD_VERSION (HIPKFD_VERSION_MAJOR * 10000 + HIPKFD_VERSION_MINOR * 100 + HIPKFD_VERSION_PATCH)

#endif
