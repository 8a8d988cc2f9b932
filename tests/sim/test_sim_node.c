/* One emulated node shared by processes (KFDSIM_NODE, sim/kfd/node.h): processes of a node see
 * the same GPUs and one VRAM pool per GPU, a killed process's share comes back, 64 processes
 * fit and a 65th is refused, and the node's shared segment is gone once its processes are.
 * Without KFDSIM_NODE each process keeps GPUs of its own.
 *
 * The processes are node_peer programs (kfdsim preloaded, 1 GiB of VRAM per GPU) driven over
 * pipes; this suite itself runs without kfdsim. Every test uses a node name of its own. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../support/sim_node.h"

#define GIB (1ll << 30)
#define MIB (1ll << 20)

struct peer {
  pid_t pid;
  int in;                     /* its stdin */
  FILE *out;                  /* its stdout */
};

static char node[64];

static void node_name(const char *test)
{
  snprintf(node, sizeof(node), "t%d-%s", (int)getpid(), test);
}

static bool node_exists(void)
{
  return sim_node_exists(node);
}

/* Start node_peer with `cmds` (NULL-terminated); `env` is one extra KEY=VALUE or NULL; `with_node`
 * sets KFDSIM_NODE. */
static struct peer peer_start_env(bool with_node, const char *env, const char *const *cmds)
{
  char e_preload[1024], e_node[128];
  snprintf(e_preload, sizeof(e_preload), "LD_PRELOAD=%s", PEER_PRELOAD);
  snprintf(e_node, sizeof(e_node), "KFDSIM_NODE=%s", node);
  const char *envp[8] = { e_preload, "KFDSIM_VRAM=1G", "KFDSIM_PROFILE=gfx942",
                          "ASAN_OPTIONS=detect_leaks=0" };
  int ne = 4;
  if (with_node)
    envp[ne++] = e_node;
  if (env)
    envp[ne++] = env;
  envp[ne] = NULL;
  const char *argv[32] = { PEER_PROG };
  int na = 1;
  for (; cmds[na - 1] && na < 31; na++)
    argv[na] = cmds[na - 1];
  argv[na] = NULL;

  int to[2], from[2];
  cr_assert_eq(pipe2(to, O_CLOEXEC), 0);
  cr_assert_eq(pipe2(from, O_CLOEXEC), 0);
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    dup2(to[0], 0);
    dup2(from[1], 1);
    execve(PEER_PROG, (char *const *)argv, (char *const *)envp);
    _exit(127);
  }
  close(to[0]);
  close(from[1]);
  return (struct peer){ .pid = pid, .in = to[1], .out = fdopen(from[0], "r") };
}

#define PEER(...) peer_start_env(true, NULL, (const char *const[]){ __VA_ARGS__, NULL })
#define PEER_ENV(env, ...) peer_start_env(true, env, (const char *const[]){ __VA_ARGS__, NULL })

/* The peer's next line, which must start with `key`; the number after it. */
static long long peer_value(struct peer *p, const char *key)
{
  char line[256];
  cr_assert_not_null(fgets(line, sizeof(line), p->out), "peer %d said nothing (expected %s)",
                     (int)p->pid, key);
  size_t n = strlen(key);
  cr_assert(!strncmp(line, key, n), "peer %d said '%s', expected '%s'", (int)p->pid, line, key);
  return strtoll(line + n, NULL, 10);
}

/* "avail <gpu> <bytes>" */
static long long peer_avail(struct peer *p, int gpu)
{
  char key[32];
  snprintf(key, sizeof(key), "avail %d ", gpu);
  return peer_value(p, key);
}

static void peer_continue(struct peer *p)
{
  cr_assert_eq(write(p->in, "go\n", 3), 3);
}

/* Wait for the peer's end: its exit code, or 128 + signal. */
static int peer_end(struct peer *p)
{
  int st;
  close(p->in);
  cr_assert_eq(waitpid(p->pid, &st, 0), p->pid);
  fclose(p->out);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

Test(node, vram_is_shared_by_the_processes_of_a_node, .timeout = 60)
{
  node_name("shared");
  struct peer a = PEER("alloc", "256", "avail", "wait", "free", "avail", "wait");
  cr_assert_eq(peer_value(&a, "alloc "), 0);
  cr_assert_eq(peer_avail(&a, 0), GIB - 256 * MIB);
  cr_assert_eq(peer_value(&a, "ready"), 0);

  struct peer b = PEER("alloc", "128", "avail");
  cr_assert_eq(peer_value(&b, "alloc "), 0);
  cr_assert_eq(peer_avail(&b, 0), GIB - 384 * MIB, "B sees A's 256 MiB and its own 128 MiB");
  cr_assert_eq(peer_end(&b), 0);

  peer_continue(&a);
  cr_assert_eq(peer_value(&a, "free "), 0);
  cr_assert_eq(peer_avail(&a, 0), GIB, "B's share went when it exited, A's when it freed");
  cr_assert_eq(peer_value(&a, "ready"), 0);
  cr_assert(node_exists());
  cr_assert_eq(peer_end(&a), 0);
  cr_assert_not(node_exists(), "the last process of the node removes its segment");
}

Test(node, a_killed_process_gives_its_memory_back, .timeout = 60)
{
  node_name("killed");
  struct peer a = PEER("alloc", "512", "wait");
  cr_assert_eq(peer_value(&a, "alloc "), 0);
  cr_assert_eq(peer_value(&a, "ready"), 0);
  struct peer b = PEER("alloc", "256", "avail", "wait", "avail", "alloc", "512");
  cr_assert_eq(peer_value(&b, "alloc "), 0);
  cr_assert_eq(peer_avail(&b, 0), GIB - 768 * MIB);
  cr_assert_eq(peer_value(&b, "ready"), 0);

  kill(a.pid, SIGKILL);
  cr_assert_eq(peer_end(&a), 128 + SIGKILL);
  peer_continue(&b);
  cr_assert_eq(peer_avail(&b, 0), GIB - 256 * MIB, "A's 512 MiB came back");
  cr_assert_eq(peer_value(&b, "alloc "), 0, "and can be allocated again");
  cr_assert_eq(peer_end(&b), 0);
  cr_assert_not(node_exists());
}

Test(node, a_process_killed_before_it_is_reaped_counts_as_gone, .timeout = 60)
{
  node_name("zombie");
  struct peer a = PEER("alloc", "512", "kill");
  cr_assert_eq(peer_value(&a, "alloc "), 0);
  /* A is a zombie until we reap it: its pid lives, its memory must not */
  struct peer b = PEER("wait", "avail", "alloc", "1024");
  cr_assert_eq(peer_value(&b, "ready"), 0);
  usleep(100000);
  peer_continue(&b);
  cr_assert_eq(peer_avail(&b, 0), GIB);
  cr_assert_eq(peer_value(&b, "alloc "), 0);
  cr_assert_eq(peer_end(&b), 0);
  cr_assert_eq(peer_end(&a), 128 + SIGKILL);
  cr_assert_not(node_exists());
}

Test(node, a_process_that_only_looked_joins_a_node_its_last_process_removed, .timeout = 60)
{
  node_name("stale");
  /* A attaches (its topology read maps the node) but holds no slot yet */
  struct peer a = PEER("sysfs", "wait", "alloc", "64", "avail");
  cr_assert_eq(peer_value(&a, "gpus "), 1);
  cr_assert_eq(peer_value(&a, "ready"), 0);
  /* B is the node's only process with a slot: leaving, it removes the node */
  struct peer b = PEER("alloc", "128", "avail");
  cr_assert_eq(peer_value(&b, "alloc "), 0);
  cr_assert_eq(peer_avail(&b, 0), GIB - 128 * MIB);
  cr_assert_eq(peer_end(&b), 0);
  cr_assert_not(node_exists());
  /* A's first /dev/kfd open finds its mapping dead and attaches to a new node */
  peer_continue(&a);
  cr_assert_eq(peer_value(&a, "alloc "), 0);
  cr_assert_eq(peer_avail(&a, 0), GIB - 64 * MIB);
  cr_assert_eq(peer_end(&a), 0);
  cr_assert_not(node_exists());
}

Test(node, the_node_refuses_what_its_vram_cannot_hold, .timeout = 60)
{
  node_name("full");
  struct peer a = PEER("alloc", "768", "wait");
  cr_assert_eq(peer_value(&a, "alloc "), 0);
  cr_assert_eq(peer_value(&a, "ready"), 0);
  struct peer b = PEER("alloc", "512", "alloc", "256", "avail");
  cr_assert_eq(peer_value(&b, "alloc "), -ENOMEM, "768 + 512 MiB do not fit in 1 GiB");
  cr_assert_eq(peer_value(&b, "alloc "), 0);
  cr_assert_eq(peer_avail(&b, 0), 0);
  cr_assert_eq(peer_end(&b), 0);
  cr_assert_eq(peer_end(&a), 0);
}

Test(node, processes_of_a_node_see_the_same_gpus, .timeout = 60)
{
  node_name("gpus");
  struct peer a = PEER_ENV("KFDSIM_GPUS=2", "ids", "alloc", "64", "1", "wait");
  char ids_a[128], ids_b[128];
  cr_assert_not_null(fgets(ids_a, sizeof(ids_a), a.out));
  cr_assert_eq(peer_value(&a, "alloc "), 0);
  cr_assert_eq(peer_value(&a, "ready"), 0);
  /* B names no GPU count: it gets the node's two, and sees A's use of the second */
  struct peer b = PEER("ids", "avail");
  cr_assert_not_null(fgets(ids_b, sizeof(ids_b), b.out));
  cr_assert_str_eq(ids_b, ids_a);
  cr_assert_eq(peer_avail(&b, 0), GIB);
  cr_assert_eq(peer_avail(&b, 1), GIB - 64 * MIB);
  cr_assert_eq(peer_end(&b), 0);
  /* C asks for four GPUs on a node of two: refused */
  struct peer c = PEER_ENV("KFDSIM_GPUS=4", "ids");
  cr_assert_lt(peer_value(&c, "open "), 0);
  cr_assert_eq(peer_end(&c), 1);
  cr_assert_eq(peer_end(&a), 0);
  cr_assert_not(node_exists());
}

Test(node, sixty_four_processes_fit_and_a_sixty_fifth_waits_its_turn, .timeout = 180)
{
  enum { N = 64 };
  static struct peer p[N];
  node_name("many");
  for (int i = 0; i < N; i++) {
    p[i] = PEER("alloc", "16", "wait");
    cr_assert_eq(peer_value(&p[i], "alloc "), 0, "process %d", i);
    cr_assert_eq(peer_value(&p[i], "ready"), 0);
  }
  struct peer extra = PEER("avail");
  cr_assert_eq(peer_value(&extra, "open "), -EAGAIN, "every slot is taken");
  cr_assert_eq(peer_end(&extra), 1);
  kill(p[0].pid, SIGKILL);
  cr_assert_eq(peer_end(&p[0]), 128 + SIGKILL);
  extra = PEER("avail");
  cr_assert_eq(peer_avail(&extra, 0), GIB - (N - 1) * 16 * MIB, "the killed one's slot is free");
  cr_assert_eq(peer_end(&extra), 0);
  for (int i = 1; i < N; i++)
    cr_assert_eq(peer_end(&p[i]), 0);
  cr_assert_not(node_exists());
}

Test(node, without_a_node_each_process_has_gpus_of_its_own, .timeout = 60)
{
  node_name("none");
  struct peer a = peer_start_env(false, NULL, (const char *const[]){ "alloc", "512", "wait", NULL });
  cr_assert_eq(peer_value(&a, "alloc "), 0);
  cr_assert_eq(peer_value(&a, "ready"), 0);
  struct peer b = peer_start_env(false, NULL, (const char *const[]){ "avail", NULL });
  cr_assert_eq(peer_avail(&b, 0), GIB);
  cr_assert_eq(peer_end(&b), 0);
  cr_assert_eq(peer_end(&a), 0);
  cr_assert_not(node_exists());
}

/* `kfdsim --node` as the parent of the program: returns the launcher's exit status. */
static int launch(const char *const *args)
{
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    setenv("LD_PRELOAD", "", 1);
    setenv("KFDSIM_LIB", PEER_PRELOAD_LIB, 1);
    execv(KFDSIM_LAUNCHER, (char *const *)args);
    _exit(127);
  }
  int st;
  cr_assert_eq(waitpid(pid, &st, 0), pid);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

Test(node, the_launcher_removes_a_node_whose_last_process_was_killed, .timeout = 60)
{
  node_name("launcher");
  /* killed without a launcher: nobody is left to remove the segment */
  struct peer a = PEER("alloc", "64", "kill");
  cr_assert_eq(peer_value(&a, "alloc "), 0);
  cr_assert_eq(peer_end(&a), 128 + SIGKILL);
  cr_assert(node_exists());
  /* the launcher sweeps the node after its program */
  cr_assert_eq(launch((const char *const[]){ KFDSIM_LAUNCHER, "--node", node, "--", "true", NULL }), 0);
  cr_assert_not(node_exists());
  /* and after a program killed under it, reporting the signal as a shell does */
  cr_assert_eq(launch((const char *const[]){ KFDSIM_LAUNCHER, "--node", node, "--vram", "1G", "--",
                                             PEER_PROG, "alloc", "64", "kill", NULL }),
               128 + SIGKILL);
  cr_assert_not(node_exists());
  cr_assert_eq(launch((const char *const[]){ KFDSIM_LAUNCHER, "--node", "bad/name", "--", "true",
                                             NULL }), 2);
}
