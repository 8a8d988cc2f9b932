/* The roctracer-era callbacks, white-box (API calls observed as the generated wrappers will,
 * observed.h): an API callback sees each call enter then exit, in program order, with one
 * correlation id per call; an activity callback gets every kernel and copy with plausible
 * timestamps, and an id callback at issue with the same record id; removing or disabling them
 * stops them; bad ids are refused. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hip/amd_detail/hip_runtime_prof.h>
#include <hip/hip_runtime_api.h>

#include "observed.h"

#define N 1024
#define MAX_SEEN 256

/* activity_record_t's layout (roctracer prof_protocol.h, ROCm 5.3+). */
struct record {
	uint32_t domain, kind, op;
	uint64_t correlation_id, begin_ns, end_ns;
	int device_id;
	uint64_t queue_id;
	union {
		size_t bytes;
		const char *kernel_name;
	};
};

/* The head of hip_api_data_t. */
struct api_data {
	uint64_t correlation_id;
	uint32_t phase;
};

static struct {
	uint32_t domain, cid, phase;
	uint64_t correlation;
	void *arg;
} calls[MAX_SEEN];
static int ncalls;

static void api_cb(uint32_t domain, uint32_t cid, const void *data, void *arg)
{
	const struct api_data *d = data;
	if (ncalls < MAX_SEEN)
		calls[ncalls++] = (__typeof__(calls[0])){domain, cid, d->phase, d->correlation_id, arg};
}

static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
static struct record records[MAX_SEEN];
static _Atomic int nrecords;
static uint64_t ids[MAX_SEEN];
static _Atomic int nids;
static int cookie;

static void id_cb(uint64_t id)
{
	int i = atomic_fetch_add(&nids, 1);
	if (i < MAX_SEEN)
		ids[i] = id;
}

static void op_cb(uint32_t op, void *record, void *arg)
{
	cr_assert_eq(arg, &cookie);
	pthread_mutex_lock(&seen_lock);
	int i = atomic_load(&nrecords);
	if (i < MAX_SEEN) {
		records[i] = *(struct record *)record;
		cr_assert_eq(records[i].op, op);
		atomic_store(&nrecords, i + 1);
	}
	pthread_mutex_unlock(&seen_lock);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The records arrive from the recorder's thread once the work finished: wait for [in] n. */
static void wait_records(int n)
{
	for (int i = 0; i < 10000 && atomic_load(&nrecords) < n; i++)
		usleep(1000);
	cr_assert_geq(atomic_load(&nrecords), n, "%d activity records, expected %d",
		      atomic_load(&nrecords), n);
}

static hipModule_t module;
static hipFunction_t add_one;

static void setup(void)
{
	cr_assert_eq(hipModuleLoad(&module, TRACE_KERNELS), hipSuccess);
	cr_assert_eq(hipModuleGetFunction(&add_one, module, "add_one"), hipSuccess);
}

static void teardown(void)
{
	hipModuleUnload(module);
}

static uint32_t cid_of(const char *name)
{
	for (uint32_t id = 1; id < 1024; id++)
		if (strcmp(hipApiName(id), name) == 0)
			return id;
	cr_assert_fail("no callback id for %s", name);
	return 0;
}

Test(api_callback, enter_exit_in_program_order, .init = setup, .fini = teardown)
{
	int *d, n = N, arg;
	void *args[] = {&d, &n};
	const char *names[] = {"hipMalloc", "hipModuleLaunchKernel", "hipDeviceSynchronize",
			       "hipFree"};

	for (int i = 0; i < 4; i++)
		cr_assert_eq(hipRegisterApiCallback(cid_of(names[i]), (void *)api_cb, &arg),
			     hipSuccess);
	OBSERVED_CALL(hipMalloc, (void **)&d, N * sizeof(int));
	OBSERVED_CALL(hipModuleLaunchKernel, add_one, N / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL);
	OBSERVED_CALL(hipDeviceSynchronize);
	OBSERVED_CALL(hipFree, d);

	cr_assert_eq(ncalls, 8);
	for (int i = 0; i < 4; i++) {
		cr_assert_eq(calls[2 * i].cid, cid_of(names[i]));
		cr_assert_str_eq(hipApiName(calls[2 * i].cid), names[i]);
		cr_assert_eq(calls[2 * i].phase, 0, "%s: enter first", names[i]);
		cr_assert_eq(calls[2 * i + 1].cid, calls[2 * i].cid);
		cr_assert_eq(calls[2 * i + 1].phase, 1, "%s: then exit", names[i]);
		cr_assert_eq(calls[2 * i].domain, 3); /* ACTIVITY_DOMAIN_HIP_API */
		cr_assert_eq(calls[2 * i].arg, &arg);
		cr_assert_eq(calls[2 * i + 1].correlation, calls[2 * i].correlation);
		if (i)
			cr_assert_gt(calls[2 * i].correlation, calls[2 * i - 2].correlation);
	}

	/* Removed: nothing more. A call of an API without a callback is not reported either. */
	for (int i = 0; i < 4; i++)
		cr_assert_eq(hipRemoveApiCallback(cid_of(names[i])), hipSuccess);
	OBSERVED_CALL(hipMalloc, (void **)&d, N * sizeof(int));
	OBSERVED_CALL(hipFree, d);
	cr_assert_eq(ncalls, 8);
}

/* hipRegisterActivityCallback's function supplies the record the API callback gets. */
static struct api_data tool_record;
static int act_enter, act_exit;
static void *act_cb(uint32_t cid, void *record, const void *data, void *arg)
{
	(void)cid, (void)record, (void)data;
	if (!arg) {
		act_enter++;
		tool_record.correlation_id = 4242;
		return &tool_record;
	}
	act_exit++;
	return NULL;
}

Test(api_callback, activity_callback_supplies_the_record)
{
	int *d;
	uint32_t cid = cid_of("hipMalloc");
	ncalls = 0;
	cr_assert_eq(hipRegisterActivityCallback(cid, (void *)act_cb, &cookie), hipSuccess);
	cr_assert_eq(hipRegisterApiCallback(cid, (void *)api_cb, NULL), hipSuccess);
	OBSERVED_CALL(hipMalloc, (void **)&d, 64);
	cr_assert_eq(act_enter, 1);
	cr_assert_eq(act_exit, 1);
	cr_assert_eq(ncalls, 2);
	cr_assert_eq(calls[0].correlation, 4242);
	cr_assert_eq(calls[1].phase, 1);
	cr_assert_eq(tool_record.phase, 1);
	cr_assert_eq(hipRemoveActivityCallback(cid), hipSuccess);
	cr_assert_eq(hipRemoveApiCallback(cid), hipSuccess);
	OBSERVED_CALL(hipFree, d);
	cr_assert_eq(act_enter, 1);
}

Test(api_callback, bad_ids_refused)
{
	cr_assert_eq(hipRegisterApiCallback(0, (void *)api_cb, NULL), hipErrorInvalidValue);
	cr_assert_eq(hipRegisterApiCallback(100000, (void *)api_cb, NULL), hipErrorInvalidValue);
	cr_assert_eq(hipRemoveApiCallback(0), hipErrorInvalidValue);
	cr_assert_eq(hipRegisterActivityCallback(0xffffffffu, (void *)act_cb, NULL),
		     hipErrorInvalidValue);
	cr_assert_eq(hipRemoveActivityCallback(0), hipErrorInvalidValue);
	cr_assert(!hipEnableActivityCallback(3, true));
	cr_assert(!hipEnableActivityCallback(0xffffffffu, false));
}

Test(activity_callback, kernels_and_copies, .init = setup, .fini = teardown)
{
	int *d, n = N, host[N];
	void *args[] = {&d, &n};
	hipStream_t s;

	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	cr_assert_eq(hipMalloc((void **)&d, sizeof(host)), hipSuccess);
	cr_assert_eq(hipMemset(d, 0, sizeof(host)), hipSuccess);
	cr_assert_eq(hipDeviceSynchronize(), hipSuccess);
	hipInitActivityCallback((void *)id_cb, (void *)op_cb, &cookie);
	cr_assert(hipEnableActivityCallback(0, true));
	cr_assert(hipEnableActivityCallback(1, true));

	uint64_t t0 = now_ns();
	for (int i = 0; i < 3; i++)
		cr_assert_eq(hipModuleLaunchKernel(add_one, N / 256, 1, 1, 256, 1, 1, 0, s, args,
						   NULL), hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	cr_assert_eq(hipMemcpy(host, d, sizeof(host), hipMemcpyDeviceToHost), hipSuccess);
	wait_records(4);
	uint64_t t1 = now_ns();

	int kernels = 0, copies = 0;
	uint64_t last_end = 0;
	for (int i = 0; i < atomic_load(&nrecords); i++) {
		struct record *r = &records[i];
		cr_assert_eq(r->domain, 2); /* ACTIVITY_DOMAIN_HIP_OPS */
		cr_assert_leq(r->begin_ns, r->end_ns);
		/* Within the test's window, allowing for the GPU clock's calibration. */
		cr_assert_geq(r->begin_ns + 1000000, t0);
		cr_assert_leq(r->end_ns, t1 + 1000000);
		bool issued = false;
		for (int j = 0; j < atomic_load(&nids); j++)
			issued |= ids[j] == r->correlation_id;
		cr_assert(issued, "record %lu had no id callback", (unsigned long)r->correlation_id);
		if (r->op == 0) {
			cr_assert_eq(r->kind, 0x11F0);
			cr_assert_str_eq(hipGetCmdName(r->kind), "KernelExecution");
			cr_assert_str_eq(r->kernel_name, "add_one");
			cr_assert_geq(r->begin_ns, last_end, "kernels of a stream in order");
			last_end = r->end_ns;
			kernels++;
		} else {
			cr_assert_eq(r->op, 1);
			cr_assert_eq(r->kind, 0x11F3);
			cr_assert_eq(r->bytes, sizeof(host));
			copies++;
		}
	}
	cr_assert_eq(kernels, 3);
	cr_assert_eq(copies, 1);
	for (int i = 0; i < N; i++)
		cr_assert_eq(host[i], 3);

	/* Disabled: no more records. */
	cr_assert(hipEnableActivityCallback(0, false));
	cr_assert(hipEnableActivityCallback(1, false));
	int before = atomic_load(&nrecords);
	cr_assert_eq(hipModuleLaunchKernel(add_one, N / 256, 1, 1, 256, 1, 1, 0, s, args, NULL),
		     hipSuccess);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	usleep(50000);
	cr_assert_eq(atomic_load(&nrecords), before);
	cr_assert_eq(hipFree(d), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
}
