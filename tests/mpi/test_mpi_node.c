/* MPI programs on hipkfd: mpi_node (one rank per GPU, see mpi_node.hip) under
 * `kfdsim --node NAME --gpus N -- mpirun -np N`, on 2 and 4 emulated GPUs of one shared node:
 * a halo exchange through pinned host staging, a ring allreduce through hipIpc* memory and event
 * handles, a Jacobi iteration compared with a serial run. Each rank verifies exactly; rank 0 says
 * "<case> ok". Then a rank killed with SIGKILL: its VRAM comes back to the node while the other
 * rank still holds its own, and the node's segment is gone once the job is.
 *
 * mpirun runs with --oversubscribe (CI has 2 cores for 4 ranks) and --allow-run-as-root (CI runs
 * as root); Open MPI's single-copy shared-memory path is off because it needs ptrace rights
 * containers often withhold. This suite itself runs without kfdsim. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../support/sim_node.h"

#define MIB (1ull << 20)
#define VRAM "1G"
#define VRAM_BYTES (1ull << 30)

static char node[64];

static void setup(void)
{
  setenv("KFDSIM_LIB", KFDSIM_PRELOAD_LIB, 1);
  unsetenv("LD_PRELOAD");
  unsetenv("KFDSIM_NODE");
  setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 1);
  setenv("OMPI_MCA_hwloc_base_binding_policy", "none", 1);   /* 4 ranks on 2 cores */
  setenv("ASAN_OPTIONS", "detect_leaks=0", 0);               /* a sanitizer build preloads ASan */
}

static void node_name(const char *test)
{
  snprintf(node, sizeof(node), "mpi%d-%s", (int)getpid(), test);
}

static bool node_exists(void)
{
  return sim_node_exists(node);
}

struct job {
  pid_t pid;
  FILE *out;
};

/* Start argv with its stdout on a pipe (stderr stays the test's). */
static struct job spawn(const char *const *argv)
{
  int p[2];
  cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    dup2(p[1], 1);
    execv(argv[0], (char *const *)argv);
    _exit(127);
  }
  close(p[1]);
  return (struct job){ .pid = pid, .out = fdopen(p[0], "r") };
}

static int finish(struct job *j)
{
  int st;
  cr_assert_eq(waitpid(j->pid, &st, 0), j->pid);
  fclose(j->out);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* `recover`: the job outlives a rank that dies (mpirun --enable-recovery); otherwise mpirun ends
 * the job then, so that a failing rank cannot leave the others waiting. */
static struct job start_mpi(int np, bool recover, const char *const *args)
{
  char n[8];
  snprintf(n, sizeof(n), "%d", np);
  const char *argv[32] = { KFDSIM_LAUNCHER, "--node", node, "--gpus", n, "--vram", VRAM,
                           "--profile", "gfx942", "--", MPIEXEC, "--oversubscribe",
                           "--allow-run-as-root", "-np", n };
  int k = 15;
  if (recover)
    argv[k++] = "--enable-recovery";
  argv[k++] = MPI_PROG;
  for (; *args && k < 31; args++)
    argv[k++] = *args;
  argv[k] = NULL;
  return spawn(argv);
}

/* Run one case on np ranks and np GPUs: the job must succeed and rank 0 report "<name> ok".
 * `mode` NULL: host buffers cross MPI; "device": device pointers do, which only a ROCm-aware MPI
 * takes (under any other mpi_node says "skip" and succeeds, and this test skips). */
static void run_case_in(int np, const char *name, const char *mode)
{
  char want[64], skip[64], line[256];
  snprintf(want, sizeof(want), "%s ok ranks %d ", name, np);
  snprintf(skip, sizeof(skip), "%s skip: ", name);
  node_name(name);
  struct job j = start_mpi(np, false, (const char *const[]){ name, mode, NULL });
  bool said_ok = false, said_skip = false;
  while (fgets(line, sizeof(line), j.out)) {
    said_ok |= !strncmp(line, want, strlen(want));
    said_skip |= !strncmp(line, skip, strlen(skip));
  }
  int status = finish(&j);
  cr_assert_not(node_exists(), "the node is gone with its job");
  if (said_skip && status == 0)
    cr_skip_test("%s: the MPI mpi_node was built with is not ROCm-aware", name);
  cr_assert_eq(status, 0, "mpirun -np %d mpi_node %s %s", np, name, mode ? mode : "");
  cr_assert(said_ok, "rank 0 reported '%s...'", want);
}

static void run_case(int np, const char *name) { run_case_in(np, name, NULL); }

TestSuite(mpi_np2, .init = setup, .timeout = 240);
TestSuite(mpi_np4, .init = setup, .timeout = 240);
TestSuite(mpi_kill, .init = setup, .timeout = 240);

Test(mpi_np2, halo_exchange_through_pinned_staging) { run_case(2, "halo"); }
Test(mpi_np2, ring_allreduce_through_ipc_handles) { run_case(2, "allreduce"); }
Test(mpi_np2, jacobi_matches_the_serial_run) { run_case(2, "jacobi"); }
Test(mpi_np4, halo_exchange_through_pinned_staging) { run_case(4, "halo"); }
Test(mpi_np4, ring_allreduce_through_ipc_handles) { run_case(4, "allreduce"); }
Test(mpi_np4, jacobi_matches_the_serial_run) { run_case(4, "jacobi"); }

/* GPU-aware MPI: device pointers straight to MPI (README, "Running MPI programs": Open MPI 5
 * built --with-rocm against hipkfd). */
TestSuite(mpi_device, .init = setup, .timeout = 240);

Test(mpi_device, np2_halo_exchange_of_device_cells) { run_case_in(2, "halo", "device"); }
Test(mpi_device, np2_allreduce_of_a_device_buffer) { run_case_in(2, "allreduce", "device"); }
Test(mpi_device, np2_jacobi_with_device_ghost_rows) { run_case_in(2, "jacobi", "device"); }
Test(mpi_device, np2_ring_of_4mib_device_messages) { run_case_in(2, "sendrecv", "device"); }
Test(mpi_device, np4_halo_exchange_of_device_cells) { run_case_in(4, "halo", "device"); }
Test(mpi_device, np4_allreduce_of_a_device_buffer) { run_case_in(4, "allreduce", "device"); }
Test(mpi_device, np4_jacobi_with_device_ghost_rows) { run_case_in(4, "jacobi", "device"); }
Test(mpi_device, np4_ring_of_4mib_device_messages) { run_case_in(4, "sendrecv", "device"); }

/* hipMemGetInfo's free bytes of GPUs 0 and 1, seen by another process of the node. */
static void node_free(uint64_t free_b[2])
{
  const char *argv[] = { KFDSIM_LAUNCHER, "--node", node, "--gpus", "2", "--vram", VRAM, "--",
                         MPI_PROG, "meminfo", NULL };
  struct job j = spawn(argv);
  char line[128];
  int dev;
  unsigned long long f, t;
  free_b[0] = free_b[1] = UINT64_MAX;
  while (fgets(line, sizeof(line), j.out))
    if (sscanf(line, "mem %d %llu %llu", &dev, &f, &t) == 3 && dev >= 0 && dev < 2) {
      free_b[dev] = f;
      cr_assert_eq(t, VRAM_BYTES);
    }
  cr_assert_eq(finish(&j), 0, "meminfo");
  cr_assert_neq(free_b[1], UINT64_MAX, "meminfo saw two GPUs");
}

Test(mpi_kill, a_rank_killed_with_sigkill_gives_its_memory_back)
{
  node_name("kill");
  uint64_t before[2], held[2], after_kill[2], after_job[2];
  node_free(before);
  cr_assert_eq(before[0], VRAM_BYTES);
  cr_assert_eq(before[1], VRAM_BYTES);

  /* two ranks, one per GPU, each holding 256 MiB until killed */
  struct job j = start_mpi(2, true, (const char *const[]){ "hold", "256", NULL });
  pid_t rank_pid[2] = { 0, 0 };
  char line[128];
  for (int k = 0; k < 2; k++) {
    int r, pid;
    cr_assert_not_null(fgets(line, sizeof(line), j.out), "the ranks hold their memory");
    cr_assert_eq(sscanf(line, "held %d %d", &r, &pid), 2, "%s", line);
    cr_assert(r == 0 || r == 1);
    rank_pid[r] = pid;
  }
  node_free(held);
  cr_assert_leq(held[0], before[0] - 256 * MIB, "rank 0's 256 MiB show in another process");
  cr_assert_leq(held[1], before[1] - 256 * MIB, "rank 1's 256 MiB show in another process");

  cr_assert_eq(kill(rank_pid[1], SIGKILL), 0);
  /* --enable-recovery keeps rank 0 running: the node must see rank 1's share, and only it, go */
  for (int tries = 0; tries < 200; tries++) {
    node_free(after_kill);
    if (after_kill[1] == before[1])
      break;
    usleep(50000);
  }
  cr_assert_eq(after_kill[1], before[1], "the killed rank's VRAM came back");
  cr_assert_eq(after_kill[0], held[0], "the live rank still holds its own");

  kill(j.pid, SIGTERM);   /* the launcher passes it to mpirun, which ends rank 0 */
  finish(&j);
  node_free(after_job);
  cr_assert_eq(after_job[0], before[0]);
  cr_assert_eq(after_job[1], before[1]);
  cr_assert_not(node_exists(), "nothing is left of the node");
}
