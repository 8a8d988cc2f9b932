/* A small program for the timeline trace test (check_trace.py runs it with HIPKFD_TRACE set):
 * kernels on two streams, a host-to-device and a device-to-host copy, a memset, results checked.
 * Prints "trace_program: PASSED" and exits 0 when every result is right. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

#define N (16 * 1024) /* ints: 64 KiB, so the device-to-host copy goes to SDMA */

#define CHECK(expr)                                                                          \
	do {                                                                                 \
		hipError_t e_ = (expr);                                                      \
		if (e_ != hipSuccess) {                                                      \
			fprintf(stderr, "trace_program: %s: %s\n", #expr, hipGetErrorName(e_)); \
			exit(1);                                                             \
		}                                                                            \
	} while (0)

static void launch(hipFunction_t f, int *p, int n, hipStream_t s)
{
	void *args[] = {&p, &n};
	CHECK(hipModuleLaunchKernel(f, (unsigned)(n + 255) / 256, 1, 1, 256, 1, 1, 0, s, args, NULL));
}

int main(void)
{
	hipModule_t m;
	hipFunction_t add_one, twice;
	hipStream_t s[2];
	int *d[2], *host, *pinned;

	CHECK(hipModuleLoad(&m, TRACE_KERNELS));
	CHECK(hipModuleGetFunction(&add_one, m, "add_one"));
	CHECK(hipModuleGetFunction(&twice, m, "twice_lds"));
	host = malloc(N * sizeof(int));
	CHECK(hipHostMalloc((void **)&pinned, N * sizeof(int), 0));
	for (int i = 0; i < N; i++)
		host[i] = i;
	for (int k = 0; k < 2; k++) {
		CHECK(hipStreamCreate(&s[k]));
		CHECK(hipMalloc((void **)&d[k], N * sizeof(int)));
	}
	CHECK(hipMemcpy(d[0], host, 1024 * sizeof(int), hipMemcpyHostToDevice));
	CHECK(hipMemsetAsync(d[1], 0, N * sizeof(int), s[1]));
	for (int r = 0; r < 3; r++) {
		launch(add_one, d[0], 1024, s[0]);
		launch(twice, d[1], N, s[1]);
		launch(add_one, d[1], N, s[1]);
	}
	CHECK(hipStreamSynchronize(s[0]));
	CHECK(hipStreamSynchronize(s[1]));
	CHECK(hipMemcpy(pinned, d[1], N * sizeof(int), hipMemcpyDeviceToHost));
	CHECK(hipMemcpy(host, d[0], 1024 * sizeof(int), hipMemcpyDeviceToHost));
	int bad = 0;
	for (int i = 0; i < 1024; i++)
		bad += host[i] != i + 3;
	for (int i = 0; i < N; i++)
		bad += pinned[i] != 7; /* ((0 * 2 + 1) * 2 + 1) * 2 + 1 */
	for (int k = 0; k < 2; k++) {
		CHECK(hipFree(d[k]));
		CHECK(hipStreamDestroy(s[k]));
	}
	CHECK(hipHostFree(pinned));
	free(host);
	CHECK(hipModuleUnload(m));
	printf("trace_program: %s\n", bad ? "FAILED" : "PASSED");
	return bad != 0;
}
