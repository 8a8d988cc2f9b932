/* tests/kernels/common.h: the host-side harness shared by the kernel corpus.
 *
 * Every corpus file defines its kernels, one host function per kernel that launches it and
 * compares the results with a CPU reference, and a table of those functions. kc_main() runs
 * every entry (or only those named on the command line), prints the first mismatch of each
 * failing kernel, and returns non-zero if any kernel failed. A HIP error is reported with the
 * call that returned it and stops the kernel's check (the device may be unusable afterwards).
 *
 * The same source is compiled by clang-19 with hipkfd's headers and by Debian's hipcc 5.2.3
 * with AMD's headers, so only API both provide is used here. */
#ifndef HIPKFD_TESTS_KERNELS_COMMON_H
#define HIPKFD_TESTS_KERNELS_COMMON_H

#include <hip/hip_runtime.h>
#include <hip/hip_version.h>   /* __HIPKFD__ marks hipkfd's headers */

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

/* A check failed: the kernel's function returns this after printing the reason. */
#define KC_FAIL 1
#define KC_OK 0

/* Calls a HIP function; on an error prints where and returns KC_FAIL from the caller. */
#define KC_HIP(expr)                                                                          \
  do {                                                                                        \
    hipError_t kc_err_ = (expr);                                                              \
    if (kc_err_ != hipSuccess) {                                                              \
      fprintf(stderr, "  %s:%d: %s returned %s (%d)\n", __FILE__, __LINE__, #expr,           \
              hipGetErrorName(kc_err_), (int)kc_err_);                                        \
      return KC_FAIL;                                                                         \
    }                                                                                         \
  } while (0)

/* After a <<<>>> launch: the launch error, then completion. */
#define KC_SYNC()                                                                             \
  do {                                                                                        \
    KC_HIP(hipGetLastError());                                                                \
    KC_HIP(hipDeviceSynchronize());                                                           \
  } while (0)

/* Reports a mismatch and returns from the check function. */
#define KC_EXPECT(cond, ...)                                                                  \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      fprintf(stderr, "  mismatch (%s:%d): ", __FILE__, __LINE__);                           \
      fprintf(stderr, __VA_ARGS__);                                                           \
      fprintf(stderr, "\n");                                                                  \
      return KC_FAIL;                                                                         \
    }                                                                                         \
  } while (0)

struct kc_test {
  const char *name;
  int (*run)(void);
};

/* Device buffer that frees itself; copies from/to std::vector. */
template <class T> struct kc_buf {
  T *p = nullptr;
  size_t n = 0;
  hipError_t alloc(size_t count) {
    n = count;
    return hipMalloc((void **)&p, count * sizeof(T) + (count == 0));
  }
  hipError_t upload(const std::vector<T> &v) {
    hipError_t e = alloc(v.size());
    if (e != hipSuccess) return e;
    return hipMemcpy(p, v.data(), v.size() * sizeof(T), hipMemcpyHostToDevice);
  }
  hipError_t zero(size_t count) {
    hipError_t e = alloc(count);
    if (e != hipSuccess) return e;
    return hipMemset(p, 0, count * sizeof(T));
  }
  hipError_t download(std::vector<T> &v) const {
    v.resize(n);
    return hipMemcpy(v.data(), p, n * sizeof(T), hipMemcpyDeviceToHost);
  }
  ~kc_buf() {
    if (p) (void)hipFree(p);
  }
};

/* Deterministic pseudo-random inputs (xorshift), the same on every run. */
struct kc_rng {
  uint64_t s;
  explicit kc_rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
  uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  /* uniform in [lo, hi) */
  double uniform(double lo, double hi) { return lo + (hi - lo) * (double)(next() >> 11) * 0x1p-53; }
  int32_t irange(int32_t lo, int32_t hi) { return lo + (int32_t)(next() % (uint64_t)(hi - lo)); }
};

/* Distance in units in the last place between two finite floats of the same format: the
 * difference of their positions on the ordered line of representable values. */
static inline int64_t kc_ordered(float f) {
  int32_t i;
  memcpy(&i, &f, 4);
  return i < 0 ? (int64_t)INT32_MIN - i : i;
}
static inline int64_t kc_ordered(double d) {
  int64_t i;
  memcpy(&i, &d, 8);
  return i < 0 ? INT64_MIN - i : i;
}
template <class T> static inline uint64_t kc_ulp_distance(T got, T want) {
  if (std::isnan(got) && std::isnan(want)) return 0;
  if (std::isnan(got) || std::isnan(want)) return UINT64_MAX;
  if (std::isinf(got) || std::isinf(want)) return got == want ? 0 : UINT64_MAX;
  int64_t a = kc_ordered(got), b = kc_ordered(want);
  return a > b ? (uint64_t)(a - b) : (uint64_t)(b - a);
}

/* IEEE binary16 <-> binary32 on the host, round to nearest even, so references do not depend
 * on either header's host-side half support. */
static inline float kc_half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (man << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112u) << 23) | (man << 13);
  } else if (man == 0) {
    bits = sign;
  } else {                              /* subnormal: value = man * 2^-24 */
    float f = (float)man * 0x1p-24f;
    memcpy(&bits, &f, 4);
    bits |= sign;
  }
  float out;
  memcpy(&out, &bits, 4);
  return out;
}
static inline uint16_t kc_float_to_half(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  float a = std::fabs(f);
  if (std::isnan(f)) return sign | 0x7e00u;
  if (a >= 65520.0f) return sign | 0x7c00u;              /* rounds to infinity */
  if (a < 0x1p-14f) {                                     /* subnormal or zero: units of 2^-24 */
    float q = std::nearbyint(a * 0x1p24f);                 /* default mode: nearest even */
    return sign | (uint16_t)q;
  }
  uint32_t ax;
  memcpy(&ax, &a, 4);
  uint32_t exp = (ax >> 23) - 112u, man = ax & 0x7fffffu;
  uint32_t h = (exp << 10) | (man >> 13);
  uint32_t rest = man & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++;  /* carries into the exponent */
  return sign | (uint16_t)h;
}

static inline int kc_run_all(const kc_test *tests, size_t count, int argc, char **argv,
                             const char *file) {
  /* Arguments: kernel names to run (default: all), and "--skip <name>" for kernels whose
   * failure is diagnosed in FINDINGS.md (CMake runs those as separate, disabled tests). */
  int failed = 0, ran = 0, named = 0;
  for (int a = 1; a < argc; a++) {
    if (strcmp(argv[a], "--skip") == 0) a++;
    else named++;
  }
  for (size_t i = 0; i < count; i++) {
    bool selected = named == 0, skipped = false;
    for (int a = 1; a < argc; a++) {
      if (strcmp(argv[a], "--skip") == 0) {
        if (a + 1 < argc && strcmp(argv[a + 1], tests[i].name) == 0) skipped = true;
        a++;
      } else if (strcmp(argv[a], tests[i].name) == 0) {
        selected = true;
      }
    }
    if (skipped) {
      fprintf(stderr, "[ SKIP ] %s/%s (disabled: see tests/kernels/FINDINGS.md)\n", file, tests[i].name);
      continue;
    }
    if (!selected) continue;
    ran++;
    fprintf(stderr, "[ RUN  ] %s/%s\n", file, tests[i].name);
    (void)hipGetLastError();    /* an earlier test's failure must not leak into this one */
    int r = tests[i].run();
    fprintf(stderr, "[ %s ] %s/%s\n", r == KC_OK ? " OK " : "FAIL", file, tests[i].name);
    if (r != KC_OK) failed++;
  }
  if (ran == 0) {
    fprintf(stderr, "%s: no kernel test matched the arguments\n", file);
    return 2;
  }
  if (failed) {
    fprintf(stderr, "%s: %d of %d kernel tests FAILED\n", file, failed, ran);
    return 1;
  }
  printf("%s: all %d kernel tests PASSED\n", file, ran);
  return 0;
}

#define KC_MAIN(file, table)                                                                  \
  int main(int argc, char **argv) {                                                           \
    return kc_run_all(table, sizeof(table) / sizeof(table[0]), argc, argv, file);            \
  }

#endif
