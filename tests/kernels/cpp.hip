/* C++ in kernels: function and class templates (type and value parameters), structs passed
 * by value (padding, nested arrays, large argument blocks), device function pointers and
 * pointer tables, functors and lambdas passed to template kernels, virtual functions on
 * objects built on the device, and recursion (a real call stack in scratch). */
#include "common.h"

/* ---- templates: one kernel body, instantiated for several types and a value parameter ---- */
template <class T, int UNROLL> __global__ void scale_add(int n, T a, const T *x, T *y) {
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL;
#pragma unroll
  for (int k = 0; k < UNROLL; k++)
    if (base + k < n) y[base + k] = a * x[base + k] + y[base + k] + (T)k;
}
template <class T, int UNROLL> static int run_scale_add(const char *what) {
  const int n = 1001;
  std::vector<T> x(n), y(n), out;
  for (int i = 0; i < n; i++) {
    x[i] = (T)(i % 50);
    y[i] = (T)(i % 7);
  }
  kc_buf<T> dx, dy;
  KC_HIP(dx.upload(x));
  KC_HIP(dy.upload(y));
  int threads = (n + UNROLL - 1) / UNROLL;
  scale_add<T, UNROLL><<<(threads + 127) / 128, 128>>>(n, (T)3, dx.p, dy.p);
  KC_SYNC();
  KC_HIP(dy.download(out));
  for (int i = 0; i < n; i++) {
    T want = (T)3 * x[i] + y[i] + (T)(i % UNROLL);
    KC_EXPECT(out[i] == want, "%s [%d] = %g, want %g", what, i, (double)out[i], (double)want);
  }
  return KC_OK;
}
static int test_templates() {
  if (run_scale_add<float, 1>("scale_add<float,1>") != KC_OK) return KC_FAIL;
  if (run_scale_add<double, 4>("scale_add<double,4>") != KC_OK) return KC_FAIL;
  if (run_scale_add<int, 3>("scale_add<int,3>") != KC_OK) return KC_FAIL;
  if (run_scale_add<unsigned char, 8>("scale_add<uchar,8>") != KC_OK) return KC_FAIL;
  return run_scale_add<long long, 2>("scale_add<long long,2>");
}

/* ---- a class template with a static member function and a compile-time recursion ---- */
template <int N> struct Factorial {
  static constexpr long long value = N * Factorial<N - 1>::value;
};
template <> struct Factorial<0> {
  static constexpr long long value = 1;
};
template <class T, int DIM> struct Vec {
  T v[DIM];
  __host__ __device__ T dot(const Vec &o) const {
    T s = 0;
    for (int i = 0; i < DIM; i++) s += v[i] * o.v[i];
    return s;
  }
};
template <class T, int DIM> __global__ void dots(int n, const Vec<T, DIM> *a, const Vec<T, DIM> *b, T *out, long long *fact) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i].dot(b[i]);
  if (i == 0) *fact = Factorial<20>::value;
}
static int test_class_templates() {
  const int n = 300;
  std::vector<Vec<int, 5>> a(n), b(n);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 5; k++) {
      a[i].v[k] = i - k * 7;
      b[i].v[k] = (i * k) % 11 - 5;
    }
  kc_buf<Vec<int, 5>> da, db;
  kc_buf<int> dout;
  kc_buf<long long> dfact;
  KC_HIP(da.upload(a));
  KC_HIP(db.upload(b));
  KC_HIP(dout.zero(n));
  KC_HIP(dfact.zero(1));
  dots<int, 5><<<(n + 63) / 64, 64>>>(n, da.p, db.p, dout.p, dfact.p);
  KC_SYNC();
  std::vector<int> out;
  std::vector<long long> fact;
  KC_HIP(dout.download(out));
  KC_HIP(dfact.download(fact));
  for (int i = 0; i < n; i++) KC_EXPECT(out[i] == a[i].dot(b[i]), "Vec<int,5>::dot [%d] = %d, want %d", i, out[i], a[i].dot(b[i]));
  KC_EXPECT(fact[0] == 2432902008176640000ll, "Factorial<20> = %lld", fact[0]);
  return KC_OK;
}

/* ---- structs by value: mixed alignment (padding), nested arrays, a large argument block ---- */
struct Params {
  char tag;            /* followed by 7 bytes of padding */
  double scale;
  short offsets[3];
  int count;
  float weights[5];
  unsigned long long mask;
};
struct Big {
  int values[64];      /* 256 bytes of kernel arguments */
};
__global__ void struct_args(Params p, Big big, int tail, long long *out) {
  int t = threadIdx.x;
  if (t < 64) {
    long long v = (long long)(big.values[t] * p.scale) + p.offsets[t % 3] + p.tag;
    v += (long long)(p.weights[t % 5] * 4.0f) + p.count + (long long)((p.mask >> t) & 1);
    out[t] = v + tail;
  }
}
static int test_struct_args() {
  Params p;
  memset(&p, 0, sizeof(p));
  p.tag = 'k';
  p.scale = 2.5;
  p.offsets[0] = -7; p.offsets[1] = 300; p.offsets[2] = -30000;
  p.count = 123456;
  for (int i = 0; i < 5; i++) p.weights[i] = 0.25f * i - 1.0f;
  p.mask = 0xF0F0F0F00F0F0F0Full;
  Big big;
  for (int i = 0; i < 64; i++) big.values[i] = i * i - 1000;
  kc_buf<long long> dout;
  KC_HIP(dout.zero(64));
  struct_args<<<1, 64>>>(p, big, -77, dout.p);
  KC_SYNC();
  std::vector<long long> out;
  KC_HIP(dout.download(out));
  for (int t = 0; t < 64; t++) {
    long long v = (long long)(big.values[t] * p.scale) + p.offsets[t % 3] + p.tag;
    v += (long long)(p.weights[t % 5] * 4.0f) + p.count + (long long)((p.mask >> t) & 1);
    v += -77;
    KC_EXPECT(out[t] == v, "struct_args [%d] = %lld, want %lld", t, out[t], v);
  }
  return KC_OK;
}

/* ---- device function pointers: a table indexed by data, and a pointer passed from host ---- */
typedef int (*binop_t)(int, int);
__device__ int op_add(int a, int b) { return a + b; }
__device__ int op_sub(int a, int b) { return a - b; }
__device__ int op_mul(int a, int b) { return a * b; }
__device__ int op_xor_shift(int a, int b) { return (a ^ b) << 1; }
__device__ binop_t d_ops[4] = {op_add, op_sub, op_mul, op_xor_shift};
__device__ binop_t d_selected = op_mul;

__global__ void function_pointers(int n, const int *sel, const int *a, const int *b, int *out, binop_t host_given) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  binop_t f = d_ops[sel[i] & 3];              /* divergent indirect calls within a wave */
  out[2 * i] = f(a[i], b[i]);
  out[2 * i + 1] = host_given(a[i], b[i]);
}
static int test_function_pointers() {
  const int n = 500;
  kc_rng r(91);
  std::vector<int> sel(n), a(n), b(n), out;
  for (int i = 0; i < n; i++) {
    sel[i] = r.irange(0, 4);
    a[i] = r.irange(-1000, 1000);
    b[i] = r.irange(-1000, 1000);
  }
  /* the address of a device function, read from a device variable the loader relocated */
  binop_t selected = nullptr;
  KC_HIP(hipMemcpyFromSymbol(&selected, (const void *)&d_selected, sizeof(selected), 0, hipMemcpyDeviceToHost));
  KC_EXPECT(selected != nullptr, "d_selected read back as a null pointer");
  kc_buf<int> dsel, da, db, dout;
  KC_HIP(dsel.upload(sel)); KC_HIP(da.upload(a)); KC_HIP(db.upload(b)); KC_HIP(dout.zero(2 * n));
  function_pointers<<<(n + 127) / 128, 128>>>(n, dsel.p, da.p, db.p, dout.p, selected);
  KC_SYNC();
  KC_HIP(dout.download(out));
  for (int i = 0; i < n; i++) {
    int x = a[i], y = b[i];
    int want = sel[i] == 0 ? x + y : sel[i] == 1 ? x - y : sel[i] == 2 ? x * y : (x ^ y) << 1;
    KC_EXPECT(out[2 * i] == want, "d_ops[%d](%d, %d) = %d, want %d", sel[i], x, y, out[2 * i], want);
    KC_EXPECT(out[2 * i + 1] == x * y, "host-passed pointer (op_mul)(%d, %d) = %d", x, y, out[2 * i + 1]);
  }
  return KC_OK;
}

/* ---- functors and lambdas as template arguments ---- */
struct Saxpy {
  float a;
  __device__ float operator()(float x, float y) const { return a * x + y; }
};
template <class F> __global__ void apply2(int n, F f, const float *x, const float *y, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = f(x[i], y[i]);
}
static int test_functors_lambdas() {
  const int n = 700;
  std::vector<float> x(n), y(n), out;
  for (int i = 0; i < n; i++) {
    x[i] = (float)(i % 100) * 0.5f;
    y[i] = (float)(i % 9) - 4.0f;
  }
  kc_buf<float> dx, dy, dout;
  KC_HIP(dx.upload(x)); KC_HIP(dy.upload(y)); KC_HIP(dout.zero(n));
  apply2<<<(n + 127) / 128, 128>>>(n, Saxpy{4.0f}, dx.p, dy.p, dout.p);
  KC_SYNC();
  KC_HIP(dout.download(out));
  for (int i = 0; i < n; i++) KC_EXPECT(out[i] == 4.0f * x[i] + y[i], "functor [%d] = %g", i, out[i]);
  int k = 3;
  auto lambda = [=] __device__(float a, float b) { return a > b ? a * (float)k : b - (float)k; };
  apply2<<<(n + 127) / 128, 128>>>(n, lambda, dx.p, dy.p, dout.p);
  KC_SYNC();
  KC_HIP(dout.download(out));
  for (int i = 0; i < n; i++) {
    float want = x[i] > y[i] ? x[i] * 3.0f : y[i] - 3.0f;
    KC_EXPECT(out[i] == want, "lambda [%d] = %g, want %g", i, out[i], want);
  }
  return KC_OK;
}

/* ---- virtual functions: objects constructed on the device (their vtables are device data) ---- */
struct Shape {
  __device__ virtual float area() const = 0;
  __device__ virtual int sides() const { return 0; }
  __device__ virtual ~Shape() {}
};
struct Rect : Shape {
  float w, h;
  __device__ Rect(float w_, float h_) : w(w_), h(h_) {}
  __device__ float area() const override { return w * h; }
  __device__ int sides() const override { return 4; }
};
struct Tri : Shape {
  float b, h;
  __device__ Tri(float b_, float h_) : b(b_), h(h_) {}
  __device__ float area() const override { return 0.5f * b * h; }
  __device__ int sides() const override { return 3; }
};
struct Circle : Shape {
  float r;
  __device__ Circle(float r_) : r(r_) {}
  __device__ float area() const override { return 3.0f * r * r; }   /* a cheap "pi" */
};
__device__ float shape_area(const Shape &s, int *sides) {
  *sides = s.sides();
  return s.area();
}
__global__ void virtual_calls(int n, const float *dims, float *area, int *sides) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = dims[2 * i], b = dims[2 * i + 1];
  Rect r(a, b);
  Tri t(a, b);
  Circle c(a);
  const Shape *s = (i % 3 == 0) ? (const Shape *)&r : (i % 3 == 1) ? (const Shape *)&t : (const Shape *)&c;
  area[i] = shape_area(*s, &sides[i]);
}
static int test_virtual_calls() {
  const int n = 300;
  std::vector<float> dims(2 * n);
  for (int i = 0; i < 2 * n; i++) dims[i] = (float)(i % 13) + 0.5f;
  kc_buf<float> dd, darea;
  kc_buf<int> dsides;
  KC_HIP(dd.upload(dims)); KC_HIP(darea.zero(n)); KC_HIP(dsides.zero(n));
  virtual_calls<<<(n + 63) / 64, 64>>>(n, dd.p, darea.p, dsides.p);
  KC_SYNC();
  std::vector<float> area;
  std::vector<int> sides;
  KC_HIP(darea.download(area));
  KC_HIP(dsides.download(sides));
  for (int i = 0; i < n; i++) {
    float a = dims[2 * i], b = dims[2 * i + 1];
    float want = i % 3 == 0 ? a * b : i % 3 == 1 ? 0.5f * a * b : 3.0f * a * a;
    int wsides = i % 3 == 0 ? 4 : i % 3 == 1 ? 3 : 0;
    KC_EXPECT(area[i] == want && sides[i] == wsides, "shape %d: area %g sides %d, want %g %d", i, area[i], sides[i],
              want, wsides);
  }
  return KC_OK;
}

/* ---- recursion: the compiler must keep a call stack in scratch ---- */
__device__ __attribute__((noinline)) int ackermann_small(int m, int n) {
  if (m == 0) return n + 1;
  if (n == 0) return ackermann_small(m - 1, 1);
  return ackermann_small(m - 1, ackermann_small(m, n - 1));
}
__device__ __attribute__((noinline)) long long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__global__ void recursion(int *ack, long long *fibs) {
  int t = threadIdx.x;
  ack[t] = ackermann_small(t % 3, t % 4);
  fibs[t] = fib(t % 16);
}
static int test_recursion() {
  const int n = 64;
  kc_buf<int> dack;
  kc_buf<long long> dfib;
  KC_HIP(dack.zero(n));
  KC_HIP(dfib.zero(n));
#if defined(__HIPKFD__)
  /* Unoptimised (-O0) frames of these recursions need more than the default 1 KiB stack of a
   * kernel with a dynamic stack; HIP 5.2's headers have no hipLimitStackSize (its builds are
   * -O3, whose frames fit the default). */
  KC_HIP(hipDeviceSetLimit(hipLimitStackSize, 16384));
  size_t stack = 0;
  KC_HIP(hipDeviceGetLimit(&stack, hipLimitStackSize));
  KC_EXPECT(stack >= 16384, "hipLimitStackSize reads back %zu after setting 16384", stack);
#endif
  recursion<<<1, n>>>(dack.p, dfib.p);
  KC_SYNC();
  std::vector<int> ack;
  std::vector<long long> fibs;
  KC_HIP(dack.download(ack));
  KC_HIP(dfib.download(fibs));
  for (int t = 0; t < n; t++) {
    int m = t % 3, k = t % 4;
    int want = m == 0 ? k + 1 : m == 1 ? k + 2 : 2 * k + 3;          /* A(0..2, n) in closed form */
    long long f0 = 0, f1 = 1;
    for (int i = 0; i < t % 16; i++) {
      long long f2 = f0 + f1;
      f0 = f1;
      f1 = f2;
    }
    KC_EXPECT(ack[t] == want, "ackermann(%d, %d) = %d, want %d", m, k, ack[t], want);
    KC_EXPECT(fibs[t] == f0, "fib(%d) = %lld, want %lld", t % 16, fibs[t], f0);
  }
  return KC_OK;
}

static const kc_test tests[] = {
    {"templates", test_templates},
    {"class_templates", test_class_templates},
    {"struct_args", test_struct_args},
    {"function_pointers", test_function_pointers},
    {"functors_lambdas", test_functors_lambdas},
    {"virtual_calls", test_virtual_calls},
    {"recursion", test_recursion},
};
KC_MAIN("cpp", tests)
