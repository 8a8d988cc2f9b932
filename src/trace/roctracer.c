/* hipkfd: the roctracer-era profiling interface of ROCm 5.x, as libroctracer drives it.
 *
 * API domain (ACTIVITY_DOMAIN_HIP_API), per callback id (clr's hip_api_id_t numbering, the one
 * hipApiName answers):
 *   hipRegisterApiCallback(id, fun, arg): fun(domain, id, data, arg) runs when a call of that API
 *     enters (data->phase 0) and when it exits (phase 1); data starts as hip_api_data_t does
 *     (correlation_id, phase, then the argument union, which hipkfd leaves zeroed);
 *   hipRegisterActivityCallback(id, act, arg): act(id, NULL, NULL, NULL) runs at entry and returns
 *     the hip_api_data_t the API callback then gets (the tool's own record, as rocclr does), and
 *     act(id, NULL, NULL, arg) at exit;
 *   hipRemoveApiCallback / hipRemoveActivityCallback(id): stop them.
 * Operations domain (ACTIVITY_DOMAIN_HIP_OPS):
 *   hipInitActivityCallback(id_cb, op_cb, arg): id_cb(record id) runs on the issuing thread when a
 *     kernel, copy or fill is issued (a tool maps it to the API call it is in); op_cb(op, record,
 *     arg) runs once it finished, with an activity_record_t (kind: the command kind hipGetCmdName
 *     names; begin/end ns; device; queue: the stream's track number; bytes, or the kernel's name);
 *   hipEnableActivityCallback(op, on): op 0 dispatches, 1 copies and fills, 2 barriers (hipkfd
 *     reports none).
 * The API callbacks observe calls through runtime/observe.h (kind HIP_OBSERVE_CALLBACK), the
 * operations through the activity recorder (activity.c). Registration takes effect for calls
 * that start after it; a call in flight when its callback is removed may still make its exit
 * call (rocclr waits for such calls; hipkfd does not). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <hip/amd_detail/hip_runtime_prof.h>
#include <hip/hip_runtime_api.h>

#include "../api/api_names.h"
#include "../runtime/error.h"
#include "../runtime/observe.h"
#include "trace.h"

/* roctracer prof_protocol.h: domains, phases, operations. */
#define DOMAIN_HIP_OPS 2u
#define DOMAIN_HIP_API 3u
#define PHASE_ENTER 0u
#define PHASE_EXIT 1u
#define OP_DISPATCH 0u
#define OP_COPY 1u
#define OP_NUMBER 3u

/* rocclr command kinds (OpenCL cl_command_type), as hipGetCmdName names them. */
#define KIND_KERNEL 0x11F0u
#define KIND_COPY_D2H 0x11F3u
#define KIND_COPY_H2D 0x11F4u
#define KIND_COPY_D2D 0x11F5u
#define KIND_FILL 0x1207u

typedef void (*api_callback_fn)(uint32_t domain, uint32_t cid, const void *data, void *arg);
typedef void *(*api_activity_fn)(uint32_t cid, void *record, const void *data, void *arg);
typedef void (*id_callback_fn)(uint64_t id);
typedef void (*op_callback_fn)(uint32_t op, void *record, void *arg);

/* The head of hip_api_data_t (hip_prof_str.h): what a tool reads of every call. The argument
 * union that follows is per API there; hipkfd leaves it zeroed, sized to cover ROCm 5.2's (832
 * bytes in all) and later releases'. */
struct api_data {
	uint64_t correlation_id;
	uint32_t phase;
	uint8_t args[2048 - 16];
};

/* activity_record_t (prof_protocol.h, ROCm 5.3+ layout: bytes shares its slot with kernel_name). */
struct activity_record {
	uint32_t domain;
	uint32_t kind;
	uint32_t op;
	uint64_t correlation_id;
	uint64_t begin_ns;
	uint64_t end_ns;
	int device_id;
	uint64_t queue_id;
	union {
		size_t bytes;
		const char *kernel_name;
	};
};
_Static_assert(sizeof(struct activity_record) == 64, "activity_record_t is 64 bytes");

/* ---- API callbacks ---------------------------------------------------------------------------- */

#define MAX_CID 1024 /* above hip_api_callback_id_last() */

struct api_entry {
	_Atomic(api_callback_fn) fun;
	void *_Atomic arg;
	_Atomic(api_activity_fn) act;
	void *_Atomic act_arg;
};

static struct api_entry api_table[MAX_CID];
static pthread_mutex_t api_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned api_used; /* entries with fun or act; api_lock */

/* A call being observed on this thread (calls nest: an entry point may call another). */
#define MAX_DEPTH 8
struct api_frame {
	uint64_t correlation;
	uint32_t cid;
	api_callback_fn fun;
	void *arg;
	api_activity_fn act;
	void *act_arg;
	struct api_data *data;
	struct api_data own;
};
struct api_stack {
	int depth;
	struct api_frame f[MAX_DEPTH];
};
static HIP_TLS struct api_stack *stack; /* made on the thread's first observed call */

/* Our table position -> callback id, + 1 (0: not looked up yet). */
#define CID_CACHE 4096
static _Atomic uint16_t cid_cache[CID_CACHE];

static uint32_t callback_id(const struct hip_api_call *call)
{
	if (call->id < CID_CACHE) {
		uint16_t v = atomic_load_explicit(&cid_cache[call->id], memory_order_relaxed);
		if (v)
			return v - 1u;
	}
	uint32_t cid = hip_api_callback_id(call->name);
	if (cid >= MAX_CID)
		cid = 0;
	if (call->id < CID_CACHE)
		atomic_store_explicit(&cid_cache[call->id], (uint16_t)(cid + 1), memory_order_relaxed);
	return cid;
}

static void api_begin(struct hip_api_call *call)
{
	uint32_t cid = callback_id(call);
	if (!cid)
		return;
	struct api_entry *e = &api_table[cid];
	api_callback_fn fun = atomic_load_explicit(&e->fun, memory_order_acquire);
	api_activity_fn act = atomic_load_explicit(&e->act, memory_order_acquire);
	if (!fun && !act)
		return;
	if (!stack && !(stack = calloc(1, sizeof(*stack))))
		return;
	if (stack->depth >= MAX_DEPTH)
		return;
	struct api_frame *f = &stack->f[stack->depth++];
	f->correlation = call->correlation_id;
	f->cid = cid;
	f->fun = fun;
	f->arg = atomic_load_explicit(&e->arg, memory_order_acquire);
	f->act = act;
	f->act_arg = atomic_load_explicit(&e->act_arg, memory_order_acquire);
	f->data = act ? act(cid, NULL, NULL, NULL) : NULL;
	if (!f->data) {
		f->data = &f->own;
		f->own.correlation_id = call->correlation_id;
	}
	f->data->phase = PHASE_ENTER;
	if (fun)
		fun(DOMAIN_HIP_API, cid, f->data, f->arg);
}

static void api_end(struct hip_api_call *call)
{
	if (!stack || !stack->depth ||
	    stack->f[stack->depth - 1].correlation != call->correlation_id)
		return;
	struct api_frame *f = &stack->f[--stack->depth];
	f->data->phase = PHASE_EXIT;
	if (f->fun)
		f->fun(DOMAIN_HIP_API, f->cid, f->data, f->arg);
	if (f->act)
		f->act(f->cid, NULL, NULL, f->act_arg);
}

static const struct hip_api_observer callback_observer = {.begin = api_begin, .end = api_end};

/* Store one half of entry [in] id (api_lock held) and keep the observer's bit in step with
 * whether any entry is set. */
static void api_set(uint32_t id, bool activity, void *fun, void *arg)
{
	struct api_entry *e = &api_table[id];
	bool was = atomic_load_explicit(&e->fun, memory_order_relaxed) ||
		   atomic_load_explicit(&e->act, memory_order_relaxed);
	/* The argument before the function: a call that sees the function sees its argument. */
	if (activity) {
		atomic_store_explicit(&e->act_arg, arg, memory_order_release);
		atomic_store_explicit(&e->act, (api_activity_fn)(uintptr_t)fun, memory_order_release);
	} else {
		atomic_store_explicit(&e->arg, arg, memory_order_release);
		atomic_store_explicit(&e->fun, (api_callback_fn)(uintptr_t)fun, memory_order_release);
	}
	bool is = atomic_load_explicit(&e->fun, memory_order_relaxed) ||
		  atomic_load_explicit(&e->act, memory_order_relaxed);
	api_used = api_used + is - was;
	if (api_used)
		hip_observe_register(HIP_OBSERVE_CALLBACK, &callback_observer);
	hip_observe_enable(HIP_OBSERVE_CALLBACK, api_used != 0);
}

/* clr: an id outside HIP_API_ID_FIRST..HIP_API_ID_LAST is hipErrorInvalidValue. These calls do
 * not touch the thread's last error (clr returns without it). */
static hipError_t api_register(uint32_t id, bool activity, void *fun, void *arg)
{
	if (id < 1 || id > hip_api_callback_id_last() || id >= MAX_CID)
		return hipErrorInvalidValue;
	pthread_mutex_lock(&api_lock);
	api_set(id, activity, fun, arg);
	pthread_mutex_unlock(&api_lock);
	return hipSuccess;
}

hipError_t hipRegisterApiCallback(uint32_t id, void *fun, void *arg)
{
	return api_register(id, false, fun, arg);
}

hipError_t hipRemoveApiCallback(uint32_t id)
{
	return api_register(id, false, NULL, NULL);
}

hipError_t hipRegisterActivityCallback(uint32_t id, void *fun, void *arg)
{
	return api_register(id, true, fun, arg);
}

hipError_t hipRemoveActivityCallback(uint32_t id)
{
	return api_register(id, true, NULL, NULL);
}

/* ---- operations ------------------------------------------------------------------------------- */

static _Atomic(id_callback_fn) id_callback;
static _Atomic(op_callback_fn) op_callback;
static void *_Atomic op_arg;
static _Atomic bool op_enabled[OP_NUMBER];
static _Atomic uint64_t next_record_id = 1;
static pthread_mutex_t op_lock = PTHREAD_MUTEX_INITIALIZER;

/* The activity recorder runs for us while an operation callback exists and an operation it can
 * report (dispatch or copy) is enabled. op_lock held. */
static void ops_update(void)
{
	bool on = atomic_load_explicit(&op_callback, memory_order_relaxed) &&
		  (atomic_load_explicit(&op_enabled[OP_DISPATCH], memory_order_relaxed) ||
		   atomic_load_explicit(&op_enabled[OP_COPY], memory_order_relaxed));
	trace_activity_consumer(TRACE_CONSUMER_CALLBACK, on);
}

void hipInitActivityCallback(void *id_cb, void *op_cb, void *arg)
{
	pthread_mutex_lock(&op_lock);
	atomic_store_explicit(&op_arg, arg, memory_order_release);
	atomic_store_explicit(&id_callback, (id_callback_fn)(uintptr_t)id_cb, memory_order_release);
	atomic_store_explicit(&op_callback, (op_callback_fn)(uintptr_t)op_cb, memory_order_release);
	ops_update();
	pthread_mutex_unlock(&op_lock);
}

bool hipEnableActivityCallback(uint32_t op, bool enable)
{
	if (op >= OP_NUMBER)
		return false;
	pthread_mutex_lock(&op_lock);
	atomic_store_explicit(&op_enabled[op], enable, memory_order_release);
	ops_update();
	pthread_mutex_unlock(&op_lock);
	return true;
}

static uint32_t op_of(enum trace_kind kind)
{
	return kind == TRACE_KERNEL ? OP_DISPATCH : OP_COPY;
}

uint64_t trace_callback_issue(enum trace_kind kind)
{
	if (!atomic_load_explicit(&op_enabled[op_of(kind)], memory_order_acquire) ||
	    !atomic_load_explicit(&op_callback, memory_order_acquire))
		return 0;
	uint64_t id = atomic_fetch_add_explicit(&next_record_id, 1, memory_order_relaxed);
	id_callback_fn idf = atomic_load_explicit(&id_callback, memory_order_acquire);
	if (idf)
		idf(id);
	return id;
}

static uint32_t kind_of(const struct trace_work *w)
{
	if (w->kind == TRACE_KERNEL)
		return KIND_KERNEL;
	if (w->kind == TRACE_FILL)
		return KIND_FILL;
	const struct hip_activity_transfer *t = w->transfer;
	if (t->src_device && !t->dst_device)
		return KIND_COPY_D2H;
	if (!t->src_device && t->dst_device)
		return KIND_COPY_H2D;
	return KIND_COPY_D2D; /* device to device, and host to host (rocclr has no kind for it) */
}

void trace_callback_work(const struct trace_work *w)
{
	op_callback_fn fn = atomic_load_explicit(&op_callback, memory_order_acquire);
	if (!w->record_id || !fn)
		return;
	struct activity_record r = {
		.domain = DOMAIN_HIP_OPS,
		.kind = kind_of(w),
		.op = op_of(w->kind),
		.correlation_id = w->record_id,
		.begin_ns = w->begin_ns,
		.end_ns = w->end_ns,
		.device_id = w->device,
		.queue_id = w->track,
	};
	if (w->kind == TRACE_KERNEL)
		r.kernel_name = w->name;
	else
		r.bytes = w->transfer->bytes;
	fn(r.op, &r, atomic_load_explicit(&op_arg, memory_order_acquire));
}
