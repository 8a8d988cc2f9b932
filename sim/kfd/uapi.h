/* The KFD 1.17 and amdgpu DRM UAPI headers for sim/kfd.
 *
 * The build puts the raw 6.12 UAPI directory (${HIPKFD_UAPI_DIR}) on the include path; its
 * linux/types.h is the kernel-internal, un-exported version (it pulls compiler_types.h, which
 * user space does not have). Mark it as done and take the integer and size types from the
 * system's sanitised <asm/...> headers instead; everything else in kfd_ioctl.h, drm.h and
 * amdgpu_drm.h is plain UAPI. */
#ifndef KFDSIM_UAPI_H
#define KFDSIM_UAPI_H

#define _UAPI_LINUX_TYPES_H
#define _LINUX_TYPES_H
#include <asm/posix_types.h>
#include <asm/types.h>
#ifndef __user
#define __user
#endif
typedef __u16 __le16;
typedef __u16 __be16;
typedef __u32 __le32;
typedef __u32 __be32;
typedef __u64 __le64;
typedef __u64 __be64;
typedef __u64 __attribute__((aligned(8))) __aligned_u64;

#include <drm/drm.h>
#include <drm/amdgpu_drm.h>
#include <linux/kfd_ioctl.h>
#include <linux/kfd_sysfs.h>
/* The UAPI spells this flag (1 << 31), which overflows int: undefined behaviour that UBSan reports
 * wherever the flag is used. Same bit, unsigned. */
#undef KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE
#define KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE (1u << 31)

#endif
