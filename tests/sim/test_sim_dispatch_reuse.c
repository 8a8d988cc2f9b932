/* isa_dispatch_run keeps the calling thread's worker (register file, instruction cache) from one
 * dispatch to the next. These tests check that nothing leaks between dispatches: code rewritten
 * at the same address is decoded afresh, a dispatch asking for more private memory gets it,
 * several threads dispatch at once, and multi-workgroup dispatches (which start extra threads)
 * still work. The "GPU memory" is host memory: translate() is the identity. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa.h"

/* gfx9 encodings (AMD Instinct MI200 ISA, SOPP): s_endpgm, s_trap 0; and a word no gfx9
 * encoding decodes. */
#define S_ENDPGM 0xbf810000u
#define S_TRAP_0 0xbf920000u
#define BAD_WORD 0xffffffffu

#define KD_ENTRY_OFFSET 16   /* kernel descriptor: kernel_code_entry_byte_offset */
#define CODE_OFFSET 256      /* where the test puts the code, after the descriptor */

static void *identity(void *ctx, uint64_t va, uint64_t len, bool write)
{
  (void)ctx, (void)len, (void)write;
  return (void *)(uintptr_t)va;
}

/* A page holding a zeroed kernel descriptor and, at CODE_OFFSET, `word` then s_endpgm. */
static uint8_t *kernel_page(uint32_t word)
{
  uint8_t *p = aligned_alloc(4096, 4096);
  cr_assert_not_null(p);
  memset(p, 0, 4096);
  int64_t entry = CODE_OFFSET;
  memcpy(p + KD_ENTRY_OFFSET, &entry, sizeof(entry));
  uint32_t code[2] = {word, S_ENDPGM};
  memcpy(p + CODE_OFFSET, code, sizeof(code));
  return p;
}

static void set_first_word(uint8_t *page, uint32_t word)
{
  __atomic_store_n((uint32_t *)(page + CODE_OFFSET), word, __ATOMIC_RELEASE);
}

static struct isa_result dispatch(uint8_t *page, uint32_t workgroups, uint32_t private_bytes)
{
  struct isa_dispatch d = {
    .target = ISA_GFX90A,
    .translate = identity,
    .setup_dims = 1,
    .workgroup_size = {64, 1, 1},
    .grid_size = {64 * workgroups, 1, 1},
    .private_segment_size = private_bytes,
    .kernel_object = (uint64_t)(uintptr_t)page,
  };
  struct isa_result r;
  isa_dispatch_run(&d, &r);
  return r;
}

Test(dispatch_reuse, code_rewritten_at_the_same_address_is_decoded_again)
{
  uint8_t *page = kernel_page(S_ENDPGM);
  struct isa_result r = dispatch(page, 1, 0);
  cr_assert_eq(r.status, ISA_OK, "%s", r.message);
  cr_assert_eq(r.instructions_executed, 1);

  set_first_word(page, S_TRAP_0);   /* a module replaced by another at the same address */
  r = dispatch(page, 1, 0);
  cr_assert_eq(r.status, ISA_TRAP, "stale decode: status %d (%s)", r.status, r.message);
  cr_assert_eq(r.pc, (uint64_t)(uintptr_t)(page + CODE_OFFSET));

  set_first_word(page, BAD_WORD);
  r = dispatch(page, 1, 0);
  cr_assert_eq(r.status, ISA_ILLEGAL_INSTR, "stale decode: status %d (%s)", r.status, r.message);

  set_first_word(page, S_ENDPGM);
  r = dispatch(page, 1, 0);
  cr_assert_eq(r.status, ISA_OK, "%s", r.message);
  free(page);
}

Test(dispatch_reuse, many_dispatches_in_a_row_stay_correct)
{
  /* More dispatches than the instruction cache's 16-bit generation counts, so the wrap that
   * clears the table for real is crossed. */
  uint8_t *page = kernel_page(S_ENDPGM);
  for (unsigned i = 0; i < 70000; i++) {
    set_first_word(page, i % 3 == 2 ? S_TRAP_0 : S_ENDPGM);
    struct isa_result r = dispatch(page, 1, 0);
    enum isa_status want = i % 3 == 2 ? ISA_TRAP : ISA_OK;
    cr_assert_eq(r.status, want, "dispatch %u: status %d (%s)", i, r.status, r.message);
  }
  free(page);
}

Test(dispatch_reuse, private_memory_grows_between_dispatches)
{
  uint8_t *page = kernel_page(S_ENDPGM);
  uint32_t sizes[] = {0, 16, 4096, 64, 65536, 0};
  for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
    struct isa_result r = dispatch(page, 2, sizes[i]);
    cr_assert_eq(r.status, ISA_OK, "private %u: %s", sizes[i], r.message);
    cr_assert_eq(r.waves_executed, 2);
  }
  free(page);
}

Test(dispatch_reuse, multi_workgroup_dispatches_count_every_wave)
{
  uint8_t *page = kernel_page(S_ENDPGM);
  uint32_t counts[] = {1, 2, 3, 17, 1};
  for (unsigned i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
    struct isa_result r = dispatch(page, counts[i], 0);
    cr_assert_eq(r.status, ISA_OK, "%s", r.message);
    cr_assert_eq(r.waves_executed, counts[i]);
    cr_assert_eq(r.instructions_executed, counts[i]);
  }
  free(page);
}

struct thread_arg {
  uint32_t word;
  enum isa_status want;
  unsigned bad;
};

static void *dispatch_thread(void *p)
{
  struct thread_arg *a = p;
  uint8_t *page = kernel_page(a->word);
  for (unsigned i = 0; i < 2000; i++) {
    struct isa_result r = dispatch(page, 1 + i % 2, 0);
    if (r.status != a->want)
      a->bad++;
  }
  free(page);
  return NULL;
}

Test(dispatch_reuse, threads_keep_their_own_workers)
{
  /* Each thread runs its own code; a worker shared by mistake would mix up the results. Threads
   * end while others run (each frees its kept worker on exit). */
  struct thread_arg args[4] = {{S_ENDPGM, ISA_OK, 0}, {S_TRAP_0, ISA_TRAP, 0},
                               {BAD_WORD, ISA_ILLEGAL_INSTR, 0}, {S_ENDPGM, ISA_OK, 0}};
  pthread_t t[4];
  for (int i = 0; i < 4; i++)
    cr_assert_eq(pthread_create(&t[i], NULL, dispatch_thread, &args[i]), 0);
  for (int i = 0; i < 4; i++) {
    pthread_join(t[i], NULL);
    cr_assert_eq(args[i].bad, 0, "thread %d: %u dispatches ended with another status", i,
                 args[i].bad);
  }
}
