/* Kernel names for kfdsim's statistics, progress line and watchdog (cp_monitor.c).
 *
 * A dispatch packet names its kernel only by the GPU address of its 64-byte kernel descriptor.
 * Every loader that follows the ELF program headers (ROCr's, ours) copies the code object's
 * PT_LOAD segments into GPU memory at one base address, and the first segment of an AMDGPU code
 * object starts at file offset 0 (ELF header, program headers, .dynsym, .dynstr, then .rodata
 * with the descriptors). So the descriptor's own allocation holds, a few pages below it, the ELF
 * header of its code object: the resolver walks down page by page to it, finds PT_DYNAMIC, and
 * looks in the dynamic symbol table for the "<kernel>.kd" symbol whose value is the descriptor's
 * offset from the base (AMDGPUUsage, code object v3+: "kernel descriptor symbol"). Nothing
 * depends on which runtime loaded the code object. Every size read from GPU memory is checked
 * against the mapping before use; anything unexpected gives the fallback name "kernel@0x<kd>".
 *
 * Names are cached by descriptor address together with a copy of the descriptor, so a code
 * object unloaded and another loaded at the same address is resolved again.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cp_internal.h"

#define NAME_PAGE 4096ull
#define NAME_SCAN_PAGES 16384u     /* 64 MiB: no code object's headers sit further below */
#define NAME_MAX_PHDRS 64u
#define NAME_MAX_DYN 512u
#define NAME_MAX_SYMS (1u << 20)
#define NAME_KD_SIZE 64u
#define NAME_BUCKETS 256u
#define NAME_ELF_AMDGPU 224u       /* EM_AMDGPU */

struct name_entry {
  const struct sim_gpu *gpu;
  uint64_t kd_va;
  uint8_t kd[NAME_KD_SIZE];        /* the descriptor when it was resolved */
  char *name;
  struct name_entry *next;
};

static pthread_mutex_t g_names_lock = PTHREAD_MUTEX_INITIALIZER;
static struct name_entry *g_names[NAME_BUCKETS]; /* protected by g_names_lock */

/* [va, va + len) of the GPU's memory, or NULL when not all of it is mapped. */
static const uint8_t *gpu_range(struct sim_gpu *gpu, uint64_t va, uint64_t len)
{
  if (!len || va + len < va)
    return NULL;
  return sim_gpuvm_translate(gpu, va, len, false);
}

static bool is_amdgpu_elf(const Elf64_Ehdr *h)
{
  return !memcmp(h->e_ident, ELFMAG, SELFMAG) && h->e_ident[EI_CLASS] == ELFCLASS64 &&
         h->e_ident[EI_DATA] == ELFDATA2LSB && h->e_machine == NAME_ELF_AMDGPU &&
         h->e_phentsize == sizeof(Elf64_Phdr) && h->e_phnum && h->e_phnum <= NAME_MAX_PHDRS;
}

/* GPU VA of the ELF header of the code object holding `kd_va`, or 0. */
static uint64_t find_elf_base(struct sim_gpu *gpu, uint64_t kd_va)
{
  uint64_t page = kd_va & ~(NAME_PAGE - 1);
  for (unsigned i = 0; i < NAME_SCAN_PAGES && page; i++, page -= NAME_PAGE) {
    const Elf64_Ehdr *h = (const Elf64_Ehdr *)gpu_range(gpu, page, sizeof(Elf64_Ehdr));
    if (!h)
      return 0; /* left the allocation without meeting a header */
    if (is_amdgpu_elf(h))
      return page;
  }
  return 0;
}

struct dyn_tables {
  uint64_t symtab, strtab, strsz, hash; /* vaddrs (relative to the base) and the string size */
};

/* The dynamic tables of the code object at `base`, which must load the descriptor at `kd_off`
 * (a header found below a descriptor without a code object of its own belongs to another). */
static bool read_dynamic(struct sim_gpu *gpu, uint64_t base, uint64_t kd_off, struct dyn_tables *t)
{
  const Elf64_Ehdr *h = (const Elf64_Ehdr *)gpu_range(gpu, base, sizeof(Elf64_Ehdr));
  if (!h)
    return false;
  uint16_t phnum = h->e_phnum;
  const Elf64_Phdr *ph = (const Elf64_Phdr *)gpu_range(gpu, base + h->e_phoff,
                                                       (uint64_t)phnum * sizeof(Elf64_Phdr));
  if (!ph)
    return false;
  const Elf64_Phdr *dynamic = NULL;
  bool loads_kd = false;
  for (unsigned i = 0; i < phnum; i++) {
    if (ph[i].p_type == PT_DYNAMIC)
      dynamic = &ph[i];
    if (ph[i].p_type == PT_LOAD && kd_off >= ph[i].p_vaddr && ph[i].p_memsz >= NAME_KD_SIZE &&
        kd_off - ph[i].p_vaddr <= ph[i].p_memsz - NAME_KD_SIZE)
      loads_kd = true;
  }
  if (!loads_kd || !dynamic || dynamic->p_memsz < sizeof(Elf64_Dyn))
    return false;
  uint64_t n = dynamic->p_memsz / sizeof(Elf64_Dyn);
  if (n > NAME_MAX_DYN)
    n = NAME_MAX_DYN;
  const Elf64_Dyn *d = (const Elf64_Dyn *)gpu_range(gpu, base + dynamic->p_vaddr, n * sizeof(*d));
  if (!d)
    return false;
  memset(t, 0, sizeof(*t));
  for (uint64_t i = 0; i < n && d[i].d_tag != DT_NULL; i++) {
    switch (d[i].d_tag) {
    case DT_SYMTAB: t->symtab = d[i].d_un.d_ptr; break;
    case DT_STRTAB: t->strtab = d[i].d_un.d_ptr; break;
    case DT_STRSZ: t->strsz = d[i].d_un.d_val; break;
    case DT_HASH: t->hash = d[i].d_un.d_ptr; break;
    default: break;
    }
  }
  return t->symtab && t->strtab && t->strsz;
}

/* Symbols in .dynsym: DT_HASH's nchain when present, else the bytes up to .dynstr (lld puts
 * .dynsym first; entries past the real end are hash words that match no descriptor). */
static uint64_t symbol_count(struct sim_gpu *gpu, uint64_t base, const struct dyn_tables *t)
{
  uint64_t n = 0;
  const uint32_t *hash = t->hash ? (const uint32_t *)gpu_range(gpu, base + t->hash, 8) : NULL;
  if (hash)
    n = hash[1];
  else if (t->strtab > t->symtab)
    n = (t->strtab - t->symtab) / sizeof(Elf64_Sym);
  return n < NAME_MAX_SYMS ? n : NAME_MAX_SYMS;
}

/* The ".kd" symbol at `kd_off`, copied without its suffix into buf. */
static bool lookup_symbol(struct sim_gpu *gpu, uint64_t base, uint64_t kd_off, char *buf, size_t len)
{
  struct dyn_tables t;
  if (!read_dynamic(gpu, base, kd_off, &t))
    return false;
  uint64_t nsyms = symbol_count(gpu, base, &t);
  const Elf64_Sym *sym = (const Elf64_Sym *)gpu_range(gpu, base + t.symtab, nsyms * sizeof(Elf64_Sym));
  const char *str = (const char *)gpu_range(gpu, base + t.strtab, t.strsz);
  if (!sym || !str)
    return false;
  for (uint64_t i = 0; i < nsyms; i++) {
    if (sym[i].st_value != kd_off || sym[i].st_shndx == SHN_UNDEF || sym[i].st_name >= t.strsz)
      continue;
    const char *name = str + sym[i].st_name;
    size_t n = strnlen(name, t.strsz - sym[i].st_name);
    if (n == t.strsz - sym[i].st_name || n < 4 || strcmp(name + n - 3, ".kd"))
      continue; /* unterminated, or not a descriptor symbol */
    n -= 3;
    if (n >= len)
      n = len - 1;
    memcpy(buf, name, n);
    buf[n] = 0;
    return true;
  }
  return false;
}

/* C++ names read better demangled. The demangler is the C++ runtime's: the program's when it
 * has one loaded, else libstdc++ loaded on first need (a C program, or a HIP program whose
 * linker dropped an unused libstdc++), so that libkfdsim.so itself needs no C++ library. */
typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
static demangle_fn g_demangle;
static pthread_once_t g_demangle_once = PTHREAD_ONCE_INIT;

static void demangle_find(void)
{
  void *f = dlsym(RTLD_DEFAULT, "__cxa_demangle");
  if (!f) {
    void *lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
    f = lib ? dlsym(lib, "__cxa_demangle") : NULL;
  }
  g_demangle = (demangle_fn)f;
}

static char *demangle(const char *name)
{
  if (strncmp(name, "_Z", 2))
    return strdup(name);
  pthread_once(&g_demangle_once, demangle_find);
  demangle_fn f = g_demangle;
  int status = -1;
  char *out = f ? f(name, NULL, NULL, &status) : NULL;
  if (out && status == 0)
    return out;
  free(out);
  return strdup(name);
}

static char *resolve(struct sim_gpu *gpu, uint64_t kd_va)
{
  char raw[512];
  uint64_t base = find_elf_base(gpu, kd_va);
  if (base && lookup_symbol(gpu, base, kd_va - base, raw, sizeof(raw)))
    return demangle(raw);
  if (base)
    sim_log("cp: kernel descriptor 0x%" PRIx64 ": no descriptor symbol at offset 0x%" PRIx64
            " in the code object at 0x%" PRIx64, kd_va, kd_va - base, base);
  else
    sim_log("cp: kernel descriptor 0x%" PRIx64 ": no code object header below it", kd_va);
  char *out = NULL;
  if (asprintf(&out, "kernel@0x%" PRIx64, kd_va) < 0)
    return NULL;
  return out;
}

const char *cp_kernel_name(struct sim_gpu *gpu, uint64_t kd_va)
{
  const uint8_t *kd = gpu_range(gpu, kd_va, NAME_KD_SIZE);
  if (!kd)
    return "(unmapped kernel descriptor)";
  unsigned b = (unsigned)((kd_va >> 6) * 0x9E3779B1u >> 24) % NAME_BUCKETS;
  pthread_mutex_lock(&g_names_lock);
  for (struct name_entry *e = g_names[b]; e; e = e->next) {
    if (e->gpu == gpu && e->kd_va == kd_va && !memcmp(e->kd, kd, NAME_KD_SIZE)) {
      pthread_mutex_unlock(&g_names_lock);
      return e->name;
    }
  }
  pthread_mutex_unlock(&g_names_lock);

  /* Resolved outside the lock (it may walk many pages); a racing resolver adds a duplicate,
   * which is harmless. Entries live as long as the process: names are handed out without
   * copies. */
  struct name_entry *e = calloc(1, sizeof(*e));
  char *name = resolve(gpu, kd_va);
  if (!e || !name) {
    free(e);
    free(name);
    return "(out of memory)";
  }
  e->gpu = gpu;
  e->kd_va = kd_va;
  memcpy(e->kd, kd, NAME_KD_SIZE);
  e->name = name;
  pthread_mutex_lock(&g_names_lock);
  e->next = g_names[b];
  g_names[b] = e;
  pthread_mutex_unlock(&g_names_lock);
  return name;
}
