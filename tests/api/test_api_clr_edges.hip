// Small behaviours matched to clr: hipModuleUnload of an unloaded module, IPC handles of a new
// allocation at a reused address, external semaphore argument checks.
#include <criterion/criterion.h>
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstring>
#include <unistd.h>

#define HIP_OK(expr) cr_assert_eq((expr), hipSuccess, "%s", #expr)

Test(module, unload_twice_is_not_found)
{
  hipModule_t m = nullptr;
  HIP_OK(hipModuleLoad(&m, RTFIX_MODULE));
  hipFunction_t f = nullptr;
  HIP_OK(hipModuleGetFunction(&f, m, "add_one"));
  int *d = nullptr, h[64];
  HIP_OK(hipMalloc(&d, sizeof(h)));
  HIP_OK(hipMemset(d, 0, sizeof(h)));
  void *args[] = {&d};
  HIP_OK(hipModuleLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr));
  HIP_OK(hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost));
  cr_assert_eq(h[63], 1);
  // A stream handle that is no longer live: clr's module launches answer hipErrorInvalidValue.
  hipStream_t dead;
  HIP_OK(hipStreamCreate(&dead));
  HIP_OK(hipStreamDestroy(dead));
  cr_assert_eq(hipModuleLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, dead, args, nullptr), hipErrorInvalidValue);
  cr_assert_eq(hipModuleLaunchCooperativeKernel(f, 1, 1, 1, 64, 1, 1, 0, dead, args), hipErrorInvalidValue);
  HIP_OK(hipModuleUnload(m));
  cr_assert_eq(hipModuleUnload(m), hipErrorNotFound);
  cr_assert_eq(hipGetLastError(), hipErrorNotFound);
  cr_assert_eq(hipModuleUnload(nullptr), hipErrorInvalidResourceHandle);
  HIP_OK(hipFree(d));
}

Test(ipc, handles_name_allocations_not_addresses)
{
  void *p1 = nullptr, *p2 = nullptr;
  hipIpcMemHandle_t h1, h1b, h2;
  HIP_OK(hipMalloc(&p1, 1024));
  HIP_OK(hipIpcGetMemHandle(&h1, p1));
  HIP_OK(hipIpcGetMemHandle(&h1b, p1));
  cr_assert_eq(memcmp(&h1, &h1b, sizeof(h1)), 0, "one allocation, one handle");
  HIP_OK(hipFree(p1));
  // A freed exported slot is never handed out again (an importer may still map it:
  // src/memory/ipc.c), so the next allocation has another address and a handle of its own.
  HIP_OK(hipMalloc(&p2, 1024));
  HIP_OK(hipIpcGetMemHandle(&h2, p2));
  cr_assert_neq(p1, p2, "the exported slot came back");
  cr_assert_neq(memcmp(&h1, &h2, sizeof(h1)), 0);
  // Opening a handle of one's own process is refused, as before.
  void *opened = nullptr;
  cr_assert_neq(hipIpcOpenMemHandle(&opened, h2, hipIpcMemLazyEnablePeerAccess), hipSuccess);
  HIP_OK(hipFree(p2));
}

Test(external_semaphore, arguments_checked_before_not_supported)
{
  hipExternalSemaphore_t sem = nullptr;
  hipExternalSemaphoreHandleDesc desc;
  memset(&desc, 0, sizeof(desc));
  cr_assert_eq(hipImportExternalSemaphore(nullptr, &desc), hipErrorInvalidValue);
  cr_assert_eq(hipImportExternalSemaphore(&sem, nullptr), hipErrorInvalidValue);
  desc.type = (hipExternalSemaphoreHandleType)0;
  desc.handle.fd = 3;
  cr_assert_eq(hipImportExternalSemaphore(&sem, &desc), hipErrorInvalidValue);
  desc.type = hipExternalSemaphoreHandleTypeD3D11Fence;
  cr_assert_eq(hipImportExternalSemaphore(&sem, &desc), hipErrorInvalidValue);
  desc.type = hipExternalSemaphoreHandleTypeOpaqueFd;
  desc.handle.fd = 0;
  cr_assert_eq(hipImportExternalSemaphore(&sem, &desc), hipErrorInvalidValue);
  desc.handle.fd = 3;
  cr_assert_eq(hipImportExternalSemaphore(&sem, &desc), hipErrorNotSupported);

  hipExternalSemaphoreSignalParams sp;
  hipExternalSemaphoreWaitParams wp;
  memset(&sp, 0, sizeof(sp));
  memset(&wp, 0, sizeof(wp));
  hipExternalSemaphore_t fake = (hipExternalSemaphore_t)&sp;
  cr_assert_eq(hipSignalExternalSemaphoresAsync(nullptr, &sp, 1, nullptr), hipErrorInvalidValue);
  cr_assert_eq(hipGetLastError(), hipErrorInvalidValue);
  cr_assert_eq(hipGetLastError(), hipSuccess);
  cr_assert_eq(hipWaitExternalSemaphoresAsync(nullptr, &wp, 1, nullptr), hipErrorInvalidValue);
  cr_assert_eq(hipSignalExternalSemaphoresAsync(&fake, nullptr, 1, nullptr), hipErrorInvalidValue);
  hipExternalSemaphore_t none = nullptr;
  cr_assert_eq(hipWaitExternalSemaphoresAsync(&none, &wp, 1, nullptr), hipErrorInvalidValue);
  hipStream_t dead;
  HIP_OK(hipStreamCreate(&dead));
  HIP_OK(hipStreamDestroy(dead));
  cr_assert_eq(hipWaitExternalSemaphoresAsync(&fake, &wp, 1, dead), hipErrorInvalidValue);
  sp.flags = 1;
  cr_assert_eq(hipSignalExternalSemaphoresAsync(&fake, &sp, 1, nullptr), hipErrorInvalidValue);
  sp.flags = 0;
  cr_assert_eq(hipSignalExternalSemaphoresAsync(&fake, &sp, 1, nullptr), hipErrorNotSupported);
  cr_assert_eq(hipWaitExternalSemaphoresAsync(&fake, &wp, 1, hipStreamPerThread), hipErrorNotSupported);
  HIP_OK(hipSignalExternalSemaphoresAsync(&fake, &sp, 0, nullptr)); // nothing to do
  cr_assert_eq(hipDestroyExternalSemaphore(nullptr), hipErrorInvalidValue);
  cr_assert_eq(hipDestroyExternalSemaphore(fake), hipErrorNotSupported);
}

Test(context, create_records_flags_on_the_device)
{
  hipCtx_t ctx;
  unsigned flags = 0;
  const unsigned want = hipDeviceScheduleBlockingSync | hipDeviceMapHost;
  HIP_OK(hipInit(0));
  HIP_OK(hipCtxCreate(&ctx, want, 0));
  HIP_OK(hipGetDeviceFlags(&flags));
  cr_assert_eq(flags, want, "clr keeps hipCtxCreate's flags on the device: 0x%x", flags);
  HIP_OK(hipCtxPopCurrent(&ctx));
  HIP_OK(hipCtxDestroy(ctx));
  // hipSetDeviceFlags keeps the scheduling bits only.
  HIP_OK(hipSetDeviceFlags(hipDeviceScheduleSpin | hipDeviceMapHost));
  HIP_OK(hipGetDeviceFlags(&flags));
  cr_assert_eq(flags, (unsigned)hipDeviceScheduleSpin);
}

Test(module, global_of_a_managed_variable_is_its_allocation)
{
  hipModule_t m = nullptr;
  HIP_OK(hipModuleLoad(&m, RTFIX_MODULE));
  hipFunction_t f = nullptr;
  HIP_OK(hipModuleGetFunction(&f, m, "bump_counter"));
  HIP_OK(hipModuleLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr));
  HIP_OK(hipDeviceSynchronize());
  hipDeviceptr_t p = nullptr;
  size_t bytes = 0;
  // clr hands out the managed memory itself and the variable's size, not the pointer slot.
  HIP_OK(hipModuleGetGlobal(&p, &bytes, m, "counter"));
  cr_assert_eq(bytes, sizeof(int));
  int v = 0;
  HIP_OK(hipMemcpyDtoH(&v, p, bytes));
  cr_assert_eq(v, 11);
  cr_assert_eq(*(int *)p, 11, "managed memory is host-readable");
  // A plain __device__ variable is unchanged: its own storage.
  HIP_OK(hipModuleGetGlobal(&p, &bytes, m, "plain_global"));
  cr_assert_eq(bytes, sizeof(int));
  HIP_OK(hipMemcpyDtoH(&v, p, bytes));
  cr_assert_eq(v, 7);
  HIP_OK(hipModuleUnload(m));
}

Test(module, empty_file_is_an_invalid_image)
{
  char path[] = "/tmp/rtfix_empty_XXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  close(fd);
  hipModule_t m = nullptr;
  cr_assert_eq(hipModuleLoad(&m, path), hipErrorInvalidImage);
  cr_assert_null(m);
  unlink(path);
  cr_assert_eq(hipModuleLoad(&m, "/tmp"), hipErrorInvalidValue, "a directory is no file to load");
  cr_assert_eq(hipModuleLoad(&m, "/nonexistent/rtfix.co"), hipErrorFileNotFound);
}
