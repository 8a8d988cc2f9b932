/* A libdrm_amdgpu.so.1 without a single amdgpu_* entry point: test_device_drm_absent loads it
 * ahead of the real one (LD_LIBRARY_PATH) to stand for a machine whose libdrm is missing or
 * unusable. */
int hipkfd_nodrm_stub;
