// A rank-per-GPU MPI program on hipkfd, run by test_mpi_node under `kfdsim --node` and mpirun.
// Each rank takes GPU (local rank % device count), as HPC codes do, and runs one case:
//
//   halo       a periodic 1-D halo exchange of device buffers through pinned host staging
//   allreduce  a ring allreduce of device buffers that ranks reach through hipIpc* memory
//              handles exchanged over MPI, ordered by hipIpc* events
//   jacobi     a 2-D Jacobi iteration split in row blocks, halos staged through pinned memory,
//              gathered on rank 0 and compared bit for bit with a serial run
//   hold MIB   allocate MIB MiB on the rank's GPU, print "held <rank> <pid>", wait to be killed
//   meminfo    (without MPI) "mem <device> <free> <total>" for every device
//
// `mpi_node CASE device` runs halo, allreduce and jacobi with device pointers handed to MPI
// itself (a GPU-aware MPI, Open MPI 5 built --with-rocm, copies them), plus `sendrecv`, a ring
// of large device messages. Under an MPI that is not ROCm-aware, rank 0 prints
// "<case> skip: MPI is not ROCm-aware" and the job ends with status 0 (a failed rank would have
// mpirun report it as an error).
//
// Rank 0 prints "<case> ok ..." when every rank verified its result exactly; a mismatch prints
// FAIL and aborts the job with status 1.
#include <hip/hip_runtime.h>
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>   // Open MPI's extensions: MPIX_Query_rocm_support
#endif

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK(call)                                                                            \
  do {                                                                                         \
    hipError_t e_ = (call);                                                                    \
    if (e_ != hipSuccess) {                                                                    \
      fprintf(stderr, "rank %d: %s failed: %s (%s:%d)\n", g_rank, #call, hipGetErrorName(e_),  \
              __FILE__, __LINE__);                                                             \
      MPI_Abort(MPI_COMM_WORLD, 2);                                                            \
    }                                                                                          \
  } while (0)

static int g_rank, g_size;
static int g_device_ptrs;   // pass device pointers to MPI (the `device` mode)

// Whether this MPI copies device memory itself. Open MPI says so at compile time
// (MPIX_ROCM_AWARE_SUPPORT, 1 when built --with-rocm) and at run time (its ROCm component found
// a GPU during MPI_Init).
static int mpi_rocm_aware(void)
{
#if defined(MPIX_ROCM_AWARE_SUPPORT) && MPIX_ROCM_AWARE_SUPPORT
  return MPIX_Query_rocm_support();
#else
  return 0;
#endif
}

static void fail(const char *what, long long at, long long got, long long want)
{
  fprintf(stderr, "FAIL rank %d %s at %lld: got %lld, expected %lld\n", g_rank, what, at, got,
          want);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

// Every rank's verdict, combined: 0 when all passed.
static int all_passed(int bad)
{
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return !any;
}

// The node-local rank: Open MPI's environment, else a shared-memory split of the world.
static int local_rank(void)
{
  const char *s = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
  if (s && *s)
    return atoi(s);
  MPI_Comm local;
  int r;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
  MPI_Comm_rank(local, &r);
  MPI_Comm_free(&local);
  return r;
}

static int select_device(void)
{
  int count = 0;
  CHECK(hipGetDeviceCount(&count));
  int dev = local_rank() % count;
  CHECK(hipSetDevice(dev));
  return dev;
}

// ---- (a) halo exchange ------------------------------------------------------------------------

#define HALO_N 4096   // interior cells per rank; cells 0 and N+1 are the ghosts

__global__ void halo_fill(int *u, int n, int rank)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    u[i + 1] = (rank * n + i) * 3 + 1;   // a value of the global index
}

// out[i] = left + 2 * centre + right over the interior, ghosts included.
__global__ void halo_stencil(const int *u, int *out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = u[i] + 2 * u[i + 1] + u[i + 2];
}

static int global_value(long long g, long long total)
{
  g = ((g % total) + total) % total;   // periodic
  return (int)(g * 3 + 1);
}

static int run_halo(void)
{
  const int n = HALO_N;
  const int left = (g_rank + g_size - 1) % g_size, right = (g_rank + 1) % g_size;
  int *u, *out, *stage;   // stage: [send left, send right, recv left, recv right]
  CHECK(hipMalloc(&u, (n + 2) * sizeof(int)));
  CHECK(hipMalloc(&out, n * sizeof(int)));
  CHECK(hipHostMalloc(&stage, 4 * sizeof(int), hipHostMallocDefault));
  halo_fill<<<(n + 255) / 256, 256>>>(u, n, g_rank);
  CHECK(hipGetLastError());
  if (g_device_ptrs) {
    // the boundary cells straight into the neighbours' ghost cells; MPI copies device memory
    // without our stream, so the fill must be done first
    CHECK(hipDeviceSynchronize());
    MPI_Sendrecv(u + 1, 1, MPI_INT, left, 0, u + n + 1, 1, MPI_INT, right, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(u + n, 1, MPI_INT, right, 1, u, 1, MPI_INT, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
  } else {
    // boundary cells down to pinned memory, across MPI, up into the ghost cells
    CHECK(hipMemcpy(&stage[0], u + 1, sizeof(int), hipMemcpyDeviceToHost));
    CHECK(hipMemcpy(&stage[1], u + n, sizeof(int), hipMemcpyDeviceToHost));
    MPI_Sendrecv(&stage[0], 1, MPI_INT, left, 0, &stage[3], 1, MPI_INT, right, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&stage[1], 1, MPI_INT, right, 1, &stage[2], 1, MPI_INT, left, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(hipMemcpy(u, &stage[2], sizeof(int), hipMemcpyHostToDevice));
    CHECK(hipMemcpy(u + n + 1, &stage[3], sizeof(int), hipMemcpyHostToDevice));
  }
  halo_stencil<<<(n + 255) / 256, 256>>>(u, out, n);
  CHECK(hipGetLastError());
  int *host = (int *)malloc(n * sizeof(int));
  CHECK(hipMemcpy(host, out, n * sizeof(int), hipMemcpyDeviceToHost));
  long long total = (long long)n * g_size, base = (long long)g_rank * n;
  for (int i = 0; i < n; i++) {
    long long g = base + i;
    int want = global_value(g - 1, total) + 2 * global_value(g, total) + global_value(g + 1, total);
    if (host[i] != want)
      fail("halo", g, host[i], want);
  }
  free(host);
  CHECK(hipHostFree(stage));
  CHECK(hipFree(out));
  CHECK(hipFree(u));
  int ok = all_passed(0);
  if (g_rank == 0 && ok)
    printf("halo ok ranks %d cells %lld\n", g_size, total);
  return ok ? 0 : 1;
}

// ---- (b) ring allreduce over hipIpc* ---------------------------------------------------------------

#define RED_N (64 * 1024)   // ints per rank, split into one chunk per rank

__global__ void red_fill(int *d, int n, int rank)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    d[i] = (rank + 1) * (i % 1000 + 1);
}

__global__ void red_add(int *dst, const int *src, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    dst[i] += src[i];   // src is the left neighbour's buffer, reached through IPC
}

struct ring {
  int *mine;
  int *peer[2];                 // left and right neighbours' buffers (opened IPC handles)
  hipEvent_t done;              // this rank's step marker (interprocess)
  hipEvent_t peer_done[2];      // the neighbours' markers
  hipStream_t stream;
  int left, right;
};

static void ring_open(struct ring *r, int n)
{
  r->left = (g_rank + g_size - 1) % g_size;
  r->right = (g_rank + 1) % g_size;
  CHECK(hipMalloc(&r->mine, n * sizeof(int)));
  CHECK(hipStreamCreate(&r->stream));
  CHECK(hipEventCreateWithFlags(&r->done, hipEventInterprocess | hipEventDisableTiming));
  hipIpcMemHandle_t mh, *mhs = (hipIpcMemHandle_t *)malloc(g_size * sizeof(mh));
  hipIpcEventHandle_t eh, *ehs = (hipIpcEventHandle_t *)malloc(g_size * sizeof(eh));
  CHECK(hipIpcGetMemHandle(&mh, r->mine));
  CHECK(hipIpcGetEventHandle(&eh, r->done));
  MPI_Allgather(&mh, sizeof(mh), MPI_BYTE, mhs, sizeof(mh), MPI_BYTE, MPI_COMM_WORLD);
  MPI_Allgather(&eh, sizeof(eh), MPI_BYTE, ehs, sizeof(eh), MPI_BYTE, MPI_COMM_WORLD);
  int nb[2] = { r->left, r->right };
  for (int k = 0; k < 2; k++) {
    if (k == 1 && r->right == r->left) {   // two ranks: one neighbour on both sides
      r->peer[1] = r->peer[0];
      r->peer_done[1] = r->peer_done[0];
      break;
    }
    CHECK(hipIpcOpenMemHandle((void **)&r->peer[k], mhs[nb[k]], hipIpcMemLazyEnablePeerAccess));
    CHECK(hipIpcOpenEventHandle(&r->peer_done[k], ehs[nb[k]]));
  }
  free(mhs);
  free(ehs);
}

static void ring_close(struct ring *r)
{
  CHECK(hipIpcCloseMemHandle(r->peer[0]));
  CHECK(hipEventDestroy(r->peer_done[0]));
  if (r->right != r->left) {
    CHECK(hipIpcCloseMemHandle(r->peer[1]));
    CHECK(hipEventDestroy(r->peer_done[1]));
  }
  // nobody may still read our buffer when it goes
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(hipEventDestroy(r->done));
  CHECK(hipStreamDestroy(r->stream));
  CHECK(hipFree(r->mine));
}

// End of a step: mark our work, and make the next step's work wait for both neighbours' (the
// left one wrote what we read next; the right one read what we write next).
static void ring_step(struct ring *r)
{
  CHECK(hipEventRecord(r->done, r->stream));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(hipStreamWaitEvent(r->stream, r->peer_done[0], 0));
  CHECK(hipStreamWaitEvent(r->stream, r->peer_done[1], 0));
}

// Device mode: MPI_Allreduce itself, in place on a device buffer.
static int run_allreduce_mpi(void)
{
  const int n = RED_N;
  int *d;
  CHECK(hipMalloc(&d, n * sizeof(int)));
  red_fill<<<(n + 255) / 256, 256>>>(d, n, g_rank);
  CHECK(hipGetLastError());
  CHECK(hipDeviceSynchronize());
  MPI_Allreduce(MPI_IN_PLACE, d, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int *host = (int *)malloc(n * sizeof(int));
  CHECK(hipMemcpy(host, d, n * sizeof(int), hipMemcpyDeviceToHost));
  int sum_ranks = g_size * (g_size + 1) / 2;
  for (int i = 0; i < n; i++)
    if (host[i] != sum_ranks * (i % 1000 + 1))
      fail("allreduce", i, host[i], sum_ranks * (i % 1000 + 1));
  free(host);
  CHECK(hipFree(d));
  int ok = all_passed(0);
  if (g_rank == 0 && ok)
    printf("allreduce ok ranks %d ints %d\n", g_size, n);
  return ok ? 0 : 1;
}

static int run_allreduce(void)
{
  if (g_device_ptrs)
    return run_allreduce_mpi();

  const int n = RED_N, p = g_size, chunk = n / p;
  struct ring r;
  ring_open(&r, n);
  red_fill<<<(n + 255) / 256, 256, 0, r.stream>>>(r.mine, n, g_rank);
  CHECK(hipGetLastError());
  ring_step(&r);
  // reduce-scatter: at step s, add the left neighbour's chunk (rank - 1 - s) into ours
  for (int s = 0; s < p - 1; s++) {
    int c = ((g_rank - 1 - s) % p + p) % p;
    red_add<<<(chunk + 255) / 256, 256, 0, r.stream>>>(r.mine + c * chunk, r.peer[0] + c * chunk,
                                                       chunk);
    CHECK(hipGetLastError());
    ring_step(&r);
  }
  // allgather: at step s, copy the left neighbour's complete chunk (rank - s)
  for (int s = 0; s < p - 1; s++) {
    int c = ((g_rank - s) % p + p) % p;
    CHECK(hipMemcpyAsync(r.mine + c * chunk, r.peer[0] + c * chunk, chunk * sizeof(int),
                         hipMemcpyDeviceToDevice, r.stream));
    ring_step(&r);
  }
  CHECK(hipStreamSynchronize(r.stream));
  int *host = (int *)malloc(n * sizeof(int));
  CHECK(hipMemcpy(host, r.mine, n * sizeof(int), hipMemcpyDeviceToHost));
  int sum_ranks = p * (p + 1) / 2;
  for (int i = 0; i < chunk * p; i++)
    if (host[i] != sum_ranks * (i % 1000 + 1))
      fail("allreduce", i, host[i], sum_ranks * (i % 1000 + 1));
  free(host);
  ring_close(&r);
  int ok = all_passed(0);
  if (g_rank == 0 && ok)
    printf("allreduce ok ranks %d ints %d\n", p, chunk * p);
  return ok ? 0 : 1;
}

// ---- (c) Jacobi --------------------------------------------------------------------------------

#define JX 64        // columns
#define JY 64        // rows of the whole grid (a multiple of every rank count used)
#define JITER 40

// One sweep over rows [1, rows] of a block with one ghost row above and below; the outer
// columns and the grid's top and bottom rows are fixed boundary values.
__global__ void jacobi_sweep(const double *u, double *v, int rows, int first_row)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y + 1;
  if (x >= JX || y > rows)
    return;
  int gy = first_row + y - 1;
  size_t at = (size_t)y * JX + x;
  if (x == 0 || x == JX - 1 || gy == 0 || gy == JY - 1)
    v[at] = u[at];
  else
    v[at] = 0.25 * (u[at - JX] + u[at + JX] + u[at - 1] + u[at + 1]);
}

static double jacobi_initial(int gy, int x)
{
  if (gy == 0)
    return 100.0 + x;                    // hot top edge
  if (x == 0)
    return 50.0;
  return (double)((gy * 31 + x * 17) % 13);
}

// The same sweep on the host: the reference, with the same expression in the same order.
static void jacobi_serial(double *grid)
{
  double *next = (double *)malloc(sizeof(double) * JX * JY);
  for (int it = 0; it < JITER; it++) {
    for (int y = 0; y < JY; y++)
      for (int x = 0; x < JX; x++) {
        size_t at = (size_t)y * JX + x;
        if (x == 0 || x == JX - 1 || y == 0 || y == JY - 1)
          next[at] = grid[at];
        else
          next[at] = 0.25 * (grid[at - JX] + grid[at + JX] + grid[at - 1] + grid[at + 1]);
      }
    memcpy(grid, next, sizeof(double) * JX * JY);
  }
  free(next);
}

// Ghost rows: our first and last rows to the neighbours, theirs into our ghosts, through
// pinned host buffers (no neighbour above rank 0 or below the last rank).
static void jacobi_exchange(double *u, int rows, double *stage)
{
  const int up = g_rank - 1, down = g_rank + 1;
  double *send_up = stage, *send_down = stage + JX, *recv_up = stage + 2 * JX,
         *recv_down = stage + 3 * JX;
  if (g_device_ptrs) {   // MPI reads and writes the device rows themselves
    CHECK(hipDeviceSynchronize());
    send_up = u + JX;
    send_down = u + (size_t)rows * JX;
    recv_up = u;
    recv_down = u + (size_t)(rows + 1) * JX;
  } else {
    CHECK(hipMemcpy(send_up, u + JX, JX * sizeof(double), hipMemcpyDeviceToHost));
    CHECK(hipMemcpy(send_down, u + (size_t)rows * JX, JX * sizeof(double),
                    hipMemcpyDeviceToHost));
  }
  MPI_Request req[4];
  int n = 0;
  if (up >= 0) {
    MPI_Isend(send_up, JX, MPI_DOUBLE, up, 0, MPI_COMM_WORLD, &req[n++]);
    MPI_Irecv(recv_up, JX, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &req[n++]);
  }
  if (down < g_size) {
    MPI_Isend(send_down, JX, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, &req[n++]);
    MPI_Irecv(recv_down, JX, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, &req[n++]);
  }
  MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
  if (g_device_ptrs)
    return;
  if (up >= 0)
    CHECK(hipMemcpy(u, recv_up, JX * sizeof(double), hipMemcpyHostToDevice));
  if (down < g_size)
    CHECK(hipMemcpy(u + (size_t)(rows + 1) * JX, recv_down, JX * sizeof(double),
                    hipMemcpyHostToDevice));
}

static int run_jacobi(void)
{
  const int rows = JY / g_size, first = g_rank * rows;
  const size_t block = (size_t)(rows + 2) * JX;
  double *host = (double *)calloc(block, sizeof(double)), *u, *v, *stage;
  for (int y = 1; y <= rows; y++)
    for (int x = 0; x < JX; x++)
      host[(size_t)y * JX + x] = jacobi_initial(first + y - 1, x);
  CHECK(hipMalloc(&u, block * sizeof(double)));
  CHECK(hipMalloc(&v, block * sizeof(double)));
  CHECK(hipHostMalloc(&stage, 4 * JX * sizeof(double), hipHostMallocDefault));
  CHECK(hipMemcpy(u, host, block * sizeof(double), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(v, host, block * sizeof(double), hipMemcpyHostToDevice));
  for (int it = 0; it < JITER; it++) {
    jacobi_exchange(u, rows, stage);
    jacobi_sweep<<<dim3(1, rows), JX>>>(u, v, rows, first);
    CHECK(hipGetLastError());
    double *t = u;
    u = v;
    v = t;
  }
  CHECK(hipMemcpy(host, u, block * sizeof(double), hipMemcpyDeviceToHost));
  double *all = g_rank == 0 ? (double *)malloc(sizeof(double) * JX * JY) : NULL;
  MPI_Gather(host + JX, rows * JX, MPI_DOUBLE, all, rows * JX, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  int bad = 0;
  if (g_rank == 0) {
    double *ref = (double *)malloc(sizeof(double) * JX * JY);
    for (int y = 0; y < JY; y++)
      for (int x = 0; x < JX; x++)
        ref[(size_t)y * JX + x] = jacobi_initial(y, x);
    jacobi_serial(ref);
    for (int i = 0; i < JX * JY && !bad; i++)
      if (memcmp(&all[i], &ref[i], sizeof(double))) {   // bit for bit
        fprintf(stderr, "FAIL jacobi at (%d,%d): %.17g, serial %.17g\n", i / JX, i % JX, all[i],
                ref[i]);
        bad = 1;
      }
    free(ref);
    free(all);
  }
  CHECK(hipHostFree(stage));
  CHECK(hipFree(v));
  CHECK(hipFree(u));
  free(host);
  int ok = all_passed(bad);
  if (g_rank == 0 && ok)
    printf("jacobi ok ranks %d grid %dx%d iterations %d\n", g_size, JX, JY, JITER);
  return ok ? 0 : 1;
}

// ---- (d) large device messages around the ring (device mode only) ------------------------------

#define RING_BYTES (4 << 20)   // beyond every eager limit: MPI's rendezvous path

__global__ void ring_fill(unsigned *d, size_t n, unsigned seed)
{
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    d[i] = seed * 2654435761u + (unsigned)i;
}

static int run_sendrecv(void)
{
  const size_t n = RING_BYTES / sizeof(unsigned);
  const int left = (g_rank + g_size - 1) % g_size, right = (g_rank + 1) % g_size;
  unsigned *out, *in;
  CHECK(hipMalloc(&out, RING_BYTES));
  CHECK(hipMalloc(&in, RING_BYTES));
  CHECK(hipMemset(in, 0xff, RING_BYTES));
  ring_fill<<<(unsigned)((n + 255) / 256), 256>>>(out, n, (unsigned)g_rank + 1);
  CHECK(hipGetLastError());
  CHECK(hipDeviceSynchronize());
  MPI_Sendrecv(out, (int)n, MPI_UNSIGNED, right, 7, in, (int)n, MPI_UNSIGNED, left, 7,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  unsigned *host = (unsigned *)malloc(RING_BYTES);
  CHECK(hipMemcpy(host, in, RING_BYTES, hipMemcpyDeviceToHost));
  for (size_t i = 0; i < n; i++) {
    unsigned want = ((unsigned)left + 1) * 2654435761u + (unsigned)i;
    if (host[i] != want)
      fail("sendrecv", (long long)i, host[i], want);
  }
  free(host);
  CHECK(hipFree(in));
  CHECK(hipFree(out));
  int ok = all_passed(0);
  if (g_rank == 0 && ok)
    printf("sendrecv ok ranks %d bytes %d\n", g_size, RING_BYTES);
  return ok ? 0 : 1;
}

// ---- memory held, and what the node has left -------------------------------------------------

static int run_hold(long mib)
{
  void *p;
  CHECK(hipMalloc(&p, (size_t)mib << 20));
  CHECK(hipMemset(p, 0x5a, (size_t)mib << 20));
  CHECK(hipDeviceSynchronize());
  printf("held %d %d\n", g_rank, (int)getpid());
  fflush(stdout);
  MPI_Barrier(MPI_COMM_WORLD);
  for (;;)
    pause();   // until the test kills us
}

static int run_meminfo(void)
{
  int count = 0;
  if (hipGetDeviceCount(&count) != hipSuccess)
    return 2;
  for (int d = 0; d < count; d++) {
    size_t free_b = 0, total = 0;
    if (hipSetDevice(d) != hipSuccess || hipMemGetInfo(&free_b, &total) != hipSuccess)
      return 2;
    printf("mem %d %zu %zu\n", d, free_b, total);
  }
  return 0;
}

int main(int argc, char **argv)
{
  const char *what = argc > 1 ? argv[1] : "";
  if (!strcmp(what, "meminfo"))
    return run_meminfo();
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  int dev = select_device();
  if (getenv("MPI_NODE_VERBOSE"))
    fprintf(stderr, "rank %d of %d on device %d\n", g_rank, g_size, dev);
  g_device_ptrs = argc > 2 && !strcmp(argv[2], "device");
  if (g_device_ptrs && !mpi_rocm_aware()) {
    if (g_rank == 0)
      printf("%s skip: MPI is not ROCm-aware\n", what);
    MPI_Finalize();
    return 0;
  }
  int r = 2;
  if (!strcmp(what, "halo"))
    r = run_halo();
  else if (!strcmp(what, "allreduce"))
    r = run_allreduce();
  else if (!strcmp(what, "jacobi"))
    r = run_jacobi();
  else if (!strcmp(what, "sendrecv") && g_device_ptrs)
    r = run_sendrecv();
  else if (!strcmp(what, "hold") && argc > 2)
    r = run_hold(atol(argv[2]));
  else if (g_rank == 0)
    fprintf(stderr, "usage: mpi_node halo|allreduce|jacobi [device] | sendrecv device | "
                    "hold MIB | meminfo\n");
  MPI_Finalize();
  return r;
}
