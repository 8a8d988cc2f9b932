/* Dense linear algebra: naive and shared-memory tiled SGEMM, tiled DGEMM with a register
 * block, and a padded shared-memory transpose. Inputs are small integers (times powers of two)
 * so every product and sum is exact and the result does not depend on summation order or on
 * fused multiply-add contraction. */
#include "common.h"

#define TILE 16

/* C = alpha * A * B + beta * C, row-major, A: MxK, B: KxN */
__global__ void sgemm_naive(int M, int N, int K, float alpha, const float *A, const float *B, float beta,
                            float *C) {
  int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = alpha * acc + beta * C[row * N + col];
}

__global__ void sgemm_tiled(int M, int N, int K, float alpha, const float *A, const float *B, float beta,
                            float *C) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE + 1];          /* padded: no bank conflicts on column reads */
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; k++) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = alpha * acc + beta * C[row * N + col];
}

template <class T>
static void gemm_host(int M, int N, int K, T alpha, const std::vector<T> &A, const std::vector<T> &B, T beta,
                      std::vector<T> &C) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      T acc = 0;
      for (int k = 0; k < K; k++) acc += A[i * K + k] * B[k * N + j];
      C[i * N + j] = alpha * acc + beta * C[i * N + j];
    }
}

template <class T> static void fill_small(std::vector<T> &v, kc_rng &r, T scale) {
  for (auto &x : v) x = (T)r.irange(-16, 17) * scale;
}

static int run_sgemm(bool tiled) {
  const int M = 70, N = 53, K = 45;       /* none a multiple of the tile */
  kc_rng r(tiled ? 51 : 52);
  std::vector<float> A(M * K), B(K * N), C(M * N);
  fill_small(A, r, 0.5f);
  fill_small(B, r, 0.25f);
  fill_small(C, r, 1.0f);
  kc_buf<float> dA, dB, dC;
  KC_HIP(dA.upload(A));
  KC_HIP(dB.upload(B));
  KC_HIP(dC.upload(C));
  dim3 block(TILE, TILE), grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
  if (tiled)
    sgemm_tiled<<<grid, block>>>(M, N, K, 2.0f, dA.p, dB.p, -1.5f, dC.p);
  else
    sgemm_naive<<<grid, block>>>(M, N, K, 2.0f, dA.p, dB.p, -1.5f, dC.p);
  KC_SYNC();
  std::vector<float> out;
  KC_HIP(dC.download(out));
  gemm_host(M, N, K, 2.0f, A, B, -1.5f, C);
  for (int i = 0; i < M * N; i++)
    KC_EXPECT(out[i] == C[i], "%s C[%d][%d] = %g, want %g", tiled ? "sgemm_tiled" : "sgemm_naive", i / N,
              i % N, out[i], C[i]);
  return KC_OK;
}
static int test_sgemm_naive() { return run_sgemm(false); }
static int test_sgemm_tiled() { return run_sgemm(true); }

/* DGEMM: 32x32 output tile per 16x16 block, each thread computes a 2x2 register block. */
#define DT 32
__global__ void dgemm_tiled(int M, int N, int K, double alpha, const double *A, const double *B, double beta,
                            double *C) {
  __shared__ double As[DT][TILE + 1];
  __shared__ double Bs[TILE][DT + 1];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row0 = blockIdx.y * DT, col0 = blockIdx.x * DT;
  double acc[2][2] = {{0, 0}, {0, 0}};
  for (int k0 = 0; k0 < K; k0 += TILE) {
    for (int rr = 0; rr < 2; rr++) {
      int r = ty + rr * TILE;
      As[r][tx] = (row0 + r < M && k0 + tx < K) ? A[(row0 + r) * K + k0 + tx] : 0.0;
      int c = tx + rr * TILE;
      Bs[ty][c] = (k0 + ty < K && col0 + c < N) ? B[(k0 + ty) * N + col0 + c] : 0.0;
    }
    __syncthreads();
    for (int k = 0; k < TILE; k++)
      for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) acc[i][j] += As[ty + i * TILE][k] * Bs[k][tx + j * TILE];
    __syncthreads();
  }
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) {
      int row = row0 + ty + i * TILE, col = col0 + tx + j * TILE;
      if (row < M && col < N) C[row * N + col] = alpha * acc[i][j] + beta * C[row * N + col];
    }
}
static int test_dgemm_tiled() {
  const int M = 66, N = 40, K = 37;
  kc_rng r(53);
  std::vector<double> A(M * K), B(K * N), C(M * N);
  fill_small(A, r, 0.125);
  fill_small(B, r, 1024.0);
  fill_small(C, r, 3.0);
  kc_buf<double> dA, dB, dC;
  KC_HIP(dA.upload(A));
  KC_HIP(dB.upload(B));
  KC_HIP(dC.upload(C));
  dim3 block(TILE, TILE), grid((N + DT - 1) / DT, (M + DT - 1) / DT);
  dgemm_tiled<<<grid, block>>>(M, N, K, -0.5, dA.p, dB.p, 2.0, dC.p);
  KC_SYNC();
  std::vector<double> out;
  KC_HIP(dC.download(out));
  gemm_host(M, N, K, -0.5, A, B, 2.0, C);
  for (int i = 0; i < M * N; i++)
    KC_EXPECT(out[i] == C[i], "dgemm C[%d][%d] = %.17g, want %.17g", i / N, i % N, out[i], C[i]);
  return KC_OK;
}

/* Transpose through a padded shared tile; a non-square matrix. */
__global__ void transpose_shared(int rows, int cols, const double *in, double *out) {
  __shared__ double tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  if (x < cols && y < rows) tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  if (x < rows && y < cols) out[y * rows + x] = tile[threadIdx.x][threadIdx.y];
}
static int test_transpose_shared() {
  const int rows = 50, cols = 83;
  std::vector<double> in(rows * cols);
  for (int i = 0; i < rows * cols; i++) in[i] = i * 1.0009765625 - 77.0;
  kc_buf<double> din, dout;
  KC_HIP(din.upload(in));
  KC_HIP(dout.zero(rows * cols));
  transpose_shared<<<dim3((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE), dim3(TILE, TILE)>>>(
      rows, cols, din.p, dout.p);
  KC_SYNC();
  std::vector<double> out;
  KC_HIP(dout.download(out));
  for (int y = 0; y < rows; y++)
    for (int x = 0; x < cols; x++)
      KC_EXPECT(out[x * rows + y] == in[y * cols + x], "transpose out[%d][%d] = %g, want %g", x, y,
                out[x * rows + y], in[y * cols + x]);
  return KC_OK;
}

/* Matrix-vector product with one wave per row and a shared-memory reduction of the lanes. */
__global__ void sgemv_rows(int M, int K, const float *A, const float *x, float *y) {
  __shared__ float part[4][64];
  int wave = threadIdx.x / 64, lane = threadIdx.x % 64;
  int row = blockIdx.x * 4 + wave;
  float acc = 0.0f;
  if (row < M)
    for (int k = lane; k < K; k += 64) acc += A[row * K + k] * x[k];
  part[wave][lane] = acc;
  __syncthreads();
  if (lane == 0 && row < M) {
    float s = 0.0f;
    for (int l = 0; l < 64; l++) s += part[wave][l];
    y[row] = s;
  }
}
static int test_sgemv_rows() {
  const int M = 37, K = 300;
  kc_rng r(54);
  std::vector<float> A(M * K), x(K), y(M);
  fill_small(A, r, 1.0f);
  fill_small(x, r, 0.5f);
  kc_buf<float> dA, dx, dy;
  KC_HIP(dA.upload(A));
  KC_HIP(dx.upload(x));
  KC_HIP(dy.zero(M));
  sgemv_rows<<<(M + 3) / 4, 256>>>(M, K, dA.p, dx.p, dy.p);
  KC_SYNC();
  std::vector<float> out;
  KC_HIP(dy.download(out));
  for (int i = 0; i < M; i++) {
    float want = 0;
    for (int k = 0; k < K; k++) want += A[i * K + k] * x[k];
    KC_EXPECT(out[i] == want, "sgemv y[%d] = %g, want %g", i, out[i], want);
  }
  return KC_OK;
}

static const kc_test tests[] = {
    {"sgemm_naive", test_sgemm_naive},
    {"sgemm_tiled", test_sgemm_tiled},
    {"dgemm_tiled", test_dgemm_tiled},
    {"transpose_shared", test_transpose_shared},
    {"sgemv_rows", test_sgemv_rows},
};
KC_MAIN("gemm", tests)
