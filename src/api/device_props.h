/* Device facts shared by hipGetDeviceProperties, hipDeviceGetAttribute and the device queries. */
#ifndef HIPKFD_API_DEVICE_PROPS_H
#define HIPKFD_API_DEVICE_PROPS_H

#include <stddef.h>
#include <stdint.h>

#include <hip/hip_runtime_api.h>

struct hip_device;
struct kfd_node;

/* [out] out: the device's name as AMD's runtime reports it: the marketing name libdrm_amdgpu
 * finds for the board (amdgpu.ids), else the topology's, else the ASIC name. */
void hip_device_name(const struct kfd_node *n, char *out, size_t size);
/* [out] p: every R0600 field of device d, from the topology (and libdrm_amdgpu where the
 * topology lacks a fact). */
void hip_device_props(const struct hip_device *d, hipDeviceProp_tR0600 *p);
/* The target id, e.g. "gfx942:sramecc+:xnack-". */
void hip_gcn_arch_name(const struct kfd_node *n, char *out, size_t size);
/* VRAM bytes (hipDeviceTotalMem, totalGlobalMem). */
uint64_t hip_device_total_mem(const struct kfd_node *n);
/* GPU timestamp counter rate in kHz. */
int hip_device_wall_clock_khz(const struct hip_device *d);

#endif
