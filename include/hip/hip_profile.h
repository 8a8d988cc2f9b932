/* hipkfd: the HIP profiling markers (HIP_BEGIN_MARKER ...). hipkfd has no marker API, so they
 * compile to nothing, as AMD's do when ROCTX markers are not enabled. */
#ifndef HIPKFD_HIP_PROFILE_H
#define HIPKFD_HIP_PROFILE_H
#define HIP_SCOPED_MARKER(markerName, group)
#define HIP_BEGIN_MARKER(markerName, group)
#define HIP_END_MARKER()
#endif
