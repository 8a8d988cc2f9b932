/* kfdsim GPU profiles: the facts one emulated GPU model reports, as data.
 *
 * Values follow what amdkfd shows in sysfs for the real boards (node properties from
 * kfd_topology.c / kfd_crat.c) and the rocjitsu KMD configs of MI210 and MI300X in
 * ROCm/rocm-systems (emulation/rocjitsu/configs/gfx90a_mi210_kmd.json, gfx942_cdna3_kmd.json).
 */
#ifndef KFDSIM_PROFILES_H
#define KFDSIM_PROFILES_H

#include <stdint.h>

#include "sim.h"

struct sim_profile {
  const char *name;               /* KFDSIM_PROFILE value: "gfx90a", "gfx942" */
  enum sim_gfx gfx;
  const char *asic_name;          /* sysfs node "name": lower-case amdgpu_asic_name[] */
  const char *marketing_name;     /* what amdgpu.ids calls the board (libdrm looks it up) */
  uint32_t gfx_target_version;
  uint32_t vendor_id, device_id, pci_rev, family_id;
  uint32_t gpu_id_base;           /* gpu_id of the first node; later nodes derive from it */
  uint64_t unique_id_base;

  /* Compute: simd_count covers every XCC; array_count is per XCC (sysfs multiplies). */
  uint32_t num_xcc;
  uint32_t simd_count, simd_per_cu, max_waves_per_simd, wave_front_size;
  uint32_t array_count, simd_arrays_per_engine, cu_per_simd_array;
  uint32_t max_slots_scratch_cu, lds_size_in_kb, gds_size_in_kb, num_gws;
  uint32_t max_engine_clk_fcompute;
  uint32_t num_sdma_engines, num_sdma_xgmi_engines, num_sdma_queues_per_engine, num_cp_queues;
  uint32_t fw_version, sdma_fw_version;
  uint32_t capability;            /* HSA_CAP_* bits (kfd_sysfs.h) */
  uint64_t debug_prop;

  /* Memory */
  uint64_t vram_size;
  uint32_t vram_width, mem_clk_max;
  uint32_t vram_type;             /* AMDGPU_VRAM_TYPE_* for the render node's DEV_INFO */
  uint32_t gb_addr_config;        /* GB_ADDR_CONFIG register as libdrm reads it */

  /* Caches (kfd_crat.c: one L1 per CU, one L2 per XCC, an optional L3/MALL per device) */
  uint32_t l1_kb, l1_line, l1_assoc;
  uint32_t l2_kb, l2_line, l2_assoc;
  uint32_t l3_kb, l3_line, l3_assoc;

  /* Host placement: GPUs are spread over the host's NUMA nodes this many per node, in index
   * order (a 2-socket MI210 server: 4 per socket; an MI300X OAM platform: 4 per socket). */
  uint32_t gpus_per_numa_node;

  /* xGMI link between two GPUs of this model */
  uint32_t xgmi_min_bw, xgmi_max_bw;
};

/* The profile called `name`, or NULL. */
const struct sim_profile *sim_profile_find(const char *name);
/* The names of every profile, for messages: "gfx90a|gfx942". */
const char *sim_profile_names(void);

/* The host NUMA node of GPU [in] index of profile [in] p: gpus_per_numa_node GPUs per node, kept
 * within the nodes this host has (/sys/devices/system/node), so the value is one the kernel
 * could report here. */
int sim_profile_numa_node(const struct sim_profile *p, uint32_t index);

static inline uint32_t sim_profile_cu_count(const struct sim_profile *p)
{
  return p->simd_count / p->simd_per_cu;
}

#endif
