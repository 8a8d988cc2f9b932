/* A call that fails leaves its output parameters as they were (issue 13 item 5; AMD's runtime
 * behaves so, and programs reuse the variable after an expected failure). Every entry point with
 * an output parameter is called on an error path its arguments make certain (a wild handle, a
 * wild stream or event, device 9999; for a call with none of those, invalid arguments: NULL
 * inputs, all flag bits, the largest size, an enumerator past the last) with every output
 * pointing at a sentinel-filled buffer; after the error every buffer must still hold the
 * sentinel. The list of entry points and the path for each are generated from the HIP headers
 * (gen_handle_calls.py --out-params). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include <hip/hip_runtime_api.h>

#define STR(x) #x
#define XSTR(x) STR(x)
#define OUT_BYTES 8192 /* more than the largest output struct (hipDeviceProp_t) */
#define MAX_OUTS 8
#define SENTINEL 0x5a

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* Zeroed memory every input pointer points to: empty strings, zero counts, NULL callbacks. */
static _Alignas(64) unsigned char scratch[1 << 16];
static _Alignas(64) unsigned char outs[MAX_OUTS][OUT_BYTES];

struct out_call {
	const char *name;
	int (*call)(void *bad, unsigned char (*outs)[OUT_BYTES], hipError_t *err);
	const char *path; /* the error path: handle, stream, event or device */
	int nout;
};

#include "out_param_calls.inc"

/* Outputs whose purpose is to report the failure: hipGraphInstantiateParams carries
 * errNode_out and result_out, which CUDA and clr fill in exactly when instantiation fails. */
static bool reports_failure(const struct out_call *c, int k)
{
	return strcmp(c->name, "hipGraphInstantiateWithParams") == 0 && k == 1;
}

/* The first output byte that changed, or -1. */
static long changed(const struct out_call *c, int *which)
{
	for (int k = 0; k < c->nout; k++)
		for (long i = 0; i < OUT_BYTES; i++)
			if (outs[k][i] != SENTINEL && !reports_failure(c, k)) {
				*which = k;
				return i;
			}
	return -1;
}

Test(out_params, failing_calls_leave_outputs_alone, .timeout = 300)
{
	cr_assert_eq(hipSetDevice(0), hipSuccess);
	void *bad = mmap(NULL, 1 << 16, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(bad, MAP_FAILED);

	size_t n = sizeof(out_calls) / sizeof(out_calls[0]);
	int tried = 0, failed = 0, succeeded = 0, missing = 0, overwritten = 0;
	for (size_t i = 0; i < n; i++) {
		const struct out_call *c = &out_calls[i];
		cr_assert_leq(c->nout, MAX_OUTS);
		memset(outs, SENTINEL, sizeof(outs));
		hipError_t err = hipSuccess;
		fprintf(stderr, "%s (%s)\n", c->name, c->path);
		if (c->call(bad, outs, &err) < 0) {
			missing++;
			continue;
		}
		tried++;
		(void)hipGetLastError();
		if (err == hipSuccess) {
			/* This path is no error for it (a call whose only arguments are its outputs, say):
			 * nothing to check. A note, not a Criterion warning: those fail the run. */
			succeeded++;
			fprintf(stderr, "  %s succeeded on its %s path\n", c->name, c->path);
			continue;
		}
		failed++;
		int k = 0;
		long at = changed(c, &k);
		if (at >= 0) {
			cr_log_error("%s (%s path, error %d) wrote output %d at byte %ld", c->name,
				     c->path, err, k, at);
			overwritten++;
		}
	}
	printf("out params: %zu entry points with outputs and an error path, %d exported, "
	       "%d not exported; %d failed as expected, %d succeeded, %d overwrote an output\n",
	       n, tried, missing, failed, succeeded, overwritten);
	cr_assert_eq(overwritten, 0);
}

/* The case AMD's hip-tests rely on: a failed hipModuleGetFunction keeps the caller's handle. */
Test(out_params, module_get_function_keeps_the_handle)
{
	hipFunction_t f = (hipFunction_t)(uintptr_t)0x1234;
	hipModule_t m = (hipModule_t)(uintptr_t)0x5678;
	cr_assert_neq(hipModuleGetFunction(&f, m, "k"), hipSuccess);
	cr_assert_eq((uintptr_t)f, 0x1234);
	cr_assert_neq(hipModuleLoadData(&m, scratch), hipSuccess);
	cr_assert_eq((uintptr_t)m, 0x5678);
}
