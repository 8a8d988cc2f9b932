/* hipkfd: channel format descriptors (hipCreateChannelDesc and hipCreateChannelDesc<T>()). */
#ifndef HIPKFD_CHANNEL_DESCRIPTOR_H
#define HIPKFD_CHANNEL_DESCRIPTOR_H
#include <hip/amd_detail/amd_channel_descriptor.h>
#endif
