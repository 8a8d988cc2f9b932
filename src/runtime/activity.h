/* hipkfd: the activity hook, through which the launch path and the copy engine tell a recorder in
 * a layer above (src/trace: the timeline trace, roctracer-era activity callbacks) about the work
 * they hand to the GPU or do on the CPU.
 *
 * hip_activity_hook is NULL unless something records: then the only cost on the launch and copy
 * paths is one load and a branch not taken. The recorder installs its table when it starts
 * recording (HIPKFD_TRACE, hipProfilerStart, hipEnableActivityCallback) and clears it when it
 * stops; a call that loaded the table just before it was cleared may still report one piece of
 * work, which the recorder must accept (it keeps the table's functions valid for good). */
#ifndef HIPKFD_RUNTIME_ACTIVITY_H
#define HIPKFD_RUNTIME_ACTIVITY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct aql_dispatch;
struct hip_device;
struct hip_fence;
struct hip_stream;

enum hip_activity_engine {
	HIP_ACTIVITY_ENGINE_CPU,  /* memmove / memset by the calling (or callback) thread */
	HIP_ACTIVITY_ENGINE_SDMA, /* the device's SDMA queue */
};

/* A copy or fill, reported once its engine part was issued. */
struct hip_activity_transfer {
	bool fill;                 /* a hipMemset*: src is NULL */
	enum hip_activity_engine engine;
	struct hip_device *device; /* the device whose engine did it (the stream's for the CPU) */
	const struct hip_stream *stream; /* the stream it is ordered on */
	const void *dst, *src;
	bool dst_device, src_device; /* the side lies in device memory (VRAM): the direction */
	size_t bytes;
	uint64_t begin_ns;         /* CLOCK_MONOTONIC when the engine part started */
	uint64_t end_ns;           /* CLOCK_MONOTONIC when it finished; 0 when `fence` tells */
	struct hip_fence *fence;   /* SDMA: completes when the transfer has (the recorder takes its
				    * own reference); NULL when the work was done at end_ns */
};

struct hip_activity_ops {
	/* A kernel is about to be published on [in] s as [in] d (kernel [in] name): returns the GPU
	 * VA of a completion signal for the packet (whose start/end timestamps the CP writes), or 0
	 * for none. Called with the stream's lock held between hip_stream_dispatch_reserve and
	 * commit: it must not wait for the GPU or fail the launch. */
	uint64_t (*kernel)(struct hip_stream *s, const struct aql_dispatch *d, const char *name);
	/* A copy or fill (see struct hip_activity_transfer). */
	void (*transfer)(const struct hip_activity_transfer *t);
};

extern const struct hip_activity_ops *_Atomic hip_activity_hook;

static inline const struct hip_activity_ops *hip_activity(void)
{
	return atomic_load_explicit(&hip_activity_hook, memory_order_acquire);
}

/* CLOCK_MONOTONIC in ns: the time base of every host timestamp the recorders see. */
uint64_t hip_activity_now(void);

#endif
