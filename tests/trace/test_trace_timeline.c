/* The timeline trace, white-box: API calls observed as the generated wrappers will observe them
 * (observed.h), kernels on two streams, copies and a memset, then hipProfilerStop writes the
 * file and check_trace.py validates it (API, kernel, copy and fill events, flows, no overlap of
 * a stream's kernels). Runs with HIPKFD_TRACE=<file> and HIPKFD_TRACE_START=paused (CMake), so
 * nothing is recorded before hipProfilerStart. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

#include "observed.h"

#define N 4096

static void launch(hipFunction_t f, int *p, int n, hipStream_t s)
{
	void *args[] = {&p, &n};
	OBSERVED_CALL(hipModuleLaunchKernel, f, (unsigned)(n + 255) / 256, 1, 1, 256, 1, 1, 0, s,
		      args, NULL);
}

static int lines_of(const char *path, const char *needle)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	int n = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, needle) != NULL;
	fclose(f);
	return n;
}

Test(timeline, file_holds_calls_kernels_copies)
{
	hipModule_t m;
	hipFunction_t add_one, twice;
	hipStream_t s[2];
	int *d[2], *host = malloc(N * sizeof(int));

	cr_assert_not_null(host);
	for (int i = 0; i < N; i++)
		host[i] = i;
	cr_assert_eq(hipModuleLoad(&m, TRACE_KERNELS), hipSuccess);
	cr_assert_eq(hipModuleGetFunction(&add_one, m, "add_one"), hipSuccess);
	cr_assert_eq(hipModuleGetFunction(&twice, m, "twice_lds"), hipSuccess);
	for (int k = 0; k < 2; k++) {
		cr_assert_eq(hipStreamCreate(&s[k]), hipSuccess);
		cr_assert_eq(hipMalloc((void **)&d[k], N * sizeof(int)), hipSuccess);
	}
	/* Paused until now: this launch is not in the file. */
	launch(add_one, d[0], N, s[0]);
	cr_assert_eq(hipProfilerStart(), hipSuccess);

	OBSERVED_CALL(hipMemcpy, d[0], host, N * sizeof(int), hipMemcpyHostToDevice);
	OBSERVED_CALL(hipMemsetAsync, d[1], 0, N * sizeof(int), s[1]);
	for (int r = 0; r < 3; r++) {
		launch(add_one, d[0], N, s[0]);
		launch(twice, d[1], N, s[1]);
	}
	OBSERVED_CALL(hipDeviceSynchronize);
	OBSERVED_CALL(hipMemcpy, host, d[0], N * sizeof(int), hipMemcpyDeviceToHost);
	for (int i = 0; i < N; i++)
		cr_assert_eq(host[i], i + 3, "host[%d] = %d", i, host[i]);
	cr_assert_eq(hipProfilerStop(), hipSuccess);

	const char *path = getenv("HIPKFD_TRACE");
	cr_assert_not_null(path);
	char cmd[4096];
	snprintf(cmd, sizeof(cmd),
		 "python3 %s %s --kernels 6 --streams 2 --copy HtoD --copy DtoH --fill "
		 "--expect-api hipModuleLaunchKernel,hipMemcpy,hipMemsetAsync,hipDeviceSynchronize",
		 CHECK_TRACE, path);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	/* Exactly the six launches made while recording, not the one before. */
	cr_assert_eq(lines_of(path, "\"cat\":\"kernel\""), 6);
	/* Stopped: later calls and kernels are not recorded (the file is rewritten at exit). */
	launch(add_one, d[0], N, s[0]);
	cr_assert_eq(hipStreamSynchronize(s[0]), hipSuccess);
	cr_assert_eq(hipProfilerStop(), hipSuccess);
	cr_assert_eq(lines_of(path, "\"cat\":\"kernel\""), 6);
	for (int k = 0; k < 2; k++) {
		cr_assert_eq(hipFree(d[k]), hipSuccess);
		cr_assert_eq(hipStreamDestroy(s[k]), hipSuccess);
	}
	cr_assert_eq(hipModuleUnload(m), hipSuccess);
	free(host);
}
