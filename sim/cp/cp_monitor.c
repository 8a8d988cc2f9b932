/* kfdsim observing itself: per-kernel statistics, a live progress line and a watchdog.
 *
 *   KFDSIM_STATS=1 | FILE   at process exit, one line per kernel (launches, waves, wave
 *                           instructions, time) and the totals, on stderr or appended to FILE
 *                           ("%p" in FILE becomes the process id)
 *   KFDSIM_PROGRESS=1       a live line on stderr for a dispatch running longer than a second
 *   KFDSIM_TIMEOUT=SECONDS  a dispatch running longer is stopped and reported as a GPU hang
 *
 * The launcher sets them from --stats, --progress and --timeout; programs started by other
 * launchers (MPI, CTest) set them directly. With all three unset a dispatch pays one load of
 * cp_monitor_flags.
 *
 * The queue workers register each kernel dispatch while the interpreter runs it (a struct
 * cp_run on the worker's stack). With --progress or --timeout one monitor thread looks at the
 * dispatches in flight four times a second while there are any, and sleeps without a timeout
 * once none has run for a second: an idle process pays nothing.
 *
 * The watchdog asks the interpreter to abandon the dispatch through the queue's cancel flag (the
 * interpreter checks it between wave time slices, so the waves really stop), and the AQL engine
 * then reports a hung queue (aql.c aql_hang). Value 2 in the flag is the watchdog's; queue
 * destruction stores 1 over it.
 *
 * Locking: g_mon.lock guards the list of dispatches, the progress line, the statistics table and
 * each cp_run's timed_out flag. It is never held while calling into the interpreter or the
 * driver. After fork() the child forgets the parent's dispatches, statistics and thread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cp_internal.h"
#include "isa/isa.h"

#define MON_TICK_NS 250000000ull         /* the monitor's period while dispatches run */
#define MON_IDLE_AFTER_NS 1000000000ull  /* no dispatch for this long: sleep until the next */
#define MON_PROGRESS_AFTER_NS 1000000000ull /* a dispatch shows progress after running 1 s */
#define MON_LOG_PERIOD_NS 10000000000ull /* progress to a file or pipe: one line per 10 s */
#define MON_NAME_COLUMNS 60              /* kernel name width in the progress line */
#define MON_CANCEL_WATCHDOG 2            /* sim_cp_queue.cancel_dispatch value of the watchdog */

int cp_monitor_flags;

struct stat_row {
  char *name;
  uint64_t launches, waves, insts, ns, timeouts;
  struct stat_row *next;                 /* hash chain */
};

#define STAT_BUCKETS 1024u

static struct {
  pthread_mutex_t lock;
  pthread_cond_t cond;                   /* wakes the monitor thread from its idle sleep */
  bool thread_running;                   /* the monitor thread exists (in this process) */
  bool idle;                             /* it sleeps without a timeout */
  struct cp_run *runs;                   /* dispatches in flight */
  bool line_shown;                       /* a progress line is on the terminal */
  bool tty;                              /* stderr is a terminal: redraw in place */
  uint64_t timeout_ns;                   /* 0: no watchdog */
  char *stats_path;                      /* NULL: stderr */
  bool used;                             /* this process created a queue: print statistics */
  struct stat_row *rows[STAT_BUCKETS];
  unsigned nrows;
} g_mon = {.lock = PTHREAD_MUTEX_INITIALIZER};

static pthread_once_t g_mon_once = PTHREAD_ONCE_INIT;

/* ---- configuration ---- */

static bool env_on(const char *name)
{
  const char *v = getenv(name);
  return v && *v && strcmp(v, "0");
}

/* Seconds as a decimal number > 0 (at most a year), or 0 with a message. */
static uint64_t parse_timeout(const char *v)
{
  char *end;
  errno = 0;
  double s = strtod(v, &end);
  if (errno || end == v || *end || !isfinite(s) || s <= 0 || s > 31536000.0) {
    fprintf(stderr, "kfdsim: KFDSIM_TIMEOUT='%s' is not a number of seconds greater than 0; "
            "the watchdog is off\n", v);
    return 0;
  }
  return (uint64_t)(s * 1e9);
}

static void *monitor_main(void *arg);
static void monitor_atfork_child(void);
static void monitor_print_stats(void);

static void monitor_configure(void)
{
  if (env_on("KFDSIM_STATS")) {
    const char *v = getenv("KFDSIM_STATS");
    cp_monitor_flags |= CP_MON_STATS;
    g_mon.stats_path = strcmp(v, "1") ? strdup(v) : NULL;
  }
  if (env_on("KFDSIM_PROGRESS"))
    cp_monitor_flags |= CP_MON_PROGRESS;
  const char *t = getenv("KFDSIM_TIMEOUT");
  if (t && *t && (g_mon.timeout_ns = parse_timeout(t)))
    cp_monitor_flags |= CP_MON_TIMEOUT;
  g_mon.tty = isatty(STDERR_FILENO);
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&g_mon.cond, &attr);
  pthread_condattr_destroy(&attr);
  pthread_atfork(NULL, NULL, monitor_atfork_child);
  if (cp_monitor_flags & CP_MON_STATS)
    atexit(monitor_print_stats);
}

/* Called when a queue is created: reads the environment once, and starts the monitor thread when
 * the progress line or the watchdog needs it. */
void cp_monitor_queue_created(void)
{
  pthread_once(&g_mon_once, monitor_configure);
  if (!cp_monitor_flags)
    return;
  pthread_mutex_lock(&g_mon.lock);
  g_mon.used = true;
  if (!g_mon.thread_running && (cp_monitor_flags & (CP_MON_PROGRESS | CP_MON_TIMEOUT))) {
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &attr, monitor_main, NULL) == 0)
      g_mon.thread_running = true;
    else
      fprintf(stderr, "kfdsim: cannot start the monitor thread: no progress line or watchdog\n");
    pthread_attr_destroy(&attr);
  }
  pthread_mutex_unlock(&g_mon.lock);
}

static void monitor_atfork_child(void)
{
  /* The parent's dispatches and thread do not exist here; its statistics are its own. The
   * rows are left allocated (the names they point to may be shared with the parent's table). */
  pthread_mutex_init(&g_mon.lock, NULL);
  g_mon.thread_running = false;
  g_mon.idle = false;
  g_mon.runs = NULL;
  g_mon.line_shown = false;
  g_mon.used = false;
  memset(g_mon.rows, 0, sizeof(g_mon.rows));
  g_mon.nrows = 0;
}

/* ---- output ---- */

static void write_all(int fd, const char *buf, size_t len)
{
  while (len) {
    ssize_t n = write(fd, buf, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return;
    buf += n;
    len -= (size_t)n;
  }
}

static void write_str(int fd, const char *s)
{
  write_all(fd, s, strlen(s));
}

/* Caller holds g_mon.lock. */
static void progress_clear_locked(void)
{
  if (g_mon.line_shown) {
    write_str(STDERR_FILENO, "\r\033[K");
    g_mon.line_shown = false;
  }
}

/* ---- statistics ---- */

static unsigned name_hash(const char *s)
{
  uint32_t h = 2166136261u;   /* FNV-1a */
  for (; *s; s++)
    h = (h ^ (uint8_t)*s) * 16777619u;
  return h % STAT_BUCKETS;
}

/* Caller holds g_mon.lock. */
static void stats_add_locked(const struct cp_run *r, const struct isa_result *res, uint64_t ns)
{
  unsigned b = name_hash(r->name);
  struct stat_row *row = g_mon.rows[b];
  while (row && strcmp(row->name, r->name))
    row = row->next;
  if (!row) {
    row = calloc(1, sizeof(*row));
    if (!row || !(row->name = strdup(r->name))) {
      free(row);
      return; /* out of memory: this dispatch goes uncounted */
    }
    row->next = g_mon.rows[b];
    g_mon.rows[b] = row;
    g_mon.nrows++;
  }
  row->launches++;
  row->waves += res->waves_executed;
  row->insts += res->instructions_executed;
  row->ns += ns;
  row->timeouts += r->timed_out;
}

static int row_by_time(const void *a, const void *b)
{
  const struct stat_row *x = *(const struct stat_row *const *)a, *y = *(const struct stat_row *const *)b;
  return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : strcmp(x->name, y->name);
}

/* The table as text; the caller frees it. Rows by time, longest first. */
static char *stats_format(size_t *len)
{
  char *buf = NULL;
  FILE *f = open_memstream(&buf, len);
  if (!f)
    return NULL;
  struct stat_row **rows = calloc(g_mon.nrows ? g_mon.nrows : 1, sizeof(*rows));
  unsigned n = 0;
  struct stat_row total = {.name = "total"};
  for (unsigned b = 0; rows && b < STAT_BUCKETS; b++)
    for (struct stat_row *r = g_mon.rows[b]; r && n < g_mon.nrows; r = r->next) {
      rows[n++] = r;
      total.launches += r->launches;
      total.waves += r->waves;
      total.insts += r->insts;
      total.ns += r->ns;
      total.timeouts += r->timeouts;
    }
  qsort(rows, n, sizeof(*rows), row_by_time);
  char exe[256];
  ssize_t el = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  exe[el > 0 ? el : 0] = 0;
  fprintf(f, "kfdsim statistics: pid %d %s: %u kernels, %llu dispatches\n", (int)getpid(), exe,
          n, (unsigned long long)total.launches);
  fprintf(f, "kfdsim: %10s %12s %16s %12s  %s\n", "launches", "waves", "instructions", "time_ms",
          "kernel");
  for (unsigned i = 0; i <= n; i++) {
    const struct stat_row *r = i < n ? rows[i] : &total;
    fprintf(f, "kfdsim: %10llu %12llu %16llu %12.3f  %s", (unsigned long long)r->launches,
            (unsigned long long)r->waves, (unsigned long long)r->insts, (double)r->ns / 1e6,
            r->name);
    if (r->timeouts)
      fprintf(f, " (%llu stopped by the watchdog)", (unsigned long long)r->timeouts);
    fputc('\n', f);
  }
  free(rows);
  fclose(f);
  return buf;
}

/* "%p" in the path becomes the process id (one file per process of an MPI job). */
static int stats_open(const char *path)
{
  char out[4096];
  size_t o = 0;
  for (const char *p = path; *p && o + 24 < sizeof(out); p++) {
    if (p[0] == '%' && p[1] == 'p') {
      o += (size_t)snprintf(out + o, sizeof(out) - o, "%d", (int)getpid());
      p++;
    } else {
      out[o++] = *p;
    }
  }
  out[o] = 0;
  int fd = open(out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    fprintf(stderr, "kfdsim: cannot write statistics to %s: %s\n", out, strerror(errno));
  return fd;
}

/* atexit: the table, in one write (O_APPEND keeps processes sharing a file apart). Only a
 * process that created a queue prints: children that never touched the GPU (compilers run by
 * hiprtc, shells) inherit the variable and stay quiet. */
static void monitor_print_stats(void)
{
  pthread_mutex_lock(&g_mon.lock);
  if (!g_mon.used) {
    pthread_mutex_unlock(&g_mon.lock);
    return;
  }
  progress_clear_locked();
  size_t len = 0;
  char *text = stats_format(&len);
  pthread_mutex_unlock(&g_mon.lock);
  if (!text)
    return;
  int fd = g_mon.stats_path ? stats_open(g_mon.stats_path) : STDERR_FILENO;
  if (fd >= 0)
    write_all(fd, text, len);
  if (fd >= 0 && fd != STDERR_FILENO)
    close(fd);
  free(text);
}

/* ---- dispatches ---- */

void cp_monitor_begin(struct cp_run *r, struct sim_cp_queue *q, uint64_t kernel_object,
                      uint64_t waves_total)
{
  memset(r, 0, sizeof(*r));
  r->q = q;
  r->name = cp_kernel_name(q->gpu, kernel_object);
  r->waves_total = waves_total;
  r->start_ns = cp_now_ns();
  pthread_mutex_lock(&g_mon.lock);
  r->next = g_mon.runs;
  if (g_mon.runs)
    g_mon.runs->prev = r;
  g_mon.runs = r;
  if (g_mon.idle)
    pthread_cond_signal(&g_mon.cond);
  pthread_mutex_unlock(&g_mon.lock);
}

bool cp_monitor_end(struct cp_run *r, const struct isa_result *res)
{
  uint64_t ns = cp_now_ns() - r->start_ns;
  pthread_mutex_lock(&g_mon.lock);
  if (r->prev)
    r->prev->next = r->next;
  else
    g_mon.runs = r->next;
  if (r->next)
    r->next->prev = r->prev;
  /* The watchdog may have fired just as the dispatch ended by itself: then it did not hang. */
  bool hung = r->timed_out && res->status == ISA_CANCELLED;
  if (r->timed_out) {
    int expect = MON_CANCEL_WATCHDOG;
    __atomic_compare_exchange_n(&r->q->cancel_dispatch, &expect, 0, false, __ATOMIC_ACQ_REL,
                                __ATOMIC_ACQUIRE);
  }
  if (cp_monitor_flags & CP_MON_STATS)
    stats_add_locked(r, res, ns);
  progress_clear_locked(); /* the monitor redraws what is still running */
  pthread_mutex_unlock(&g_mon.lock);
  return hung;
}

/* ---- the monitor thread ---- */

/* Caller holds g_mon.lock. */
static void watchdog_check_locked(uint64_t now)
{
  for (struct cp_run *r = g_mon.runs; r; r = r->next) {
    if (r->timed_out || now - r->start_ns < g_mon.timeout_ns)
      continue;
    int expect = 0;
    if (!__atomic_compare_exchange_n(&r->q->cancel_dispatch, &expect, MON_CANCEL_WATCHDOG, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      continue; /* the queue is being destroyed: that ends the dispatch anyway */
    r->timed_out = true;
    progress_clear_locked();
    char msg[512];
    snprintf(msg, sizeof(msg),
             "kfdsim: watchdog: kernel %s (queue %u, gpu_id %u) ran longer than %.3g s "
             "(KFDSIM_TIMEOUT); stopping it and reporting a GPU hang\n",
             r->name, r->q->desc.queue_id, sim_gpu_id(r->q->gpu), (double)g_mon.timeout_ns / 1e9);
    write_str(STDERR_FILENO, msg);
  }
}

/* Caller holds g_mon.lock. The oldest dispatch past a second, with a count of the others. */
static void progress_draw_locked(uint64_t now)
{
  struct cp_run *oldest = NULL;
  unsigned others = 0;
  for (struct cp_run *r = g_mon.runs; r; r = r->next) {
    if (r->timed_out || now - r->start_ns < MON_PROGRESS_AFTER_NS)
      continue;
    if (oldest)
      others++;
    if (!oldest || r->start_ns < oldest->start_ns)
      oldest = r;
  }
  if (!oldest)
    return;
  uint64_t age = now - oldest->start_ns;
  if (!g_mon.tty) {
    /* A file or a pipe keeps every line: one now, then one every 10 s. */
    if (age < oldest->next_log_ns)
      return;
    oldest->next_log_ns = age + MON_LOG_PERIOD_NS;
  }
  char line[256], more[32] = "";
  if (others)
    snprintf(more, sizeof(more), " (+%u more)", others);
  snprintf(line, sizeof(line), "%skfdsim: %.*s: %llu/%llu waves, %.1f s%s%s",
           g_mon.tty ? "\r" : "", MON_NAME_COLUMNS, oldest->name,
           (unsigned long long)__atomic_load_n(&oldest->waves_done, __ATOMIC_RELAXED),
           (unsigned long long)oldest->waves_total, (double)age / 1e9, more,
           g_mon.tty ? "\033[K" : "\n");
  write_str(STDERR_FILENO, line);
  g_mon.line_shown = g_mon.tty;
}

static void *monitor_main(void *arg)
{
  (void)arg;
  uint64_t last_busy = cp_now_ns();
  pthread_mutex_lock(&g_mon.lock);
  for (;;) {
    uint64_t now = cp_now_ns();
    if (g_mon.runs) {
      last_busy = now;
    } else if (now - last_busy >= MON_IDLE_AFTER_NS) {
      g_mon.idle = true;
      while (!g_mon.runs)
        pthread_cond_wait(&g_mon.cond, &g_mon.lock);
      g_mon.idle = false;
      last_busy = cp_now_ns();
    }
    now = cp_now_ns();
    if (cp_monitor_flags & CP_MON_TIMEOUT)
      watchdog_check_locked(now);
    if (cp_monitor_flags & CP_MON_PROGRESS)
      progress_draw_locked(now);
    uint64_t t = now + MON_TICK_NS;
    struct timespec until = {.tv_sec = (time_t)(t / 1000000000ull), .tv_nsec = (long)(t % 1000000000ull)};
    pthread_cond_timedwait(&g_mon.cond, &g_mon.lock, &until);
  }
  return NULL;
}
