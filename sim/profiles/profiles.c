/* The kfdsim GPU models. Sources of each value are listed in profiles.h. */
#include "kfd/uapi.h"   /* first: keeps the raw UAPI linux/types.h out */
#include "profiles/profiles.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Capabilities amdkfd reports for gfx9.4.x dGPUs with RAS: doorbell type 2.0 (SOC15), four
 * watch points (log2 = 2), the trap debug features, SRAM and memory ECC, RAS events and SVM. */
#define GFX94X_CAPS                                                                          \
  (HSA_CAP_WATCH_POINTS_SUPPORTED | (2u << HSA_CAP_WATCH_POINTS_TOTALBITS_SHIFT) |             \
   (HSA_CAP_DOORBELL_TYPE_2_0 << HSA_CAP_DOORBELL_TYPE_TOTALBITS_SHIFT) |                     \
   HSA_CAP_TRAP_DEBUG_SUPPORT | HSA_CAP_TRAP_DEBUG_WAVE_LAUNCH_TRAP_OVERRIDE_SUPPORTED |       \
   HSA_CAP_TRAP_DEBUG_WAVE_LAUNCH_MODE_SUPPORTED |                                            \
   HSA_CAP_TRAP_DEBUG_PRECISE_MEMORY_OPERATIONS_SUPPORTED | HSA_CAP_MEM_EDCSUPPORTED |        \
   HSA_CAP_RASEVENTNOTIFY | HSA_CAP_SRAM_EDCSUPPORTED | HSA_CAP_SVMAPI_SUPPORTED |             \
   HSA_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED)

static const struct sim_profile profiles[] = {
  {
    /* MI210: Aldebaran, one XCC of 8 shader engines x 14 CU slots, 104 active CUs. */
    .name = "gfx90a", .gfx = SIM_GFX90A, .asic_name = "aldebaran",
    .marketing_name = "AMD Instinct MI210",
    .gfx_target_version = 90010, .vendor_id = 0x1002, .device_id = 0x740f, .pci_rev = 0x02,
    .family_id = 141 /* AMDGPU_FAMILY_AI */,
    .gpu_id_base = 50149, .unique_id_base = 0x3fc2a1b0d4e5f601ull,
    .num_xcc = 1, .simd_count = 416, .simd_per_cu = 4, .max_waves_per_simd = 8,
    .wave_front_size = 64, .array_count = 8, .simd_arrays_per_engine = 1,
    .cu_per_simd_array = 14, .max_slots_scratch_cu = 32, .lds_size_in_kb = 64,
    .gds_size_in_kb = 0, .num_gws = 64, .max_engine_clk_fcompute = 1700,
    .num_sdma_engines = 2, .num_sdma_xgmi_engines = 3, .num_sdma_queues_per_engine = 8,
    .num_cp_queues = 24, .fw_version = 78, .sdma_fw_version = 8, .capability = GFX94X_CAPS,
    .vram_size = 68702699520ull, .vram_width = 4096, .mem_clk_max = 1600,
    .vram_type = 6 /* AMDGPU_VRAM_TYPE_HBM */, .gb_addr_config = 0x2a114042,
    .l1_kb = 16, .l1_line = 64, .l1_assoc = 4,
    .l2_kb = 8192, .l2_line = 128, .l2_assoc = 16,
    .l3_kb = 0,
    .gpus_per_numa_node = 4,
    .xgmi_min_bw = 50000, .xgmi_max_bw = 100000,
  },
  {
    /* MI300X: Aqua Vanjaram, 8 XCCs of 4 shader engines x 10 CU slots, 304 active CUs. */
    .name = "gfx942", .gfx = SIM_GFX942, .asic_name = "ip discovery",
    .marketing_name = "AMD Instinct MI300X",
    .gfx_target_version = 90402, .vendor_id = 0x1002, .device_id = 0x74a1, .pci_rev = 0x00,
    .family_id = 141 /* AMDGPU_FAMILY_AI */,
    .gpu_id_base = 50148, .unique_id_base = 0x9a1e5b7c3d2f4801ull,
    .num_xcc = 8, .simd_count = 1216, .simd_per_cu = 4, .max_waves_per_simd = 8,
    .wave_front_size = 64, .array_count = 4, .simd_arrays_per_engine = 1,
    .cu_per_simd_array = 10, .max_slots_scratch_cu = 32, .lds_size_in_kb = 64,
    .gds_size_in_kb = 0, .num_gws = 64, .max_engine_clk_fcompute = 2100,
    .num_sdma_engines = 4, .num_sdma_xgmi_engines = 6, .num_sdma_queues_per_engine = 8,
    .num_cp_queues = 128, .fw_version = 151, .sdma_fw_version = 19, .capability = GFX94X_CAPS,
    .vram_size = 206158430208ull, .vram_width = 8192, .mem_clk_max = 1300,
    .vram_type = 6 /* AMDGPU_VRAM_TYPE_HBM */, .gb_addr_config = 0x2a114042,
    .l1_kb = 32, .l1_line = 128, .l1_assoc = 4,
    .l2_kb = 4096, .l2_line = 128, .l2_assoc = 16,
    .l3_kb = 262144, .l3_line = 64, .l3_assoc = 16,
    .gpus_per_numa_node = 4,
    .xgmi_min_bw = 64000, .xgmi_max_bw = 128000,
  },
};

const struct sim_profile *sim_profile_find(const char *name)
{
  for (size_t i = 0; name && i < sizeof(profiles) / sizeof(profiles[0]); i++)
    if (strcmp(profiles[i].name, name) == 0)
      return &profiles[i];
  return NULL;
}

const char *sim_profile_names(void)
{
  return "gfx90a|gfx942";
}

/* Nodes are numbered from 0 without holes on the hosts kfdsim runs on; count until one is
 * missing (a host without NUMA support in its kernel has none listed: one node, 0). */
static uint32_t host_numa_nodes(void)
{
  char path[64];
  struct stat st;
  uint32_t n = 0;
  for (; n < 1024; n++) {
    snprintf(path, sizeof(path), "/sys/devices/system/node/node%u", n);
    if (stat(path, &st) != 0)
      break;
  }
  return n ? n : 1;
}

int sim_profile_numa_node(const struct sim_profile *p, uint32_t index)
{
  uint32_t per = p->gpus_per_numa_node ? p->gpus_per_numa_node : 1;
  uint32_t node = index / per, nodes = host_numa_nodes();
  return (int)(node < nodes ? node : nodes - 1);
}
