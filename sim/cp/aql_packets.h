/* AQL packets as the command processor reads them: our own definitions of the 64-byte formats
 * of the HSA spec (hsa.h: hsa_kernel_dispatch_packet_t, hsa_agent_dispatch_packet_t,
 * hsa_barrier_and/or_packet_t) and of AMD's vendor-specific packets (hsa_ext_amd.h:
 * hsa_amd_barrier_value_packet_t; ROCr's amd_aql_pm4_ib). Kept private to sim/cp so that
 * no HSA name leaks into the interposer's namespace. */
#ifndef KFDSIM_AQL_PACKETS_H
#define KFDSIM_AQL_PACKETS_H

#include <stdint.h>

#define AQL_PACKET_SIZE 64u

/* Header bits (hsa_packet_header_t). */
#define AQL_HDR_TYPE(h) ((h) & 0xffu)
#define AQL_HDR_BARRIER(h) (((h) >> 8) & 1u)
#define AQL_HDR_ACQUIRE_SCOPE(h) (((h) >> 9) & 3u)
#define AQL_HDR_RELEASE_SCOPE(h) (((h) >> 11) & 3u)

enum aql_packet_type {
  AQL_TYPE_VENDOR_SPECIFIC = 0,
  AQL_TYPE_INVALID = 1,
  AQL_TYPE_KERNEL_DISPATCH = 2,
  AQL_TYPE_BARRIER_AND = 3,
  AQL_TYPE_AGENT_DISPATCH = 4,
  AQL_TYPE_BARRIER_OR = 5,
};

/* AMD vendor packet formats (hsa_amd_packet_type_t, and ROCr's AMD_AQL_FORMAT_PM4_IB). */
enum aql_amd_format {
  AQL_AMD_FORMAT_PM4_IB = 1,
  AQL_AMD_FORMAT_BARRIER_VALUE = 2,
};

struct aql_kernel_dispatch {
  uint16_t header;
  uint16_t setup;             /* bits 0..1: dimensions */
  uint16_t workgroup_size[3];
  uint16_t reserved0;
  uint32_t grid_size[3];
  uint32_t private_segment_size;
  uint32_t group_segment_size;
  uint64_t kernel_object;
  uint64_t kernarg_address;
  uint64_t reserved2;
  uint64_t completion_signal;
};

struct aql_barrier {          /* barrier-AND and barrier-OR share the layout */
  uint16_t header;
  uint16_t reserved0;
  uint32_t reserved1;
  uint64_t dep_signal[5];
  uint64_t reserved2;
  uint64_t completion_signal;
};

struct aql_amd_barrier_value {
  uint16_t header;
  uint8_t amd_format;
  uint8_t reserved;
  uint32_t reserved0;
  uint64_t signal;
  int64_t value;
  int64_t mask;
  uint32_t cond;              /* hsa_signal_condition_t: EQ 0, NE 1, LT 2, GTE 3 */
  uint32_t reserved1;
  uint64_t reserved2;
  uint64_t reserved3;
  uint64_t completion_signal;
};

struct aql_amd_pm4_ib {
  uint16_t header;
  uint8_t amd_format;
  uint8_t reserved;
  uint32_t ib_jump_cmd[4];    /* a PM4 INDIRECT_BUFFER packet */
  uint32_t dw_cnt_remain;
  uint32_t reserved1[8];
  uint64_t completion_signal;
};

union aql_packet {
  uint32_t dw[16];
  uint16_t header;
  struct aql_kernel_dispatch dispatch;
  struct aql_barrier barrier;
  struct aql_amd_barrier_value barrier_value;
  struct aql_amd_pm4_ib pm4_ib;
};

_Static_assert(sizeof(union aql_packet) == AQL_PACKET_SIZE, "AQL packets are 64 bytes");
_Static_assert(sizeof(struct aql_kernel_dispatch) == 64, "hsa_kernel_dispatch_packet_t");
_Static_assert(sizeof(struct aql_amd_barrier_value) == 64, "hsa_amd_barrier_value_packet_t");
_Static_assert(sizeof(struct aql_amd_pm4_ib) == 64, "amd_aql_pm4_ib");

/* amd_queue_t offsets (amd_hsa_queue.h). */
#define AMD_QUEUE_READ_DISPATCH_ID_OFF 128u
#define AMD_QUEUE_COMPUTE_TMPRING_SIZE_OFF 140u
#define AMD_QUEUE_PROPERTIES_OFF 180u
#define AMD_QUEUE_INACTIVE_SIGNAL_OFF 192u
/* amd_queue_t.queue_properties bits (amd_queue_properties_t). */
#define AMD_QUEUE_PROPERTIES_USE_SCRATCH_ONCE (1u << 4)

#endif
