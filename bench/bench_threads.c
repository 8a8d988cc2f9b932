/* bench_threads: what launches and allocations cost when several host threads make them at once.
 *   threads.T.own_stream.enqueue     T threads, each launching on its own stream: the cost of one
 *                                    launch as each thread sees it (median over threads and batches)
 *   threads.T.own_stream.total       the same launches per second, all threads together
 *   threads.T.shared_stream.enqueue  T threads launching on one stream
 *   threads.T.malloc_free            T threads, each a 4 KiB hipMalloc + hipFree pair
 * for T = 1, 2, 4, 8. Each thread works in batches of BATCH between barriers; a batch of launches
 * ends with a synchronize outside the clock, as in bench_launch. */
#include "bench.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { BATCH = 256, MAX_THREADS = 8 };

enum work { LAUNCH_OWN, LAUNCH_SHARED, MALLOC_FREE };

struct team {
  struct bench_hip *h;
  const void *stub;
  enum work work;
  int threads;
  size_t batches;
  hipStream_t shared;
  pthread_barrier_t start, done;
  double ns_per_op[MAX_THREADS * 4096]; /* [thread * batches + batch] */
  double wall_ns[4096];                 /* per batch, slowest thread's start to last finish */
};

struct worker {
  struct team *t;
  int id;
};

static hipError_t launch(struct team *t, hipStream_t s) {
  return t->h->LaunchKernel(t->stub, (dim3){1, 1, 1}, (dim3){64, 1, 1}, NULL, 0, s);
}

static void batch(struct team *t, hipStream_t s) {
  struct bench_hip *h = t->h;
  if (t->work == MALLOC_FREE) {
    for (int j = 0; j < BATCH; j++) {
      void *p;
      BENCH_CHECK(h, h->Malloc(&p, 4096));
      BENCH_CHECK(h, h->Free(p));
    }
    return;
  }
  for (int j = 0; j < BATCH; j++)
    BENCH_CHECK(h, launch(t, s));
}

static void *worker_main(void *arg) {
  struct worker *w = arg;
  struct team *t = w->t;
  struct bench_hip *h = t->h;
  hipStream_t s = t->shared;
  BENCH_CHECK(h, h->SetDevice(0));
  if (t->work == LAUNCH_OWN)
    BENCH_CHECK(h, h->StreamCreate(&s));
  if (t->work != MALLOC_FREE) { /* warm up: the stream's queue exists before the clock runs */
    BENCH_CHECK(h, launch(t, s));
    BENCH_CHECK(h, h->StreamSynchronize(s));
  }
  for (size_t b = 0; b < t->batches; b++) {
    pthread_barrier_wait(&t->start);
    uint64_t t0 = bench_now_ns();
    batch(t, s);
    t->ns_per_op[(size_t)w->id * t->batches + b] = (double)(bench_now_ns() - t0) / BATCH;
    pthread_barrier_wait(&t->done);
    if (t->work == LAUNCH_OWN || (t->work == LAUNCH_SHARED && w->id == 0))
      BENCH_CHECK(h, h->StreamSynchronize(s));
    pthread_barrier_wait(&t->done);
  }
  if (t->work == LAUNCH_OWN)
    BENCH_CHECK(h, h->StreamDestroy(s));
  return NULL;
}

/* Runs one team; the main thread times each batch from the start barrier to the done barrier. */
static void run_team(struct team *t) {
  pthread_t tid[MAX_THREADS];
  struct worker w[MAX_THREADS];
  pthread_barrier_init(&t->start, NULL, (unsigned)t->threads + 1);
  pthread_barrier_init(&t->done, NULL, (unsigned)t->threads + 1);
  for (int i = 0; i < t->threads; i++) {
    w[i] = (struct worker){t, i};
    if (pthread_create(&tid[i], NULL, worker_main, &w[i])) {
      perror("bench_threads");
      exit(1);
    }
  }
  for (size_t b = 0; b < t->batches; b++) {
    pthread_barrier_wait(&t->start);
    uint64_t t0 = bench_now_ns();
    pthread_barrier_wait(&t->done);
    t->wall_ns[b] = (double)(bench_now_ns() - t0);
    pthread_barrier_wait(&t->done);
  }
  for (int i = 0; i < t->threads; i++)
    pthread_join(tid[i], NULL);
  pthread_barrier_destroy(&t->start);
  pthread_barrier_destroy(&t->done);
}

static void report_team(struct team *t, const char *what) {
  struct bench_samples per = {0}, total = {0};
  char name[96];
  for (size_t i = 0; i < (size_t)t->threads * t->batches; i++)
    bench_samples_add(&per, t->ns_per_op[i]);
  for (size_t b = 0; b < t->batches; b++) /* operations per microsecond, all threads */
    bench_samples_add(&total, (double)t->threads * BATCH / (t->wall_ns[b] / 1000.0));
  snprintf(name, sizeof(name), "threads.%d.%s", t->threads, what);
  bench_report(name, &per, "ns");
  snprintf(name, sizeof(name), "threads.%d.%s.total", t->threads, what);
  bench_report(name, &total, "ops/us");
}

int main(void) {
  struct bench_hip h;
  bench_hip_open(&h);
  size_t batches = bench_iters(64);
  if (batches > 4096)
    batches = 4096;
  BENCH_CHECK(&h, h.Init(0));
  BENCH_CHECK(&h, h.SetDevice(0));
  struct team *t = calloc(1, sizeof(*t));
  if (!t) {
    perror("bench_threads");
    return 1;
  }
  t->h = &h;
  t->stub = bench_register_empty_kernel(&h);
  t->batches = batches;
  BENCH_CHECK(&h, h.StreamCreate(&t->shared));
  bench_table_header("threads");
  static const struct {
    enum work work;
    const char *name;
  } kinds[] = {{LAUNCH_OWN, "own_stream.enqueue"},
               {LAUNCH_SHARED, "shared_stream.enqueue"},
               {MALLOC_FREE, "malloc_free_4k"}};
  for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
    for (int n = 1; n <= MAX_THREADS; n *= 2) {
      t->work = kinds[k].work;
      t->threads = n;
      run_team(t);
      report_team(t, kinds[k].name);
    }
  }
  BENCH_CHECK(&h, h.StreamDestroy(t->shared));
  free(t);
  return 0;
}
