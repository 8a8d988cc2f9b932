/* hipkfd: channel format descriptors: the hipCreateChannelDesc runtime function and the
 * hipCreateChannelDesc<T>() template that derives a descriptor from an element type (bits per
 * channel x, y, z, w and the kind: signed, unsigned or float). */
#ifndef HIPKFD_AMD_DETAIL_AMD_CHANNEL_DESCRIPTOR_H
#define HIPKFD_AMD_DETAIL_AMD_CHANNEL_DESCRIPTOR_H

#include <hip/driver_types.h>
#include <hip/amd_detail/host_defines.h>
#include <hip/amd_detail/amd_hip_vector_types.h>

#if defined(__cplusplus)
extern "C" {
#endif
/* Implemented by libamdhip64 (exported as hipCreateChannelDesc@@hip_4.2). */
hipChannelFormatDesc hipCreateChannelDesc(int x, int y, int z, int w, enum hipChannelFormatKind f);
#if defined(__cplusplus)
}

/* Half precision has no C++ type of its own here: these name its descriptors. */
static inline hipChannelFormatDesc hipCreateChannelDescHalf() {
  return hipCreateChannelDesc(16, 0, 0, 0, hipChannelFormatKindFloat);
}
static inline hipChannelFormatDesc hipCreateChannelDescHalf1() {
  return hipCreateChannelDesc(16, 0, 0, 0, hipChannelFormatKindFloat);
}
static inline hipChannelFormatDesc hipCreateChannelDescHalf2() {
  return hipCreateChannelDesc(16, 16, 0, 0, hipChannelFormatKindFloat);
}
static inline hipChannelFormatDesc hipCreateChannelDescHalf4() {
  return hipCreateChannelDesc(16, 16, 16, 16, hipChannelFormatKindFloat);
}

namespace hipkfd_detail {
/* Channel kind of a scalar element type. */
template <class T> struct channel_kind {
  static constexpr hipChannelFormatKind value =
      T(0.5) != T(0) ? hipChannelFormatKindFloat
                     : (T(-1) < T(0) ? hipChannelFormatKindSigned : hipChannelFormatKindUnsigned);
};
template <class T, int N> inline hipChannelFormatDesc channel_desc() {
  const int bits = (int)(sizeof(T) * 8);
  return hipCreateChannelDesc(bits, N > 1 ? bits : 0, N > 2 ? bits : 0, N > 3 ? bits : 0,
                              channel_kind<T>::value);
}
} // namespace hipkfd_detail

/* Types without a texture format get the empty descriptor. */
template <class T> inline hipChannelFormatDesc hipCreateChannelDesc() {
  return hipCreateChannelDesc(0, 0, 0, 0, hipChannelFormatKindNone);
}

#define __HIPKFD_CHANNEL_DESC(type, scalar, n)                                             \
  template <> inline hipChannelFormatDesc hipCreateChannelDesc<type>() {                  \
    return hipkfd_detail::channel_desc<scalar, n>();                                      \
  }
#define __HIPKFD_CHANNEL_DESC_FAMILY(base, scalar)                                         \
  __HIPKFD_CHANNEL_DESC(base##1, scalar, 1)                                                \
  __HIPKFD_CHANNEL_DESC(base##2, scalar, 2)                                                \
  __HIPKFD_CHANNEL_DESC(base##4, scalar, 4)

__HIPKFD_CHANNEL_DESC(char, char, 1)
__HIPKFD_CHANNEL_DESC(signed char, signed char, 1)
__HIPKFD_CHANNEL_DESC(unsigned char, unsigned char, 1)
__HIPKFD_CHANNEL_DESC(short, short, 1)
__HIPKFD_CHANNEL_DESC(unsigned short, unsigned short, 1)
__HIPKFD_CHANNEL_DESC(int, int, 1)
__HIPKFD_CHANNEL_DESC(unsigned int, unsigned int, 1)
__HIPKFD_CHANNEL_DESC(float, float, 1)
__HIPKFD_CHANNEL_DESC_FAMILY(char, signed char)
__HIPKFD_CHANNEL_DESC_FAMILY(uchar, unsigned char)
__HIPKFD_CHANNEL_DESC_FAMILY(short, short)
__HIPKFD_CHANNEL_DESC_FAMILY(ushort, unsigned short)
__HIPKFD_CHANNEL_DESC_FAMILY(int, int)
__HIPKFD_CHANNEL_DESC_FAMILY(uint, unsigned int)
__HIPKFD_CHANNEL_DESC_FAMILY(float, float)
#if !defined(__LP64__)
__HIPKFD_CHANNEL_DESC(long, long, 1)
__HIPKFD_CHANNEL_DESC(unsigned long, unsigned long, 1)
__HIPKFD_CHANNEL_DESC_FAMILY(long, long)
__HIPKFD_CHANNEL_DESC_FAMILY(ulong, unsigned long)
#endif
#endif /* __cplusplus */

#endif /* HIPKFD_AMD_DETAIL_AMD_CHANNEL_DESCRIPTOR_H */
