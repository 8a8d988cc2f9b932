/* One emulated node shared by processes: the shared segment, its process slots and the VRAM
 * accounting (see node.h).
 *
 * The segment ("/kfdsim-node-<uid>-<name>", shm_open) holds a robust process-shared mutex over
 * everything in it, the node's configuration, the VRAM in use per GPU and SIM_NODE_MAX_PROCS
 * process slots. A slot records what its process charged per GPU, and carries a robust mutex
 * that a thread of the process (the keeper, which does nothing else and sleeps with every signal
 * blocked) holds from join until the process ends. However the process ends (exit, exec,
 * SIGKILL, and before it is reaped as a zombie), the kernel walks its threads' robust lists and
 * marks that mutex owner-dead, so any other process finds out with a trylock, in user space,
 * without pids (which are recycled) or /proc. Whoever finds a dead slot gives its share back.
 *
 * The node lock is robust too: a process killed while holding it leaves the totals possibly
 * half-updated, and the next locker recounts them from the slots.
 *
 * Lifetime: the first process creates the segment (O_EXCL) and publishes it by storing the
 * magic last; the others wait for the magic. A process that leaves while no slot holds a live
 * process marks the segment dead and unlinks its name; a process that still had the dead one
 * mapped and then joins attaches again (a fresh segment). The launcher sweeps the node after
 * its program (sim_node_sweep), for the case where the last process was killed.
 */
#define _GNU_SOURCE
#include "kfd/uapi.h"   /* first: keeps the raw UAPI linux/types.h out */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kfd/node.h"

#define NODE_MAGIC 0x314544304e44464bull   /* "KFDN0DE1" */
#define NODE_OPEN_TRIES 64
#define NODE_INIT_WAIT_MS 10000            /* a creator this slow to initialise has died */
#define KEEPER_STACK (64u << 10)

struct node_slot {
  pthread_mutex_t alive;                   /* robust: held by the owner's keeper thread */
  int32_t pid;                             /* 0: free. (node lock) */
  uint32_t pad;
  uint64_t vram[SIM_NODE_MAX_GPUS];        /* bytes this process charged. (node lock) */
};

struct node_shm {
  _Atomic uint64_t magic;                  /* stored last by the creator */
  uint32_t size;                           /* sizeof(struct node_shm) of the creator */
  uint32_t pad;
  pthread_mutex_t lock;                    /* robust, process-shared: what follows */
  bool dead;                               /* unlinked: attach again */
  struct sim_node_config cfg;              /* fixed at creation */
  uint64_t vram_used[SIM_NODE_MAX_GPUS];   /* the sum of the slots' vram */
  struct node_slot slot[SIM_NODE_MAX_PROCS];
};

/* This process's view. `lock` serialises attach, join and leave; charge, uncharge and used
 * are called by the driver under its own lock, after join. */
static struct {
  pthread_mutex_t lock;
  struct node_shm *shm;
  char shm_name[96];
  struct sim_node_config cfg;
  int slot;                                /* -1: none */
  pid_t slot_pid;                          /* the process that owns `slot` */
} self = { .lock = PTHREAD_MUTEX_INITIALIZER, .slot = -1 };

/* ---- names -------------------------------------------------------------------------------- */

int sim_node_name_check(const char *name)
{
  size_t n = name ? strlen(name) : 0;
  if (!n || n > SIM_NODE_NAME_MAX)
    return -EINVAL;
  for (size_t i = 0; i < n; i++) {
    char c = name[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '.' || c == '_' || c == '-'))
      return -EINVAL;
  }
  return 0;
}

int sim_node_shm_name(const char *name, char *out, size_t out_size)
{
  if (sim_node_name_check(name))
    return -EINVAL;
  int n = snprintf(out, out_size, "/kfdsim-node-%u-%s", (unsigned)getuid(), name);
  return n < 0 || (size_t)n >= out_size ? -ENAMETOOLONG : 0;
}

/* ---- the segment's locks and slots ------------------------------------------------------------ */

static int robust_mutex_init(pthread_mutex_t *m)
{
  pthread_mutexattr_t a;
  int r = pthread_mutexattr_init(&a);
  if (!r)
    r = pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
  if (!r)
    r = pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
  if (!r)
    r = pthread_mutex_init(m, &a);
  pthread_mutexattr_destroy(&a);
  return -r;
}

/* The totals from the slots: after a process died holding the node lock. */
static void node_recount(struct node_shm *n)
{
  for (unsigned g = 0; g < SIM_NODE_MAX_GPUS; g++) {
    uint64_t sum = 0;
    for (unsigned i = 0; i < SIM_NODE_MAX_PROCS; i++)
      if (n->slot[i].pid)
        sum += n->slot[i].vram[g];
    n->vram_used[g] = sum;
  }
}

static int node_lock(struct node_shm *n)
{
  int r = pthread_mutex_lock(&n->lock);
  if (r == EOWNERDEAD) {
    node_recount(n);
    pthread_mutex_consistent(&n->lock);
    r = 0;
  }
  return -r;
}

static void node_unlock(struct node_shm *n)
{
  pthread_mutex_unlock(&n->lock);
}

/* Slot i's share goes back to the node and the slot is free. Node lock held. */
static void slot_release(struct node_shm *n, int i)
{
  struct node_slot *s = &n->slot[i];
  for (unsigned g = 0; g < SIM_NODE_MAX_GPUS; g++) {
    n->vram_used[g] -= s->vram[g] < n->vram_used[g] ? s->vram[g] : n->vram_used[g];
    s->vram[g] = 0;
  }
  s->pid = 0;
}

/* Try to take slot i's alive mutex: 0 when this thread now holds it (free, or its holder
 * died), -EBUSY when a live thread holds it. Node lock held. */
static int slot_trylock(struct node_shm *n, int i)
{
  pthread_mutex_t *m = &n->slot[i].alive;
  int r = pthread_mutex_trylock(m);
  if (r == EOWNERDEAD)
    r = pthread_mutex_consistent(m);
  if (r == ENOTRECOVERABLE) {
    /* unlocked without being made consistent: nobody can hold it, make it new */
    pthread_mutex_destroy(m);
    r = -robust_mutex_init(m);
    if (!r)
      r = pthread_mutex_trylock(m);
  }
  return r ? -EBUSY : 0;
}

/* Does slot i belong to a live process? A slot whose process died is released on the way.
 * (Our own slot answers busy too: our keeper, another thread, holds it.) Node lock held. */
static bool slot_live(struct node_shm *n, int i)
{
  if (!n->slot[i].pid)
    return false;
  if (slot_trylock(n, i))
    return true;
  slot_release(n, i);
  pthread_mutex_unlock(&n->slot[i].alive);
  return false;
}

/* Release every dead process's share; returns how many live processes hold slots. */
static unsigned node_reap(struct node_shm *n)
{
  unsigned live = 0;
  for (int i = 0; i < SIM_NODE_MAX_PROCS; i++)
    live += slot_live(n, i);
  return live;
}

/* ---- creating and opening the segment --------------------------------------------------------- */

static int node_create(int fd, const struct sim_node_config *cfg, struct node_shm **out)
{
  if (ftruncate(fd, sizeof(struct node_shm)))
    return -errno;
  struct node_shm *n = mmap(NULL, sizeof(*n), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (n == MAP_FAILED)
    return -errno;
  int r = robust_mutex_init(&n->lock);
  for (int i = 0; !r && i < SIM_NODE_MAX_PROCS; i++)
    r = robust_mutex_init(&n->slot[i].alive);
  if (r) {
    munmap(n, sizeof(*n));
    return r;
  }
  n->size = sizeof(*n);
  n->cfg = *cfg;
  /* release: whoever reads the magic sees the locks and the configuration */
  atomic_store_explicit(&n->magic, NODE_MAGIC, memory_order_release);
  *out = n;
  return 0;
}

static void sleep_ms(unsigned ms)
{
  struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000l };
  nanosleep(&ts, NULL);
}

/* Map an existing segment once its creator has published it. -ETIMEDOUT when it never was,
 * -EPROTO when it is another layout, -ESTALE when it was unlinked. */
static int node_open_existing(int fd, struct node_shm **out)
{
  struct stat st;
  for (unsigned waited = 0;; waited++) {
    if (fstat(fd, &st))
      return -errno;
    if (st.st_size != 0)
      break;   /* sized by its creator (ftruncate comes before anything else) */
    if (waited >= NODE_INIT_WAIT_MS)
      return -ETIMEDOUT;
    sleep_ms(1);
  }
  if ((size_t)st.st_size != sizeof(struct node_shm))
    return -EPROTO;
  struct node_shm *n = mmap(NULL, sizeof(*n), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (n == MAP_FAILED)
    return -errno;
  int r = 0;
  for (unsigned waited = 0; !r; waited++) {
    uint64_t m = atomic_load_explicit(&n->magic, memory_order_acquire);
    if (m == NODE_MAGIC)
      break;
    r = m ? -EPROTO : waited >= NODE_INIT_WAIT_MS ? -ETIMEDOUT : 0;
    if (!r)
      sleep_ms(1);
  }
  if (!r && n->size != sizeof(*n))
    r = -EPROTO;
  if (!r && !(r = node_lock(n))) {
    r = n->dead ? -ESTALE : 0;
    node_unlock(n);
  }
  if (r) {
    munmap(n, sizeof(*n));
    return r;
  }
  *out = n;
  return 0;
}

/* The node's segment, created with `cfg` when there is none. [out] created. */
static int node_map(const char *shm_name, const struct sim_node_config *cfg, struct node_shm **out,
                    bool *created)
{
  for (int tries = 0; tries < NODE_OPEN_TRIES; tries++) {
    int fd = shm_open(shm_name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) {
      int r = node_create(fd, cfg, out);
      close(fd);
      if (r)
        shm_unlink(shm_name);
      *created = true;
      return r;
    }
    if (errno != EEXIST)
      return -errno;
    fd = shm_open(shm_name, O_RDWR | O_CLOEXEC, 0);
    if (fd < 0 && errno == ENOENT)
      continue;   /* removed between our two opens */
    if (fd < 0)
      return -errno;
    int r = node_open_existing(fd, out);
    close(fd);
    if (r == -ETIMEDOUT)
      shm_unlink(shm_name);   /* its creator died before publishing it */
    if (r == -ETIMEDOUT || r == -ESTALE)
      continue;
    *created = false;
    return r;
  }
  return -EAGAIN;
}

/* ---- attach, join, leave --------------------------------------------------------------------- */

static bool config_matches(const struct sim_node_config *want, const struct sim_node_config *have)
{
  return (!want->profile[0] || !strcmp(want->profile, have->profile)) &&
         (!want->n_gpus || want->n_gpus == have->n_gpus) &&
         (!want->vram_size || want->vram_size == have->vram_size);
}

int sim_node_attach(const char *name, const struct sim_node_config *want,
                    const struct sim_node_config *dflt, struct sim_node_config *have)
{
  struct sim_node_config cfg = *dflt;
  if (want->profile[0])
    memcpy(cfg.profile, want->profile, sizeof(cfg.profile));
  if (want->n_gpus)
    cfg.n_gpus = want->n_gpus;
  if (want->vram_size)
    cfg.vram_size = want->vram_size;
  if (!cfg.n_gpus || cfg.n_gpus > SIM_NODE_MAX_GPUS || !cfg.vram_size ||
      !memchr(cfg.profile, 0, sizeof(cfg.profile)))
    return -EINVAL;
  pthread_mutex_lock(&self.lock);
  int r = 0;
  if (!self.shm) {
    char shm_name[sizeof(self.shm_name)];
    struct node_shm *n;
    bool created;
    r = sim_node_shm_name(name, shm_name, sizeof(shm_name));
    if (!r)
      r = node_map(shm_name, &cfg, &n, &created);
    if (!r) {
      self.shm = n;
      self.cfg = n->cfg;
      memcpy(self.shm_name, shm_name, sizeof(shm_name));
    }
  }
  if (!r) {
    *have = self.cfg;
    if (!config_matches(want, &self.cfg))
      r = -EINVAL;
  }
  pthread_mutex_unlock(&self.lock);
  return r;
}

bool sim_node_attached(void)
{
  return self.shm != NULL;
}

struct keeper_start {
  struct node_shm *node;
  int slot;                                /* the claimed slot, or -errno */
  sem_t done;
};

/* A free slot, or one of a dead process, now held by this (the keeper) thread. Node lock held. */
static int slot_claim(struct node_shm *n)
{
  for (int i = 0; i < SIM_NODE_MAX_PROCS; i++) {
    if (slot_live(n, i))
      continue;
    if (slot_trylock(n, i))
      continue;   /* its last owner left and is still exiting */
    n->slot[i].pid = getpid();
    return i;
  }
  return -EAGAIN;
}

static void *keeper_main(void *arg)
{
  struct keeper_start *ks = arg;
  struct node_shm *n = ks->node;
  int r = node_lock(n);
  if (!r) {
    r = n->dead ? -ESTALE : slot_claim(n);
    node_unlock(n);
  }
  ks->slot = r;
  sem_post(&ks->done);   /* ks belongs to the joiner from here on */
  if (r < 0)
    return NULL;
  for (;;)
    pause();   /* every signal is blocked: this returns never, the process just ends */
  return NULL;
}

/* Start the keeper thread of node n: the slot it claimed, or -errno. */
static int keeper_start(struct node_shm *n)
{
  struct keeper_start ks = { .node = n, .slot = -EAGAIN };
  pthread_attr_t attr;
  sigset_t all, old;
  pthread_t t;
  if (sem_init(&ks.done, 0, 0))
    return -errno;
  sigfillset(&all);
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, KEEPER_STACK);
  /* the new thread inherits the mask: no signal of the program is ever delivered to it */
  pthread_sigmask(SIG_BLOCK, &all, &old);
  int r = -pthread_create(&t, &attr, keeper_main, &ks);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  pthread_attr_destroy(&attr);
  if (!r) {
    while (sem_wait(&ks.done) && errno == EINTR)
      ;
    r = ks.slot;
  }
  sem_destroy(&ks.done);
  return r;
}

/* Attach again after the node was found dead (unlinked by its last process). self.lock held. */
static int reattach_locked(void)
{
  struct node_shm *n;
  bool created;
  munmap(self.shm, sizeof(*self.shm));
  self.shm = NULL;
  int r = node_map(self.shm_name, &self.cfg, &n, &created);
  if (r)
    return r;
  if (!config_matches(&self.cfg, &n->cfg)) {
    munmap(n, sizeof(*n));
    return -EINVAL;   /* another configuration took the name meanwhile */
  }
  self.shm = n;
  return 0;
}

int sim_node_join(void)
{
  pthread_mutex_lock(&self.lock);
  int r = 0;
  if (self.shm && !(self.slot >= 0 && self.slot_pid == getpid())) {
    for (int tries = 0; tries < NODE_OPEN_TRIES; tries++) {
      r = keeper_start(self.shm);
      if (r != -ESTALE)
        break;
      if ((r = reattach_locked()))
        break;
    }
    if (r >= 0) {
      self.slot = r;
      self.slot_pid = getpid();
      r = 0;
    }
  }
  pthread_mutex_unlock(&self.lock);
  return r;
}

void sim_node_leave(void)
{
  pthread_mutex_lock(&self.lock);
  struct node_shm *n = self.shm;
  if (n && !node_lock(n)) {
    bool mine = self.slot >= 0 && self.slot_pid == getpid();
    if (mine)
      slot_release(n, self.slot);
    self.slot = -1;
    /* Our keeper holds its mutex until we are gone: a joiner skips that slot meanwhile. */
    if (!n->dead && node_reap(n) == 0) {
      n->dead = true;
      shm_unlink(self.shm_name);
    }
    node_unlock(n);
  }
  pthread_mutex_unlock(&self.lock);
}

void sim_node_forget_slot(void)
{
  /* fork child: another thread of the parent may have held the lock at the fork */
  self.lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
  self.slot = -1;
  self.slot_pid = 0;
}

/* ---- accounting ------------------------------------------------------------------------------- */

int sim_node_charge(uint32_t gpu, uint64_t bytes)
{
  struct node_shm *n = self.shm;
  int i = self.slot;
  if (!n || i < 0 || gpu >= n->cfg.n_gpus)
    return -EINVAL;
  int r = node_lock(n);
  if (r)
    return r;
  if (bytes > n->cfg.vram_size - n->vram_used[gpu])
    node_reap(n);   /* a dead process's share may make the room */
  if (bytes > n->cfg.vram_size - n->vram_used[gpu]) {
    r = -ENOMEM;
  } else {
    n->slot[i].vram[gpu] += bytes;
    n->vram_used[gpu] += bytes;
  }
  node_unlock(n);
  return r;
}

void sim_node_uncharge(uint32_t gpu, uint64_t bytes)
{
  struct node_shm *n = self.shm;
  int i = self.slot;
  if (!n || i < 0 || gpu >= SIM_NODE_MAX_GPUS || node_lock(n))
    return;   /* no slot any more (left at exit): the share went with it */
  struct node_slot *s = &n->slot[i];
  uint64_t b = bytes < s->vram[gpu] ? bytes : s->vram[gpu];
  s->vram[gpu] -= b;
  n->vram_used[gpu] -= b < n->vram_used[gpu] ? b : n->vram_used[gpu];
  node_unlock(n);
}

uint64_t sim_node_used(uint32_t gpu)
{
  struct node_shm *n = self.shm;
  uint64_t used = 0;
  if (!n || gpu >= SIM_NODE_MAX_GPUS || node_lock(n))
    return 0;
  node_reap(n);
  used = n->vram_used[gpu];
  node_unlock(n);
  return used;
}

/* ---- the launcher's sweep --------------------------------------------------------------------- */

int sim_node_sweep(const char *name)
{
  char shm_name[sizeof(self.shm_name)];
  int r = sim_node_shm_name(name, shm_name, sizeof(shm_name));
  if (r)
    return r;
  int fd = shm_open(shm_name, O_RDWR | O_CLOEXEC, 0);
  if (fd < 0)
    return errno == ENOENT ? 0 : -errno;
  struct node_shm *n;
  r = node_open_existing(fd, &n);
  close(fd);
  if (r == -ESTALE)
    return 0;
  if (r)
    return r;
  if (!(r = node_lock(n))) {
    if (node_reap(n)) {
      r = -EBUSY;
    } else {
      n->dead = true;
      shm_unlink(shm_name);
    }
    node_unlock(n);
  }
  munmap(n, sizeof(*n));
  return r;
}
