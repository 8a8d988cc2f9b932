/* src/queues: the memory layouts the command processor, SDMA engines and kernels read.
 *
 * Facts from ROCr's amd_hsa_signal.h, amd_hsa_queue.h and hsa.h (AQL packets), written out here
 * with offsets checked at compile time; the runtime does not include AMD's headers. */
#ifndef HIPKFD_AMD_ABI_H
#define HIPKFD_AMD_ABI_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

/* amd_signal_t: 64 bytes, 64-byte aligned. */
#define AMD_SIGNAL_KIND_USER 1
#define AMD_SIGNAL_KIND_DOORBELL (-1)

struct amd_signal {
  int64_t kind;
  union {
    int64_t value;              /* USER signals */
    uint64_t hardware_doorbell_ptr; /* DOORBELL signals */
  };
  uint64_t event_mailbox_ptr;   /* events-page slot the CP writes event_id to before the interrupt */
  uint32_t event_id;
  uint32_t reserved1;
  uint64_t start_ts;            /* GPU ticks, written by the CP for profiled packets */
  uint64_t end_ts;
  uint64_t queue_ptr;           /* DOORBELL signals: the amd_queue_t */
  uint32_t reserved3[2];
} __attribute__((aligned(64)));

static_assert(sizeof(struct amd_signal) == 64, "amd_signal_t is 64 bytes");
static_assert(offsetof(struct amd_signal, value) == 8, "amd_signal_t.value");
static_assert(offsetof(struct amd_signal, event_mailbox_ptr) == 16, "amd_signal_t.event_mailbox_ptr");
static_assert(offsetof(struct amd_signal, event_id) == 24, "amd_signal_t.event_id");
static_assert(offsetof(struct amd_signal, start_ts) == 32, "amd_signal_t.start_ts");
static_assert(offsetof(struct amd_signal, queue_ptr) == 48, "amd_signal_t.queue_ptr");

/* hsa_queue_t followed by ROCr's amd_queue_t fields: 256 bytes, 64-byte aligned. */
#define HSA_QUEUE_TYPE_MULTI 0
#define HSA_QUEUE_FEATURE_KERNEL_DISPATCH 1
#define HSA_QUEUE_FEATURE_AGENT_DISPATCH 2
#define AMD_QUEUE_PROPERTIES_IS_PTR64 (1u << 1)

struct amd_queue {
  /* hsa_queue_t */
  uint32_t type;
  uint32_t features;
  uint64_t base_address;        /* the ring */
  uint64_t doorbell_signal;     /* handle: address of an amd_signal of kind DOORBELL */
  uint32_t size;                /* packets */
  uint32_t reserved0;
  uint64_t id;
  /* amd_queue_t */
  uint32_t reserved1[4];
  uint64_t write_dispatch_id;
  uint32_t group_segment_aperture_base_hi;
  uint32_t private_segment_aperture_base_hi;
  uint32_t max_cu_id;
  uint32_t max_wave_id;
  uint64_t max_legacy_doorbell_dispatch_id_plus_1;
  uint32_t legacy_doorbell_lock;
  uint32_t reserved2[9];
  uint64_t read_dispatch_id;
  uint32_t read_dispatch_id_field_base_byte_offset;
  uint32_t compute_tmpring_size;
  uint32_t scratch_resource_descriptor[4];
  uint64_t scratch_backing_memory_location;
  uint64_t scratch_backing_memory_byte_size;
  uint32_t scratch_wave64_lane_byte_size;
  uint32_t queue_properties;
  uint32_t reserved3[2];
  uint64_t queue_inactive_signal; /* handle: address of an amd_signal */
  uint32_t reserved4[14];
} __attribute__((aligned(64)));

static_assert(sizeof(struct amd_queue) == 256, "amd_queue_t is 256 bytes");
static_assert(offsetof(struct amd_queue, write_dispatch_id) == 56, "write_dispatch_id");
static_assert(offsetof(struct amd_queue, max_cu_id) == 72, "max_cu_id");
static_assert(offsetof(struct amd_queue, read_dispatch_id) == 128, "read_dispatch_id");
static_assert(offsetof(struct amd_queue, compute_tmpring_size) == 140, "compute_tmpring_size");
static_assert(offsetof(struct amd_queue, scratch_backing_memory_location) == 160, "scratch location");
static_assert(offsetof(struct amd_queue, queue_properties) == 180, "queue_properties");
static_assert(offsetof(struct amd_queue, queue_inactive_signal) == 192, "queue_inactive_signal");

/* AQL packets (HSA system architecture spec, hsa.h): 64 bytes each. */
#define AQL_PACKET_SIZE 64u
#define AQL_TYPE_VENDOR 0
#define AQL_TYPE_INVALID 1
#define AQL_TYPE_KERNEL_DISPATCH 2
#define AQL_TYPE_BARRIER_AND 3
#define AQL_TYPE_BARRIER_OR 5
#define AQL_HEADER_BARRIER_SHIFT 8
#define AQL_HEADER_ACQUIRE_SHIFT 9
#define AQL_HEADER_RELEASE_SHIFT 11
#define AQL_FENCE_SCOPE_NONE 0
#define AQL_FENCE_SCOPE_AGENT 1
#define AQL_FENCE_SCOPE_SYSTEM 2
#define AQL_DISPATCH_DIMS_SHIFT 0

struct aql_dispatch_packet {
  uint16_t header;
  uint16_t setup;               /* dimensions in bits 0..1 */
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

struct aql_barrier_packet {
  uint16_t header;
  uint16_t reserved0;
  uint32_t reserved1;
  uint64_t dep_signal[5];
  uint64_t reserved2;
  uint64_t completion_signal;
};

static_assert(sizeof(struct aql_dispatch_packet) == 64, "dispatch packet");
static_assert(offsetof(struct aql_dispatch_packet, kernel_object) == 32, "kernel_object");
static_assert(offsetof(struct aql_dispatch_packet, completion_signal) == 56, "completion_signal");
static_assert(sizeof(struct aql_barrier_packet) == 64, "barrier packet");
static_assert(offsetof(struct aql_barrier_packet, completion_signal) == 56, "barrier completion");

/* libhsakmt's HsaUserContextSaveAreaHeader (hsakmttypes.h): the start of each XCC's CWSR area.
 * The kernel's trap handling reports queue errors through ErrorReason/ErrorEventId. */
struct cwsr_header {
  uint32_t control_stack_offset;
  uint32_t control_stack_size;
  uint32_t wave_state_offset;
  uint32_t wave_state_size;
  uint32_t debug_offset;
  uint32_t debug_size;
  uint64_t error_reason;        /* address of the int64 payload (queue_inactive_signal's value) */
  uint32_t error_event_id;
  uint32_t reserved1;
};
static_assert(sizeof(struct cwsr_header) == 40, "SIZEOF_HSA_USER_CONTEXT_SAVE_AREA_HEADER");

#endif
