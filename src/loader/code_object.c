/*
 * ELF code objects, phase 1: open and validate with libelf.
 *
 * What an AMDHSA code object is (LLVM AMDGPUUsage, "ELF Code Object"): ELF64 little-endian,
 * e_machine EM_AMDGPU, EI_OSABI ELFOSABI_AMDGPU_HSA, EI_ABIVERSION 2/3/4 for code object v4/v5/v6,
 * ET_DYN, the processor and its target features in e_flags, the metadata in an "AMDGPU" note of
 * type NT_AMDGPU_METADATA, one 64-byte kernel descriptor per kernel at symbol "<kernel>.kd".
 * Every offset, index and size read from the file is checked before use.
 */
#include "loader_internal.h"

#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#define EM_AMDGPU_ 224
#define ELFOSABI_AMDGPU_HSA_ 64
#define NT_AMDGPU_METADATA_ 32
#define EF_AMDGPU_MACH 0x0ffu
#define EF_AMDGPU_FEATURE_XNACK_V4 0x300u
#define EF_AMDGPU_FEATURE_SRAMECC_V4 0xc00u
#define KERNEL_DESCRIPTOR_SIZE 64
/* An image larger than this is not a code object we can place; it also bounds allocations. */
#define IMAGE_MAX_SIZE (1ull << 30)

/* EF_AMDGPU_MACH values (AMDGPUUsage "AMDGPU ELF Header", also hsa/amd_hsa_elf.h). */
static const struct {
  uint32_t mach;
  const char *name;
} machs[] = {
  {0x02c, "gfx900"}, {0x02d, "gfx902"}, {0x02e, "gfx904"}, {0x02f, "gfx906"},
  {0x030, "gfx908"}, {0x031, "gfx909"}, {0x032, "gfx90c"}, {0x03f, "gfx90a"},
  {0x040, "gfx940"}, {0x04b, "gfx941"}, {0x04c, "gfx942"}, {0x04f, "gfx950"},
  {0x033, "gfx1010"}, {0x034, "gfx1011"}, {0x035, "gfx1012"}, {0x036, "gfx1030"},
  {0x037, "gfx1031"}, {0x038, "gfx1032"}, {0x041, "gfx1100"}, {0x046, "gfx1101"},
  {0x047, "gfx1102"}, {0x048, "gfx1200"}, {0x04e, "gfx1201"},
};

/* Feature fields of e_flags, code object v4+: 0 unsupported, 1 any, 2 off, 3 on. */
static enum loader_feature flag_feature(uint32_t field)
{
  return field == 2 ? LOADER_FEATURE_OFF : field == 3 ? LOADER_FEATURE_ON : LOADER_FEATURE_ANY;
}

static int check_header(Elf *elf, struct loader_code_object *co)
{
  GElf_Ehdr eh;
  if (elf_kind(elf) != ELF_K_ELF || gelf_getclass(elf) != ELFCLASS64 || !gelf_getehdr(elf, &eh))
    return -ENOEXEC;
  if (eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != EM_AMDGPU_ ||
      eh.e_ident[EI_OSABI] != ELFOSABI_AMDGPU_HSA_ || eh.e_type != ET_DYN)
    return -ENOEXEC;
  /* ELFABIVERSION_AMDGPU_HSA_V4 = 2, V5 = 3, V6 = 4; v2/v3 are no longer produced or loaded. */
  if (eh.e_ident[EI_ABIVERSION] < 2 || eh.e_ident[EI_ABIVERSION] > 4)
    return -ENOEXEC;
  co->code_object_version = eh.e_ident[EI_ABIVERSION] + 2;

  uint32_t mach = eh.e_flags & EF_AMDGPU_MACH;
  for (size_t i = 0; i < sizeof(machs) / sizeof(machs[0]); i++) {
    if (machs[i].mach == mach) {
      strcpy(co->isa.processor, machs[i].name);
      co->isa.xnack = flag_feature((eh.e_flags & EF_AMDGPU_FEATURE_XNACK_V4) >> 8);
      co->isa.sramecc = flag_feature((eh.e_flags & EF_AMDGPU_FEATURE_SRAMECC_V4) >> 10);
      return 0;
    }
  }
  return -ENOEXEC; /* an unknown processor, or a v6 generic target we do not load */
}

static int read_segments(Elf *elf, struct loader_code_object *co)
{
  size_t n;
  if (elf_getphdrnum(elf, &n) != 0 || n == 0 || n > 256)
    return -ENOEXEC;
  co->segments = calloc(n, sizeof(*co->segments));
  if (!co->segments)
    return -ENOMEM;
  co->image_align = 1;
  for (size_t i = 0; i < n; i++) {
    GElf_Phdr ph;
    if (!gelf_getphdr(elf, (int)i, &ph))
      return -ENOEXEC;
    if (ph.p_type != PT_LOAD)
      continue;
    if (ph.p_filesz > ph.p_memsz || ph.p_offset > co->elf_size ||
        ph.p_filesz > co->elf_size - ph.p_offset || ph.p_vaddr > IMAGE_MAX_SIZE ||
        ph.p_memsz > IMAGE_MAX_SIZE - ph.p_vaddr)
      return -ENOEXEC;
    if (ph.p_align > co->image_align && ph.p_align <= 65536)
      co->image_align = ph.p_align;
    struct loader_segment *s = &co->segments[co->nsegments++];
    *s = (struct loader_segment){ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz};
    if (ph.p_vaddr + ph.p_memsz > co->image_size)
      co->image_size = ph.p_vaddr + ph.p_memsz;
  }
  return co->nsegments ? 0 : -ENOEXEC;
}

/* The file bytes backing [vaddr, vaddr+size): NULL unless wholly inside one segment's file part. */
static const void *image_bytes(const struct loader_code_object *co, uint64_t vaddr, uint64_t size)
{
  for (uint32_t i = 0; i < co->nsegments; i++) {
    const struct loader_segment *s = &co->segments[i];
    if (vaddr >= s->vaddr && vaddr - s->vaddr <= s->filesz && size <= s->filesz - (vaddr - s->vaddr))
      return (const char *)co->elf + s->file_offset + (vaddr - s->vaddr);
  }
  return NULL;
}

static bool in_image(const struct loader_code_object *co, uint64_t vaddr, uint64_t size)
{
  return vaddr <= co->image_size && size <= co->image_size - vaddr;
}

static int read_metadata_note(Elf *elf, Elf_Scn *scn, struct loader_code_object *co, bool *found)
{
  Elf_Data *d = elf_getdata(scn, NULL);
  size_t off = 0, next, name_off, desc_off;
  GElf_Nhdr nh;

  if (!d)
    return -ENOEXEC;
  (void)elf;
  while (off < d->d_size && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
    if (nh.n_type == NT_AMDGPU_METADATA_ && nh.n_namesz == 7 &&
        memcmp((char *)d->d_buf + name_off, "AMDGPU", 7) == 0) {
      if (*found)
        return -ENOEXEC;
      *found = true;
      int err = loader_metadata_parse((char *)d->d_buf + desc_off, nh.n_descsz, co);
      if (err)
        return err;
    }
    off = next;
  }
  return 0;
}

/* ---- symbols ---- */

struct symtab {
  Elf_Scn *scn;
  Elf_Data *data;
  size_t count;
  size_t strndx;
};

static int symtab_open(Elf *elf, Elf_Scn *scn, struct symtab *st)
{
  GElf_Shdr sh;
  if (!gelf_getshdr(scn, &sh) || sh.sh_entsize != gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT))
    return -ENOEXEC;
  st->scn = scn;
  st->data = elf_getdata(scn, NULL);
  if (!st->data)
    return -ENOEXEC;
  st->count = st->data->d_size / sh.sh_entsize;
  st->strndx = sh.sh_link;
  return 0;
}

static const char *sym_name(Elf *elf, const struct symtab *st, const GElf_Sym *s)
{
  return elf_strptr(elf, st->strndx, s->st_name);
}

static bool ends_with_kd(const char *name)
{
  size_t n = strlen(name);
  return n > 3 && strcmp(name + n - 3, ".kd") == 0;
}

static struct loader_kernel *kernel_by_symbol(struct loader_code_object *co, const char *name)
{
  for (uint32_t i = 0; i < co->nkernels; i++)
    if (strcmp(co->kernels[i].symbol, name) == 0)
      return &co->kernels[i];
  return NULL;
}

/* The 64-byte kernel descriptor, AMDGPUUsage "Kernel Descriptor": offsets 0, 4, 8 (segment
 * sizes), 16 (entry offset), 44/48/52 (COMPUTE_PGM_RSRC3/1/2), 56 (kernel_code_properties),
 * 58 (kernarg_preload). */
static int read_descriptor(struct loader_code_object *co, struct loader_kernel *k,
                           const GElf_Sym *s)
{
  const uint8_t *p = image_bytes(co, s->st_value, KERNEL_DESCRIPTOR_SIZE);
  if (!p || (s->st_size && s->st_size != KERNEL_DESCRIPTOR_SIZE) || (s->st_value & 63))
    return -ENOEXEC;
  struct loader_kernel_descriptor *kd = &k->kd;
  memcpy(&kd->group_segment_fixed_size, p + 0, 4);
  memcpy(&kd->private_segment_fixed_size, p + 4, 4);
  memcpy(&kd->kernarg_size, p + 8, 4);
  memcpy(&kd->kernel_code_entry_byte_offset, p + 16, 8);
  memcpy(&kd->compute_pgm_rsrc3, p + 44, 4);
  memcpy(&kd->compute_pgm_rsrc1, p + 48, 4);
  memcpy(&kd->compute_pgm_rsrc2, p + 52, 4);
  memcpy(&kd->kernel_code_properties, p + 56, 2);
  memcpy(&kd->kernarg_preload, p + 58, 2);
  k->kd_vaddr = s->st_value;

  /* The entry point must land inside the image, 256-byte aligned (AMDGPUUsage). The offset is
   * signed and from the file: the sum is formed in unsigned arithmetic (st_value is below
   * IMAGE_MAX_SIZE here) so that no value of it overflows. */
  uint64_t entry = s->st_value + (uint64_t)kd->kernel_code_entry_byte_offset;
  if (kd->kernel_code_entry_byte_offset < -(int64_t)IMAGE_MAX_SIZE ||
      kd->kernel_code_entry_byte_offset > (int64_t)IMAGE_MAX_SIZE || !in_image(co, entry, 4) ||
      (entry & 255))
    return -ENOEXEC;
  return 0;
}

static int add_variable(struct loader_code_object *co, const char *name, const GElf_Sym *s,
                        uint32_t *cap)
{
  if (!in_image(co, s->st_value, s->st_size))
    return -ENOEXEC;
  for (uint32_t i = 0; i < co->nvariables; i++)
    if (strcmp(co->variables[i].name, name) == 0)
      return 0; /* in both .dynsym and .symtab */
  if (co->nvariables == *cap) {
    uint32_t ncap = *cap ? *cap * 2 : 16;
    void *p = realloc(co->variables, ncap * sizeof(*co->variables));
    if (!p)
      return -ENOMEM;
    co->variables = p;
    *cap = ncap;
  }
  char *copy = strdup(name);
  if (!copy)
    return -ENOMEM;
  co->variables[co->nvariables++] = (struct loader_variable){copy, s->st_value, s->st_size};
  return 0;
}

static int read_symbols(Elf *elf, Elf_Scn *scn, struct loader_code_object *co, uint32_t *cap)
{
  struct symtab st;
  int err = symtab_open(elf, scn, &st);
  for (size_t i = 1; !err && i < st.count; i++) {
    GElf_Sym s;
    if (!gelf_getsym(st.data, (int)i, &s))
      return -ENOEXEC;
    unsigned bind = GELF_ST_BIND(s.st_info), type = GELF_ST_TYPE(s.st_info);
    if ((bind != STB_GLOBAL && bind != STB_WEAK) || type != STT_OBJECT || s.st_shndx == SHN_UNDEF)
      continue;
    const char *name = sym_name(elf, &st, &s);
    if (!name)
      return -ENOEXEC;
    if (ends_with_kd(name)) {
      struct loader_kernel *k = kernel_by_symbol(co, name);
      if (k && !k->kd_vaddr)
        err = read_descriptor(co, k, &s);
    } else {
      err = add_variable(co, name, &s, cap);
    }
  }
  return err;
}

/* ---- relocations ---- */

enum {
  R_AMDGPU_NONE = 0, R_AMDGPU_ABS32_LO = 1, R_AMDGPU_ABS32_HI = 2, R_AMDGPU_ABS64 = 3,
  R_AMDGPU_REL32 = 4, R_AMDGPU_REL64 = 5, R_AMDGPU_ABS32 = 6, R_AMDGPU_RELATIVE64 = 13,
};

static unsigned reloc_width(uint32_t type)
{
  switch (type) {
  case R_AMDGPU_ABS64: case R_AMDGPU_REL64: case R_AMDGPU_RELATIVE64: return 8;
  case R_AMDGPU_ABS32_LO: case R_AMDGPU_ABS32_HI: case R_AMDGPU_ABS32: case R_AMDGPU_REL32: return 4;
  default: return 0;
  }
}

static int reloc_symbol(Elf *elf, size_t symndx, size_t link, struct loader_reloc *r)
{
  Elf_Scn *scn = elf_getscn(elf, link);
  struct symtab st;
  GElf_Sym s;
  if (!scn || symtab_open(elf, scn, &st) || symndx >= st.count || !gelf_getsym(st.data, (int)symndx, &s))
    return -ENOEXEC;
  if (s.st_shndx != SHN_UNDEF) {
    r->symbol_defined = true;
    r->symbol_vaddr = s.st_value;
    return 0;
  }
  /* Code objects are loaded alone: an undefined strong symbol cannot be resolved. */
  return GELF_ST_BIND(s.st_info) == STB_WEAK ? 0 : -ENOEXEC;
}

static int read_relocs(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct loader_code_object *co)
{
  Elf_Data *d = elf_getdata(scn, NULL);
  if (!d || sh->sh_entsize != gelf_fsize(elf, ELF_T_RELA, 1, EV_CURRENT))
    return -ENOEXEC;
  size_t n = d->d_size / sh->sh_entsize;
  if (n == 0)
    return 0;
  void *p = realloc(co->relocs, (co->nrelocs + n) * sizeof(*co->relocs));
  if (!p)
    return -ENOMEM;
  co->relocs = p;
  for (size_t i = 0; i < n; i++) {
    GElf_Rela ra;
    if (!gelf_getrela(d, (int)i, &ra))
      return -ENOEXEC;
    uint32_t type = GELF_R_TYPE(ra.r_info);
    if (type == R_AMDGPU_NONE)
      continue;
    unsigned width = reloc_width(type);
    if (!width || !in_image(co, ra.r_offset, width))
      return -ENOEXEC;
    struct loader_reloc *r = &co->relocs[co->nrelocs];
    *r = (struct loader_reloc){.offset = ra.r_offset, .type = type, .addend = ra.r_addend};
    size_t symndx = GELF_R_SYM(ra.r_info);
    if (symndx && reloc_symbol(elf, symndx, sh->sh_link, r))
      return -ENOEXEC;
    co->nrelocs++;
  }
  return 0;
}

/* ---- open ---- */

static int read_sections(Elf *elf, struct loader_code_object *co)
{
  bool have_metadata = false;
  uint32_t var_cap = 0;
  Elf_Scn *scn = NULL;
  int err = 0;

  /* The metadata first: the symbol pass needs the kernel list to match descriptors. */
  while (!err && (scn = elf_nextscn(elf, scn))) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh))
      return -ENOEXEC;
    if (sh.sh_type == SHT_NOTE)
      err = read_metadata_note(elf, scn, co, &have_metadata);
  }
  if (!err && !have_metadata)
    err = -ENOEXEC;
  while (!err && (scn = elf_nextscn(elf, scn))) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh))
      return -ENOEXEC;
    if (sh.sh_type == SHT_DYNSYM || sh.sh_type == SHT_SYMTAB)
      err = read_symbols(elf, scn, co, &var_cap);
    else if (sh.sh_type == SHT_RELA && (sh.sh_flags & SHF_ALLOC))
      err = read_relocs(elf, scn, &sh, co);
    else if (sh.sh_type == SHT_REL && (sh.sh_flags & SHF_ALLOC))
      err = -ENOEXEC; /* AMDGPU uses RELA only */
  }
  return err;
}

/* Every kernel the metadata names must have found its descriptor. */
static int check_kernels(const struct loader_code_object *co)
{
  for (uint32_t i = 0; i < co->nkernels; i++)
    if (!co->kernels[i].kd_vaddr)
      return -ENOEXEC;
  return 0;
}

int loader_code_object_open(const void *bytes, size_t size, struct loader_code_object **out)
{
  struct loader_code_object *co;
  Elf *elf = NULL;
  int err;

  if (!out)
    return -EINVAL;
  *out = NULL;
  if (!bytes || size < 64)
    return -ENOEXEC;
  if (elf_version(EV_CURRENT) == EV_NONE)
    return -ENOSYS;
  co = calloc(1, sizeof(*co));
  if (!co)
    return -ENOMEM;
  co->elf = malloc(size);
  if (!co->elf) {
    err = -ENOMEM;
    goto fail;
  }
  memcpy(co->elf, bytes, size);
  co->elf_size = size;

  elf = elf_memory(co->elf, size);
  if (!elf) {
    err = -ENOEXEC;
    goto fail;
  }
  if ((err = check_header(elf, co)) || (err = read_segments(elf, co)) ||
      (err = read_sections(elf, co)) || (err = check_kernels(co)))
    goto fail_elf;
  elf_end(elf);
  *out = co;
  return 0;

fail_elf:
  elf_end(elf);
fail:
  loader_code_object_close(co);
  return err;
}

void loader_code_object_close(struct loader_code_object *co)
{
  if (!co)
    return;
  loader_metadata_free(co);
  for (uint32_t i = 0; i < co->nvariables; i++)
    free(co->variables[i].name);
  free(co->variables);
  free(co->segments);
  free(co->relocs);
  free(co->elf);
  free(co);
}

const struct loader_kernel *loader_find_kernel(const struct loader_code_object *co, const char *name)
{
  if (!co || !name)
    return NULL;
  for (uint32_t i = 0; i < co->nkernels; i++) {
    const struct loader_kernel *k = &co->kernels[i];
    if (strcmp(k->name, name) == 0 || strcmp(k->symbol, name) == 0)
      return k;
  }
  return NULL;
}

const struct loader_variable *loader_find_variable(const struct loader_code_object *co,
                                                   const char *name)
{
  if (!co || !name)
    return NULL;
  for (uint32_t i = 0; i < co->nvariables; i++)
    if (strcmp(co->variables[i].name, name) == 0)
      return &co->variables[i];
  return NULL;
}
