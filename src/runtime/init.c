/* Runtime initialisation: topology, visible devices, log level. The only place in the runtime that
 * reads the environment (STYLE.md habit 7): HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES, the log
 * (AMD_LOG_LEVEL with HIPKFD_LOG as an alias, AMD_LOG_MASK, AMD_LOG_LEVEL_FILE), serialization
 * (AMD_SERIALIZE_KERNEL, AMD_SERIALIZE_COPY, HIP_LAUNCH_BLOCKING, CUDA_LAUNCH_BLOCKING).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kfd/kfd.h"
#include "error.h"
#include "internal.h"
#include "observe.h"

bool hip_host_coherent_default;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_result = -ENODEV;

/* Set in a child after fork(): the parent's GPU state (queues, signals, mappings) is not usable
 * there (amdkfd does not copy GPU mappings into the child), so every API call fails cleanly with
 * hipErrorNotInitialized instead of touching it, as CUDA answers in a forked child. */
_Atomic bool hip_forked;

static void on_fork_child(void)
{
	atomic_store_explicit(&hip_forked, true, memory_order_relaxed);
}

/* Where the log goes: AMD_LOG_LEVEL_FILE when it could be opened, else stderr. */
static FILE *log_file;

bool hip_log_to_file(void)
{
	return log_file != NULL;
}

void hip_log(int level, const char *fmt, ...)
{
	if (level > hip_log_level)
		return;
	FILE *out = log_file ? log_file : stderr;
	va_list ap;
	va_start(ap, fmt);
	flockfile(out);
	fputs("hipkfd: ", out);
	vfprintf(out, fmt, ap);
	fputc('\n', out);
	funlockfile(out);
	va_end(ap);
	fflush(out);
}

/* AMD_LOG_LEVEL (clr's levels: 0 none, 1 errors, 2 warnings, 3 info incl. every API call,
 * 4 debug) wins over hipkfd's older HIPKFD_LOG alias; AMD_LOG_MASK selects kinds (clr's LogMask:
 * 0x1 is the API-call log). AMD_LOG_LEVEL_FILE appends the log to a file instead of stderr; a file
 * that cannot be opened leaves the log on stderr and says so. */
static void log_settings(void)
{
	const char *level = getenv("AMD_LOG_LEVEL");
	if (!level || !*level)
		level = getenv("HIPKFD_LOG");
	if (level && *level)
		hip_log_level = atoi(level);
	const char *mask = getenv("AMD_LOG_MASK");
	if (mask && *mask)
		hip_log_mask = (unsigned)strtoul(mask, NULL, 0);
	const char *path = getenv("AMD_LOG_LEVEL_FILE");
	if (path && *path && hip_log_level > 0 && !log_file) {
		log_file = fopen(path, "ae");
		if (!log_file)
			hip_log(1, "AMD_LOG_LEVEL_FILE %s: %s; logging to stderr", path, strerror(errno));
	}
	hip_observe_log_update();
}

static int env_int(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? atoi(v) : 0;
}

/* AMD_SERIALIZE_KERNEL / AMD_SERIALIZE_COPY (clr's flags: 1 wait before the launch or copy, 2
 * after, 3 both) and HIP_LAUNCH_BLOCKING / CUDA_LAUNCH_BLOCKING (1: launches and asynchronous
 * copies return once done, i.e. "after"). The gate does the waits (observe.h). */
static void serialize_settings(void)
{
	int blocking = env_int("HIP_LAUNCH_BLOCKING") == 1 || env_int("CUDA_LAUNCH_BLOCKING") == 1;
	hip_serialize_kernel = (env_int("AMD_SERIALIZE_KERNEL") & 3) | (blocking ? 2 : 0);
	hip_serialize_copy = (env_int("AMD_SERIALIZE_COPY") & 3) | (blocking ? 2 : 0);
	hip_observe_enable((enum hip_observer_kind)HIP_GATE_SERIAL,
			   hip_serialize_kernel || hip_serialize_copy);
}

/* When the library is loaded, not at the first device call: the API log must see every call,
 * hipInit and hipGetDeviceCount included. */
__attribute__((constructor)) static void settings_at_load(void)
{
	log_settings();
	serialize_settings();
}

/* Parse a device list such as "1,0,3". As CUDA and ROCr do, the list ends at the first entry
 * that is not a valid index (out of range, repeated or not a number); what precedes it stays.
 * Returns the number of entries kept. */
static int parse_visible(const char *list, int limit, int *out, int max_out)
{
	int n = 0;
	const char *p = list;

	while (*p && n < max_out) {
		char *end;
		while (*p == ' ')
			p++;
		long v = strtol(p, &end, 10);
		if (end == p || v < 0 || v >= limit)
			break;
		for (int i = 0; i < n; i++)
			if (out[i] == v)
				return n;
		out[n++] = (int)v;
		while (*end == ' ')
			end++;
		if (*end != ',')
			break;
		p = end + 1;
	}
	return n;
}

/* ROCR_VISIBLE_DEVICES selects among the GPU nodes first; HIP_VISIBLE_DEVICES then indexes the
 * devices ROCr left visible (AMD's documented order of application). */
static void apply_visible_devices(void)
{
	const char *rocr = getenv("ROCR_VISIBLE_DEVICES");
	const char *hip = getenv("HIP_VISIBLE_DEVICES");
	if (!hip)
		hip = getenv("CUDA_VISIBLE_DEVICES");
	if (!rocr && !hip)
		return;

	int total = kfd_gpu_count();
	if (total <= 0)
		return;
	int *phys = calloc((size_t)total, sizeof(int));
	int *sel = calloc((size_t)total, sizeof(int));
	if (!phys || !sel)
		goto out;

	int n = total;
	for (int i = 0; i < total; i++)
		phys[i] = i;
	if (rocr)
		n = parse_visible(rocr, total, phys, total);
	if (hip) {
		int m = parse_visible(hip, n, sel, n);
		for (int i = 0; i < m; i++)
			sel[i] = phys[sel[i]];
		memcpy(phys, sel, (size_t)m * sizeof(int));
		n = m;
	}
	kfd_topology_set_visible(phys, n);
	hip_log(2, "%d of %d GPUs visible", n, total);
out:
	free(phys);
	free(sel);
}

/* HSA_XNACK=1 or 0 turns recoverable GPU page faults on or off for the process before it has any
 * queue, as ROCr does at start-up (its flag HSA_XNACK, then hsaKmtSetXNACKMode): with XNACK on,
 * kernels reach any system memory (malloc, aligned_alloc) through the SVM ranges amdkfd makes
 * accessible to every GPU. Unset: the driver's default stays. */
static void xnack_setting(void)
{
	const char *v = getenv("HSA_XNACK");
	if (!v || (strcmp(v, "0") != 0 && strcmp(v, "1") != 0))
		return;
	int err = kfd_set_xnack_mode(v[0] == '1');
	if (err)
		hip_log(1, "HSA_XNACK=%s: the driver refused: %s", v, strerror(-err));
}

/* Set (release) once runtime_init_once has run: later calls skip pthread_once. */
static _Atomic bool init_done;

static void runtime_init_body(void)
{
	pthread_atfork(NULL, NULL, on_fork_child);
	/* Again at the first device call, for a program that sets the variables itself before
	 * it (the settings then apply from that call on). */
	log_settings();
	serialize_settings();
	const char *coherent = getenv("HIP_HOST_COHERENT");
	hip_host_coherent_default = coherent && atoi(coherent) == 1;

	int err = kfd_open();
	if (err == 0)
		err = kfd_topology_load();
	if (err) {
		hip_log(1, "no KFD device: %s", strerror(-err));
		init_result = -ENODEV;
		return;
	}
	xnack_setting();
	apply_visible_devices();
	init_result = kfd_gpu_count() > 0 ? 0 : -ENODEV;
	if (init_result == 0)
		init_result = hip_devices_create();
}

static void runtime_init_once(void)
{
	runtime_init_body();
	atomic_store_explicit(&init_done, true, memory_order_release);
}

int hip_runtime_init(void)
{
	if (!atomic_load_explicit(&init_done, memory_order_acquire))
		pthread_once(&init_once, runtime_init_once);
	if (atomic_load_explicit(&hip_forked, memory_order_relaxed))
		return -ECHILD;
	return init_result;
}

hipError_t hip_init_error(void)
{
	int err = hip_runtime_init();
	if (err == 0)
		return hipSuccess;
	if (err == -ECHILD)
		return hipErrorNotInitialized;
	return err == -ENODEV ? hipErrorNoDevice : hip_error_from_errno(err);
}
