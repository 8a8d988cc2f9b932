// CU-masked streams: hipExtStreamCreateWithCUMask / hipExtStreamGetCUMask with clr's answers,
// and work running on a masked stream.
#include <criterion/criterion.h>
#include <hip/hip_runtime.h>

#include <vector>

#define HIP_OK(expr) cr_assert_eq((expr), hipSuccess, "%s", #expr)

__global__ void fill(int *out, int v) { out[blockIdx.x * blockDim.x + threadIdx.x] = v; }

static int cus()
{
  int n = 0;
  HIP_OK(hipDeviceGetAttribute(&n, hipDeviceAttributeMultiprocessorCount, 0));
  cr_assert_gt(n, 0);
  return n;
}

static std::vector<uint32_t> full_mask(int n)
{
  std::vector<uint32_t> m((n + 31) / 32, 0xffffffffu);
  if (n % 32)
    m.back() = (1u << (n % 32)) - 1u;
  return m;
}

Test(cu_mask, default_masks)
{
  const int n = cus();
  const std::vector<uint32_t> full = full_mask(n);
  std::vector<uint32_t> got(full.size() + 2, 0xdeadbeefu);
  HIP_OK(hipExtStreamGetCUMask(nullptr, (uint32_t)got.size(), got.data()));
  for (size_t i = 0; i < full.size(); i++)
    cr_assert_eq(got[i], full[i], "word %zu", i);
  cr_assert_eq(got[full.size()], 0xdeadbeefu, "nothing written past the device's words");
  HIP_OK(hipExtStreamGetCUMask(hipStreamPerThread, (uint32_t)got.size(), got.data()));
  cr_assert_eq(got[0], full[0]);
  // A stream made without a mask reports every CU too.
  hipStream_t s;
  HIP_OK(hipStreamCreate(&s));
  std::fill(got.begin(), got.end(), 0u);
  HIP_OK(hipExtStreamGetCUMask(s, (uint32_t)full.size(), got.data()));
  for (size_t i = 0; i < full.size(); i++)
    cr_assert_eq(got[i], full[i]);
  HIP_OK(hipStreamDestroy(s));
}

Test(cu_mask, custom_mask_read_back_and_used)
{
  const int n = cus();
  const std::vector<uint32_t> full = full_mask(n);
  std::vector<uint32_t> mask(full.size() + 3, 0xaaaaaaaau); // longer than the device needs
  hipStream_t s;
  HIP_OK(hipExtStreamCreateWithCUMask(&s, (uint32_t)mask.size(), mask.data()));
  unsigned flags = 99;
  int prio = 99;
  HIP_OK(hipStreamGetFlags(s, &flags));
  HIP_OK(hipStreamGetPriority(s, &prio));
  cr_assert_eq(flags, hipStreamDefault);
  cr_assert_eq(prio, 0);
  std::vector<uint32_t> got(full.size(), 0);
  HIP_OK(hipExtStreamGetCUMask(s, (uint32_t)got.size(), got.data()));
  for (size_t i = 0; i < full.size(); i++)
    cr_assert_eq(got[i], 0xaaaaaaaau & full[i], "word %zu: 0x%08x", i, got[i]);
  // Work on the masked stream runs.
  int *d = nullptr, h[256];
  HIP_OK(hipMalloc(&d, sizeof(h)));
  fill<<<4, 64, 0, s>>>(d, 42);
  HIP_OK(hipGetLastError());
  HIP_OK(hipMemcpyAsync(h, d, sizeof(h), hipMemcpyDeviceToHost, s));
  HIP_OK(hipStreamSynchronize(s));
  for (int i = 0; i < 256; i++)
    cr_assert_eq(h[i], 42);
  HIP_OK(hipFree(d));
  HIP_OK(hipStreamDestroy(s));
  // A stream recycled from the masked one carries no mask.
  HIP_OK(hipStreamCreate(&s));
  HIP_OK(hipExtStreamGetCUMask(s, (uint32_t)got.size(), got.data()));
  cr_assert_eq(got[0], full[0]);
  HIP_OK(hipStreamDestroy(s));
}

Test(cu_mask, short_and_empty_masks)
{
  const int n = cus();
  const std::vector<uint32_t> full = full_mask(n);
  std::vector<uint32_t> got(full.size(), 0);
  // One word: only the first 32 CUs are named; the read-back has that one word.
  uint32_t one = 0x0000ff00u;
  hipStream_t s;
  HIP_OK(hipExtStreamCreateWithCUMask(&s, 1, &one));
  std::fill(got.begin(), got.end(), 0x12345678u);
  HIP_OK(hipExtStreamGetCUMask(s, (uint32_t)got.size(), got.data()));
  cr_assert_eq(got[0], 0x0000ff00u);
  if (got.size() > 1)
    cr_assert_eq(got[1], 0x12345678u, "clr copies only the words the stream's mask has");
  HIP_OK(hipStreamDestroy(s));
  // No CU at all: created, not applied, and reported as every CU.
  std::vector<uint32_t> none(full.size(), 0u);
  HIP_OK(hipExtStreamCreateWithCUMask(&s, (uint32_t)none.size(), none.data()));
  HIP_OK(hipExtStreamGetCUMask(s, (uint32_t)got.size(), got.data()));
  for (size_t i = 0; i < full.size(); i++)
    cr_assert_eq(got[i], full[i]);
  int *d = nullptr;
  HIP_OK(hipMalloc(&d, 64 * sizeof(int)));
  fill<<<1, 64, 0, s>>>(d, 5);
  HIP_OK(hipStreamSynchronize(s));
  int h0 = 0;
  HIP_OK(hipMemcpy(&h0, d, sizeof(int), hipMemcpyDeviceToHost));
  cr_assert_eq(h0, 5);
  HIP_OK(hipFree(d));
  HIP_OK(hipStreamDestroy(s));
}

Test(cu_mask, errors)
{
  const std::vector<uint32_t> full = full_mask(cus());
  std::vector<uint32_t> got(full.size(), 0);
  hipStream_t s = (hipStream_t)0x1;
  cr_assert_eq(hipExtStreamCreateWithCUMask(nullptr, (uint32_t)full.size(), full.data()), hipErrorInvalidHandle);
  cr_assert_eq(hipExtStreamCreateWithCUMask(&s, 0, full.data()), hipErrorInvalidValue);
  cr_assert_eq(hipExtStreamCreateWithCUMask(&s, (uint32_t)full.size(), nullptr), hipErrorInvalidValue);
  cr_assert_eq(hipExtStreamGetCUMask(nullptr, (uint32_t)full.size(), nullptr), hipErrorInvalidValue);
  if (full.size() > 1)
    cr_assert_eq(hipExtStreamGetCUMask(nullptr, (uint32_t)full.size() - 1, got.data()), hipErrorInvalidValue);
  cr_assert_eq(hipExtStreamGetCUMask(nullptr, 0, got.data()), hipErrorInvalidValue);
  HIP_OK(hipExtStreamCreateWithCUMask(&s, (uint32_t)full.size(), full.data()));
  HIP_OK(hipStreamDestroy(s));
  cr_assert_neq(hipExtStreamGetCUMask(s, (uint32_t)got.size(), got.data()), hipSuccess, "destroyed stream");
}
