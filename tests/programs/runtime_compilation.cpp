// hiprtc end to end: compile HIP source with in-memory headers at run time, load the code object
// with hipModuleLoadData, launch it, check the results; a template kernel through a name
// expression; a compilation error with its log; the error codes of misuse.
#include <hip/hiprtc.h>
#include <string.h>

#include <vector>

#include "check.h"

#define CHECK_RTC(call)                                                                      \
  do {                                                                                       \
    hiprtcResult rtc_err_ = (call);                                                          \
    if (rtc_err_ != HIPRTC_SUCCESS) {                                                        \
      fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #call,                        \
              hiprtcGetErrorString(rtc_err_));                                               \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

static const char *saxpy_src =
    "#include \"types/real.h\"\n"
    "#include \"scale.h\"\n"
    "extern \"C\" __global__ void saxpy(real a, const real *x, real *y, unsigned n) {\n"
    "  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) y[i] = SCALE(a) * x[i] + y[i];\n"
    "}\n";
static const char *saxpy_headers[] = {"typedef float real;\n", "#define SCALE(v) (2 * (v))\n"};
static const char *saxpy_names[] = {"types/real.h", "scale.h"};

static const char *template_src =
    "template <typename T, int K> __global__ void fill(T *p) { p[threadIdx.x] = T(K) + threadIdx.x; }\n"
    "namespace ns { __device__ int counter = 41; }\n";

// Compile `prog` for the current device, print the log on failure.
static hiprtcResult compile(hiprtcProgram prog, int nopt, const char **opts)
{
  hiprtcResult r = hiprtcCompileProgram(prog, nopt, opts);
  size_t log_size = 0;
  CHECK_RTC(hiprtcGetProgramLogSize(prog, &log_size));
  CHECK(log_size >= 1);
  std::vector<char> log(log_size);
  CHECK_RTC(hiprtcGetProgramLog(prog, log.data()));
  CHECK(log[log_size - 1] == 0);
  if (r != HIPRTC_SUCCESS)
    fprintf(stderr, "compile log:\n%s\n", log.data());
  return r;
}

static hipModule_t load(hiprtcProgram prog)
{
  size_t size = 0;
  CHECK_RTC(hiprtcGetCodeSize(prog, &size));
  CHECK(size > 64);
  std::vector<char> code(size);
  CHECK_RTC(hiprtcGetCode(prog, code.data()));
  CHECK(memcmp(code.data(), "\177ELF", 4) == 0);
  hipModule_t m;
  CHECK_HIP(hipModuleLoadData(&m, code.data()));
  return m;
}

static void saxpy()
{
  hiprtcProgram prog;
  CHECK_RTC(hiprtcCreateProgram(&prog, saxpy_src, "saxpy.cu", 2, saxpy_headers, saxpy_names));
  hipDeviceProp_t props;
  CHECK_HIP(hipGetDeviceProperties(&props, 0));
  char arch[300];
  snprintf(arch, sizeof(arch), "--gpu-architecture=%s", props.gcnArchName);
  const char *opts[] = {arch, "-DUNUSED=1"};
  CHECK(compile(prog, 2, opts) == HIPRTC_SUCCESS);
  hipModule_t m = load(prog);
  CHECK_RTC(hiprtcDestroyProgram(&prog));
  CHECK(prog == nullptr);

  const unsigned n = 1000;
  std::vector<float> x(n), y(n);
  for (unsigned i = 0; i < n; i++) {
    x[i] = (float)i;
    y[i] = 1.0f;
  }
  float *dx, *dy;
  CHECK_HIP(hipMalloc(&dx, n * sizeof(float)));
  CHECK_HIP(hipMalloc(&dy, n * sizeof(float)));
  CHECK_HIP(hipMemcpy(dx, x.data(), n * sizeof(float), hipMemcpyHostToDevice));
  CHECK_HIP(hipMemcpy(dy, y.data(), n * sizeof(float), hipMemcpyHostToDevice));
  hipFunction_t f;
  CHECK_HIP(hipModuleGetFunction(&f, m, "saxpy"));
  float a = 1.5f;
  unsigned cnt = n;
  void *args[] = {&a, &dx, &dy, &cnt};
  CHECK_HIP(hipModuleLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr));
  CHECK_HIP(hipMemcpy(y.data(), dy, n * sizeof(float), hipMemcpyDeviceToHost));
  for (unsigned i = 0; i < n; i++)
    CHECK(y[i] == 3.0f * (float)i + 1.0f);
  CHECK_HIP(hipFree(dx));
  CHECK_HIP(hipFree(dy));
  CHECK_HIP(hipModuleUnload(m));
}

static void name_expressions()
{
  hiprtcProgram prog;
  CHECK_RTC(hiprtcCreateProgram(&prog, template_src, nullptr, 0, nullptr, nullptr));
  const char *lowered;
  CHECK(hiprtcGetLoweredName(prog, "&fill<int, 7>", &lowered) ==
        HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION);
  CHECK_RTC(hiprtcAddNameExpression(prog, "&fill<int, 7>"));
  CHECK_RTC(hiprtcAddNameExpression(prog, "fill<float, 2>"));
  CHECK_RTC(hiprtcAddNameExpression(prog, "&ns::counter"));
  CHECK(compile(prog, 0, nullptr) == HIPRTC_SUCCESS);
  CHECK(hiprtcAddNameExpression(prog, "&fill<int, 8>") ==
        HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION);
  CHECK(hiprtcGetLoweredName(prog, "&fill<int, 9>", &lowered) ==
        HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID);
  const char *fill_int, *fill_float, *counter;
  CHECK_RTC(hiprtcGetLoweredName(prog, "&fill<int, 7>", &fill_int));
  CHECK_RTC(hiprtcGetLoweredName(prog, "fill<float, 2>", &fill_float));
  CHECK_RTC(hiprtcGetLoweredName(prog, "&ns::counter", &counter));
  printf("lowered: %s %s %s\n", fill_int, fill_float, counter);
  CHECK(strcmp(fill_int, "_Z4fillIiLi7EEvPT_") == 0);
  CHECK(strcmp(fill_float, "_Z4fillIfLi2EEvPT_") == 0);
  CHECK(strcmp(counter, "_ZN2ns7counterE") == 0);

  hipModule_t m = load(prog);
  hipFunction_t f;
  CHECK_HIP(hipModuleGetFunction(&f, m, fill_int));
  int *d, h[64];
  CHECK_HIP(hipMalloc(&d, sizeof(h)));
  void *args[] = {&d};
  CHECK_HIP(hipModuleLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr));
  CHECK_HIP(hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost));
  for (int i = 0; i < 64; i++)
    CHECK(h[i] == 7 + i);
  hipDeviceptr_t var;
  size_t bytes;
  CHECK_HIP(hipModuleGetGlobal(&var, &bytes, m, counter));
  int value = 0;
  CHECK(bytes == sizeof(int));
  CHECK_HIP(hipMemcpy(&value, (void *)var, sizeof(int), hipMemcpyDeviceToHost));
  CHECK(value == 41);
  CHECK_HIP(hipFree(d));
  CHECK_HIP(hipModuleUnload(m));
  CHECK_RTC(hiprtcDestroyProgram(&prog));
}

static void errors()
{
  hiprtcProgram prog;
  CHECK_RTC(hiprtcCreateProgram(&prog, "__global__ void k() { undeclared_thing(); }\n", "bad.cu",
                                0, nullptr, nullptr));
  CHECK(compile(prog, 0, nullptr) == HIPRTC_ERROR_COMPILATION);
  size_t log_size = 0;
  CHECK_RTC(hiprtcGetProgramLogSize(prog, &log_size));
  std::vector<char> log(log_size);
  CHECK_RTC(hiprtcGetProgramLog(prog, log.data()));
  CHECK(strstr(log.data(), "undeclared_thing") != nullptr);
  CHECK(strstr(log.data(), "bad.cu") != nullptr);
  size_t code_size = 1;
  CHECK_RTC(hiprtcGetCodeSize(prog, &code_size));
  CHECK(code_size == 0);
  CHECK_RTC(hiprtcDestroyProgram(&prog));

  CHECK(hiprtcCreateProgram(nullptr, "", nullptr, 0, nullptr, nullptr) == HIPRTC_ERROR_INVALID_INPUT);
  CHECK(hiprtcCreateProgram(&prog, nullptr, nullptr, 0, nullptr, nullptr) == HIPRTC_ERROR_INVALID_INPUT);
  CHECK(hiprtcCreateProgram(&prog, "", nullptr, 1, nullptr, nullptr) == HIPRTC_ERROR_INVALID_INPUT);
  CHECK(hiprtcCompileProgram(nullptr, 0, nullptr) == HIPRTC_ERROR_INVALID_PROGRAM);
  CHECK(hiprtcDestroyProgram(nullptr) == HIPRTC_ERROR_INVALID_INPUT);
  CHECK(strcmp(hiprtcGetErrorString(HIPRTC_ERROR_COMPILATION), "HIPRTC_ERROR_COMPILATION") == 0);
  int major = 0, minor = -1;
  CHECK_RTC(hiprtcVersion(&major, &minor));
  CHECK(major >= 5 && minor >= 0);
}

int main()
{
  saxpy();
  name_expressions();
  errors();
  printf("PASSED\n");
  return 0;
}
