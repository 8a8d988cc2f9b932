/* Host callbacks in stream order (hipStreamAddCallback, hipLaunchHostFunc).
 *
 * Each stream that gets a callback owns one worker thread. Enqueueing a callback takes the stream's
 * current dependencies (its tail, legacy null-stream work, pending waits) and gives the stream a new
 * tail: a host fence the worker completes after the callback returns, so later GPU work (a barrier
 * packet on that fence) and later host work wait for the callback. The enqueuing thread never
 * waits, so a callback may enqueue work on other streams without deadlock. As in CUDA, a callback
 * must not wait for work queued after it on its own stream (that work waits for the callback).
 */
#include <errno.h>
#include <stdlib.h>

#include "capture.h"
#include "error.h"
#include "internal.h"

struct callback_item {
	struct callback_item *next;
	hipStreamCallback_t callback; /* hipStreamAddCallback form, or NULL */
	void (*host_fn)(void *);      /* hipLaunchHostFunc form, or NULL */
	void *user_data;
	hipStream_t handle;           /* passed back to the callback as the user named the stream */
	struct hip_stream_deps deps;
	struct hip_fence *done;
};

struct hip_stream_callbacks {
	pthread_t thread;
	pthread_mutex_t lock;       /* protects the list and `stop` */
	pthread_cond_t cond;
	struct callback_item *head, *last;
	bool stop;
	bool orphaned;              /* stopped from its own thread: the worker frees itself */
	struct hip_stream *stream;  /* valid while not orphaned */
};

static void run_item(struct hip_stream *s, struct callback_item *it)
{
	int err = hip_deps_wait(&it->deps, hip_device_blocking(s->device));
	if (!err)
		err = hip_stream_error(s);
	hip_callback_fence = it->done;
	if (it->callback)
		it->callback(it->handle, err ? hip_gpu_error(err) : hipSuccess, it->user_data);
	else
		it->host_fn(it->user_data);
	hip_callback_fence = NULL;
	hip_fence_signal(it->done);
	for (int i = 0; i < it->deps.n; i++)
		hip_fence_put(it->deps.f[i]);
	hip_fence_put(it->deps.own);
	hip_fence_put(it->done);
	free(it);
}

/* Drop items that will never run (the stream was destroyed from inside a callback): complete
 * their fences so nobody waits for them forever. cb->lock held. */
static void drop_pending(struct hip_stream_callbacks *cb)
{
	while (cb->head) {
		struct callback_item *it = cb->head;
		cb->head = it->next;
		hip_fence_signal(it->done);
		for (int i = 0; i < it->deps.n; i++)
			hip_fence_put(it->deps.f[i]);
		hip_fence_put(it->deps.own);
		hip_fence_put(it->done);
		free(it);
	}
	cb->last = NULL;
}

static void *callback_worker(void *arg)
{
	struct hip_stream_callbacks *cb = arg;

	pthread_mutex_lock(&cb->lock);
	for (;;) {
		while (!cb->head && !cb->stop)
			pthread_cond_wait(&cb->cond, &cb->lock);
		if (cb->orphaned) {
			/* Destroyed by one of our own callbacks: the stream is gone, we own cb. */
			drop_pending(cb);
			break;
		}
		struct callback_item *it = cb->head;
		if (!it)
			break; /* stop requested and nothing left */
		cb->head = it->next;
		if (!cb->head)
			cb->last = NULL;
		pthread_mutex_unlock(&cb->lock);
		run_item(cb->stream, it);
		pthread_mutex_lock(&cb->lock);
	}
	bool orphaned = cb->orphaned;
	pthread_mutex_unlock(&cb->lock);
	if (orphaned) {
		pthread_cond_destroy(&cb->cond);
		pthread_mutex_destroy(&cb->lock);
		free(cb);
	}
	return NULL;
}

/* The stream's worker, started on first use. s->lock held. */
static struct hip_stream_callbacks *callbacks_of(struct hip_stream *s)
{
	if (s->callbacks)
		return s->callbacks;
	struct hip_stream_callbacks *cb = calloc(1, sizeof(*cb));
	if (!cb)
		return NULL;
	pthread_mutex_init(&cb->lock, NULL);
	pthread_cond_init(&cb->cond, NULL);
	cb->stream = s;
	s->callbacks = cb;
	if (pthread_create(&cb->thread, NULL, callback_worker, cb) != 0) {
		s->callbacks = NULL;
		pthread_cond_destroy(&cb->cond);
		pthread_mutex_destroy(&cb->lock);
		free(cb);
		return NULL;
	}
	return cb;
}

void hip_stream_callbacks_stop(struct hip_stream *s)
{
	struct hip_stream_callbacks *cb = s->callbacks;
	if (!cb)
		return;
	s->callbacks = NULL;
	pthread_mutex_lock(&cb->lock);
	cb->stop = true;
	if (pthread_equal(cb->thread, pthread_self())) {
		/* hipStreamDestroy called by one of this stream's callbacks: the worker cannot join
		 * itself; it finishes the current callback, then frees cb and exits. */
		cb->orphaned = true;
		cb->stream = NULL;
		pthread_detach(cb->thread);
		pthread_mutex_unlock(&cb->lock);
		return;
	}
	pthread_cond_signal(&cb->cond);
	pthread_mutex_unlock(&cb->lock);
	pthread_join(cb->thread, NULL);
	pthread_cond_destroy(&cb->cond);
	pthread_mutex_destroy(&cb->lock);
	free(cb);
}

static hipError_t enqueue_callback(hipStream_t handle, hipStreamCallback_t callback,
				   void (*host_fn)(void *), void *user_data)
{
	hipError_t herr;
	struct hip_stream *s = hip_stream_from_api_live(handle, &herr);
	if (!s)
		return herr;

	struct callback_item *it = calloc(1, sizeof(*it));
	if (!it)
		return hipErrorOutOfMemory;
	it->callback = callback;
	it->host_fn = host_fn;
	it->user_data = user_data;
	it->handle = handle;

	struct hip_stream_deps deps;
	hip_stream_begin(s, &deps);
	struct hip_stream_callbacks *cb = callbacks_of(s);
	struct hip_fence *done = NULL;
	int err = cb ? hip_fence_create(s->device, &done) : -ENOMEM;
	if (err) {
		hip_stream_abort(s, &deps);
		free(it);
		return hip_error_from_errno(err);
	}
	/* The item takes over the dependency references; the stream's tail becomes `done`. */
	it->deps = deps;
	deps.n = 0;
	deps.own = NULL;
	it->done = hip_fence_get(done);

	pthread_mutex_lock(&cb->lock);
	if (cb->last)
		cb->last->next = it;
	else
		cb->head = it;
	cb->last = it;
	pthread_cond_signal(&cb->cond);
	pthread_mutex_unlock(&cb->lock);

	hip_stream_end(s, &deps, done, false);
	return hipSuccess;
}

hipError_t hipStreamAddCallback(hipStream_t stream, hipStreamCallback_t callback, void *userData,
				unsigned int flags)
{
	/* flags is reserved and must be 0 (HIP and CUDA documentation). */
	if (!callback || flags != 0)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN(enqueue_callback(stream, callback, NULL, userData));
}

hipError_t hipStreamAddCallback_spt(hipStream_t stream, hipStreamCallback_t callback,
				    void *userData, unsigned int flags)
{
	if (stream == NULL)
		stream = hipStreamPerThread;
	return hipStreamAddCallback(stream, callback, userData, flags);
}

hipError_t hipLaunchHostFunc(hipStream_t stream, hipHostFn_t fn, void *userData)
{
	if (!fn)
		HIP_RETURN(hipErrorInvalidValue);
	if (hip_capture_active(stream))
		HIP_RETURN(hip_capture_host_func(stream, fn, userData));
	HIP_RETURN(enqueue_callback(stream, NULL, fn, userData));
}

hipError_t hipLaunchHostFunc_spt(hipStream_t stream, hipHostFn_t fn, void *userData)
{
	if (stream == NULL)
		stream = hipStreamPerThread;
	return hipLaunchHostFunc(stream, fn, userData);
}
