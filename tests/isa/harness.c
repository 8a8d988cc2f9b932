/* Test host for the interpreter; see harness.h. */
#include "harness.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static void *translate(void *ctx, uint64_t va, uint64_t len, bool write)
{
  struct harness *h = ctx;
  (void)write;
  for (unsigned i = 0; i < h->nregions; i++) {
    uint64_t b = (uint64_t)(uintptr_t)h->regions[i].p;
    if (va >= b && len <= h->regions[i].len && va - b <= h->regions[i].len - len)
      return (void *)(uintptr_t)va;
  }
  return NULL;
}

static void sendmsg_cb(void *ctx, uint32_t msg, uint32_t m0)
{
  struct harness *h = ctx;
  if ((msg & 0xf) == 1) {
    __atomic_fetch_add(&h->hostcall_msgs, 1, __ATOMIC_SEQ_CST);
    h->last_m0 = m0;
  }
}

static int add_region(struct harness *h, void *p, size_t len)
{
  if (h->nregions >= HARNESS_MAX_REGIONS)
    return -ENOSPC;
  h->regions[h->nregions].p = p;
  h->regions[h->nregions].len = len;
  h->nregions++;
  return 0;
}

void *harness_alloc(struct harness *h, size_t len)
{
  size_t sz = (len + 4095) & ~(size_t)4095;
  void *p = aligned_alloc(4096, sz ? sz : 4096);
  if (!p)
    return NULL;
  memset(p, 0, sz ? sz : 4096);
  if (add_region(h, p, len)) {
    free(p);
    return NULL;
  }
  return p;
}

int harness_open(struct harness *h, const char *path, enum isa_target target)
{
  memset(h, 0, sizeof(*h));
  h->target = target;
  h->host_threads = 2;
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    return -errno;
  struct stat st;
  if (fstat(fd, &st)) {
    close(fd);
    return -errno;
  }
  uint8_t *f = malloc((size_t)st.st_size);
  if (!f || read(fd, f, (size_t)st.st_size) != st.st_size) {
    free(f);
    close(fd);
    return -EIO;
  }
  close(fd);
  h->file = f;
  h->file_size = (size_t)st.st_size;
  const Elf64_Ehdr *eh = (const void *)f;
  if (h->file_size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_machine != EM_AMDGPU)
    return -ENOEXEC;
  size_t top = 0;
  const Elf64_Phdr *ph = (const void *)(f + eh->e_phoff);
  for (int i = 0; i < eh->e_phnum; i++)
    if (ph[i].p_type == PT_LOAD && ph[i].p_vaddr + ph[i].p_memsz > top)
      top = ph[i].p_vaddr + ph[i].p_memsz;
  h->image = harness_alloc(h, top);
  if (!h->image)
    return -ENOMEM;
  h->image_size = top;
  for (int i = 0; i < eh->e_phnum; i++)
    if (ph[i].p_type == PT_LOAD && ph[i].p_offset + ph[i].p_filesz <= h->file_size)
      memcpy(h->image + ph[i].p_vaddr, f + ph[i].p_offset, ph[i].p_filesz);
  return 0;
}

void harness_close(struct harness *h)
{
  for (unsigned i = 0; i < h->nregions; i++)
    free(h->regions[i].p);
  free((void *)h->file);
  memset(h, 0, sizeof(*h));
}

/* Address of symbol `name` in the loaded image (symtab or dynsym), or 0. */
static uint64_t find_symbol(const struct harness *h, const char *name)
{
  const Elf64_Ehdr *eh = (const void *)h->file;
  const Elf64_Shdr *sh = (const void *)(h->file + eh->e_shoff);
  for (int i = 0; i < eh->e_shnum; i++) {
    if (sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM)
      continue;
    const Elf64_Sym *sym = (const void *)(h->file + sh[i].sh_offset);
    const char *str = (const char *)h->file + sh[sh[i].sh_link].sh_offset;
    size_t n = sh[i].sh_size / sizeof(*sym);
    for (size_t j = 0; j < n; j++)
      if (!strcmp(str + sym[j].st_name, name))
        return sym[j].st_value;
  }
  return 0;
}

int harness_run(struct harness *h, const struct harness_launch *l, struct isa_result *r)
{
  char kd[256];
  snprintf(kd, sizeof(kd), "%s.kd", l->name);
  uint64_t off = find_symbol(h, kd);
  if (!off)
    return -ENOENT;
  /* Explicit arguments, then the code object v5 hidden arguments at the next 8-byte boundary
   * (AMDGPUUsage "Code Object V5 Metadata": block counts, group sizes, remainders, grid dims). */
  uint32_t kd_kernarg_size;
  memcpy(&kd_kernarg_size, h->image + off + 8, 4);
  size_t hidden = (l->kernarg_size + 7) & ~(size_t)7;
  size_t total = hidden + 256 > kd_kernarg_size ? hidden + 256 : kd_kernarg_size;
  /* One kernarg buffer and one packet per harness, reused: a test or benchmark may launch
   * more kernels than there are regions. */
  if (total > h->karg_cap) {
    h->karg = harness_alloc(h, total);
    if (!h->karg)
      return -ENOMEM;
    h->karg_cap = (total + 4095) & ~(size_t)4095;
  }
  uint8_t *karg = h->karg;
  memset(karg, 0, total);
  if (l->kernarg_size)
    memcpy(karg, l->kernarg, l->kernarg_size);
  uint16_t dims = 1;
  for (int i = 0; i < 3; i++) {
    uint32_t g = l->grid[i] ? l->grid[i] : 1, b = l->block[i] ? l->block[i] : 1;
    uint32_t count = g / b;
    uint16_t bs = (uint16_t)b, rem = (uint16_t)(g % b);
    memcpy(karg + hidden + 4 * i, &count, 4);
    memcpy(karg + hidden + 12 + 2 * i, &bs, 2);
    memcpy(karg + hidden + 18 + 2 * i, &rem, 2);
    if (g > 1 || b > 1)
      dims = (uint16_t)(i + 1);
  }
  memcpy(karg + hidden + 64, &dims, 2);
  /* The AQL dispatch packet (hsa_kernel_dispatch_packet_t layout): kernels read the grid size
   * from it through the dispatch pointer. */
  if (!h->pkt)
    h->pkt = harness_alloc(h, 64);
  uint8_t *pkt = h->pkt;
  if (!pkt)
    return -ENOMEM;
  memset(pkt, 0, 64);
  for (int i = 0; i < 3; i++) {
    uint16_t b = (uint16_t)(l->block[i] ? l->block[i] : 1);
    uint32_t g = l->grid[i] ? l->grid[i] : 1;
    memcpy(pkt + 4 + 2 * i, &b, 2);
    memcpy(pkt + 12 + 4 * i, &g, 4);
  }
  uint16_t setup = 3;
  memcpy(pkt + 2, &setup, 2);
  uint64_t ko = (uint64_t)(uintptr_t)(h->image + off), ka = (uint64_t)(uintptr_t)karg;
  memcpy(pkt + 32, &ko, 8);
  memcpy(pkt + 40, &ka, 8);
  struct isa_dispatch d = {
    .packet_va = (uint64_t)(uintptr_t)pkt,
    .target = h->target,
    .mem_ctx = h,
    .translate = translate,
    .msg_ctx = h,
    .sendmsg = sendmsg_cb,
    .setup_dims = 3,
    .kernel_object = (uint64_t)(uintptr_t)(h->image + off),
    .kernarg_address = (uint64_t)(uintptr_t)karg,
    .group_segment_size = l->dyn_lds,
    .host_threads = h->host_threads,
    .cancel = h->cancel,
  };
  for (int i = 0; i < 3; i++) {
    d.grid_size[i] = l->grid[i] ? l->grid[i] : 1;
    d.workgroup_size[i] = (uint16_t)(l->block[i] ? l->block[i] : 1);
  }
  /* the kernel descriptor's static LDS adds to the dynamic part, as the runtime does */
  uint32_t fixed;
  memcpy(&fixed, h->image + off, 4);
  d.group_segment_size += fixed;
  memcpy(&d.private_segment_size, h->image + off + 4, 4);
  isa_dispatch_run(&d, r);
  return 0;
}
