/* Shared frame for the per-instruction tests (test_isa_alu.c, test_isa_op_*.c): every kernel
 * in kernels/alu_tests.s and kernels/op_*.s has the frame of kernels/op_frame.inc (kernarg =
 * {a, b, c, out}, one wave of 64 lanes, an EXEC mask with holes while the instruction runs).
 * A test fills a/b/c from an edge-value set, runs the kernel on the interpreter and compares
 * every lane with a reference computed here on the CPU; lanes outside EXEC must keep
 * OP_MARK. */
#ifndef TESTS_ISA_OP_CHECK_H
#define TESTS_ISA_OP_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harness.h"

#define OP_HOLES 0xf0f0ffff0f0ffffeull /* the EXEC mask op_frame.inc's HOLES sets */
#define OP_MARK 0xdeadbeefu            /* what the frame stores in lanes outside EXEC */
#define OP_N(a) (sizeof(a) / sizeof((a)[0]))

/* lane reference: a, b, c are the lane's inputs, av the whole `a` array (for cross-lane ops) */
typedef uint32_t (*op_ref32)(uint32_t a, uint32_t b, uint32_t c, unsigned lane, const uint32_t *av);
typedef uint64_t (*op_ref64)(uint64_t a, uint64_t b, uint64_t c, unsigned lane);

/* How a lane's result compares: bit for bit; as f32/f16 where any NaN matches any NaN (the ISA
 * quiets NaNs but does not promise which payload survives); packed f16 pairs; the low 16 bits
 * only (as f16, or as bits). */
enum op_cmp { BITS, FP32, FP16, PK16, LO16, LO16B };

struct op_ctx {
  struct harness h;
  uint32_t *a, *b, *c, *out; /* 64 x 8 bytes each */
};

/* Load build/tests/isa/kernels/<file>_<arch>.so and allocate a/b/c/out. */
void op_setup(struct op_ctx *x, const char *file, enum isa_target t);
/* Run one wave (64 work-items, one workgroup) of `kernel`; asserts it ends with ISA_OK. */
void op_run(struct op_ctx *x, const char *kernel);
void op_close(struct op_ctx *x);
bool op_same(uint32_t got, uint32_t want, enum op_cmp how);
const char *op_target_name(enum isa_target t);

/* Fill a/b/c from `set` with different strides (so lanes see many combinations), run, and
 * compare every lane (32-bit results, or 64-bit ones for op_check64). */
void op_check32(const char *file, enum isa_target t, const char *kernel, const uint32_t *set,
                size_t n, op_ref32 ref, enum op_cmp how);
void op_check64(const char *file, enum isa_target t, const char *kernel, const uint64_t *set,
                size_t n, op_ref64 ref, bool fp);

/* bit casts and IEEE half conversions (round to nearest even) */
float op_f(uint32_t u);
uint32_t op_u(float f);
double op_d(uint64_t u);
uint64_t op_ud(double d);
float op_h2f(uint16_t h);
uint16_t op_f2h(float f);

/* edge-value sets: NaN (quiet and signalling), infinities, denormals, -0, extremes, overflow */
#define OP_F32_EDGES_N 32
extern const uint32_t op_f32_edges[OP_F32_EDGES_N];
#define OP_I32_EDGES_N 24
extern const uint32_t op_i32_edges[OP_I32_EDGES_N];
#define OP_F16_EDGES_N 28
extern const uint32_t op_f16_edges[OP_F16_EDGES_N]; /* low halves; the high halves carry junk */
#define OP_F64_EDGES_N 20
extern const uint64_t op_f64_edges[OP_F64_EDGES_N];
#define OP_I64_EDGES_N 15
extern const uint64_t op_i64_edges[OP_I64_EDGES_N];

#endif
