/* Kernel names from GPU memory (sim/cp/cp_names.c): a code object image built here by hand is
 * mapped at a GPU VA, and the resolver must find the descriptor's symbol, or fall back to the
 * descriptor address when the image lies about its sizes. */
#include <criterion/criterion.h>
#include <elf.h>
#include <inttypes.h>
#include <stdio.h>

#include "cp_harness.h"
#include "cp/cp_internal.h"

#define IMG_SIZE 0x4000u    /* four pages: the descriptor sits two pages above the header */
#define OFF_PHDR 0x40u
#define OFF_DYN 0x100u
#define OFF_HASH 0x200u
#define OFF_SYM 0x300u
#define OFF_STR 0x400u
#define OFF_KD 0x2040u
#define NSYMS 3u

static const char g_strtab[] = "\0_Z6scalarPfi.kd\0other.kd\0";

/* An AMDGPU code object as a loader leaves it in memory: header, two program headers (one
 * PT_LOAD over the whole image, PT_DYNAMIC), dynamic entries, a SysV hash, .dynsym, .dynstr,
 * and descriptor symbols at OFF_KD and just after it. */
static uint8_t *build_image(void)
{
  uint8_t *img = aligned_alloc(4096, IMG_SIZE);
  memset(img, 0, IMG_SIZE);
  Elf64_Ehdr *h = (Elf64_Ehdr *)img;
  memcpy(h->e_ident, ELFMAG, SELFMAG);
  h->e_ident[EI_CLASS] = ELFCLASS64;
  h->e_ident[EI_DATA] = ELFDATA2LSB;
  h->e_type = ET_DYN;
  h->e_machine = 224; /* EM_AMDGPU */
  h->e_phoff = OFF_PHDR;
  h->e_phentsize = sizeof(Elf64_Phdr);
  h->e_phnum = 2;
  Elf64_Phdr *ph = (Elf64_Phdr *)(img + OFF_PHDR);
  ph[0] = (Elf64_Phdr){.p_type = PT_LOAD, .p_vaddr = 0, .p_memsz = IMG_SIZE, .p_filesz = IMG_SIZE};
  ph[1] = (Elf64_Phdr){.p_type = PT_DYNAMIC, .p_vaddr = OFF_DYN, .p_memsz = 5 * sizeof(Elf64_Dyn)};
  Elf64_Dyn *dyn = (Elf64_Dyn *)(img + OFF_DYN);
  dyn[0] = (Elf64_Dyn){.d_tag = DT_HASH, .d_un.d_ptr = OFF_HASH};
  dyn[1] = (Elf64_Dyn){.d_tag = DT_SYMTAB, .d_un.d_ptr = OFF_SYM};
  dyn[2] = (Elf64_Dyn){.d_tag = DT_STRTAB, .d_un.d_ptr = OFF_STR};
  dyn[3] = (Elf64_Dyn){.d_tag = DT_STRSZ, .d_un.d_val = sizeof(g_strtab)};
  dyn[4] = (Elf64_Dyn){.d_tag = DT_NULL};
  uint32_t *hash = (uint32_t *)(img + OFF_HASH);
  hash[0] = 1;     /* nbucket */
  hash[1] = NSYMS; /* nchain: the symbol count */
  Elf64_Sym *sym = (Elf64_Sym *)(img + OFF_SYM);
  sym[1] = (Elf64_Sym){.st_name = 1, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT),
                       .st_shndx = 5, .st_value = OFF_KD, .st_size = 64};
  sym[2] = (Elf64_Sym){.st_name = 17, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT),
                       .st_shndx = 5, .st_value = OFF_KD + 64, .st_size = 64};
  memcpy(img + OFF_STR, g_strtab, sizeof(g_strtab));
  return img;
}

/* Maps the image at a fresh page-aligned VA below which nothing is mapped. */
static uint64_t map_image(uint8_t *img)
{
  static uint64_t next = 0x300000000000ull;
  uint64_t va = next;
  next += 0x100000;
  fake_map(va, img, IMG_SIZE, false);
  return va;
}

static void expect_fallback(uint64_t kd_va)
{
  char want[64];
  snprintf(want, sizeof(want), "kernel@0x%" PRIx64, kd_va);
  cr_assert_str_eq(cp_kernel_name(fake_gpu(), kd_va), want);
}

Test(cp_names, a_descriptor_is_named_by_its_symbol)
{
  uint8_t *img = build_image();
  uint64_t base = map_image(img);
  const char *name = cp_kernel_name(fake_gpu(), base + OFF_KD);
  /* Demangled when a C++ runtime is at hand, else as the symbol table spells it. */
  cr_assert(!strcmp(name, "scalar(float*, int)") || !strcmp(name, "_Z6scalarPfi"), "%s", name);
  cr_assert_str_eq(cp_kernel_name(fake_gpu(), base + OFF_KD + 64), "other");
  cr_assert_eq(cp_kernel_name(fake_gpu(), base + OFF_KD), name, "the second lookup is cached");
}

Test(cp_names, a_descriptor_without_a_symbol_is_named_by_address)
{
  uint8_t *img = build_image();
  uint64_t base = map_image(img);
  expect_fallback(base + OFF_KD + 128);
}

Test(cp_names, memory_without_a_code_object_is_named_by_address)
{
  uint8_t *img = aligned_alloc(4096, IMG_SIZE);
  memset(img, 0xa5, IMG_SIZE);
  expect_fallback(map_image(img) + OFF_KD);
}

/* Sizes read from GPU memory are checked before use: each lie makes the lookup fail cleanly. */
Test(cp_names, lying_sizes_fall_back_to_the_address)
{
  static const struct {
    unsigned off;
    uint64_t value;
    unsigned width;
  } lies[] = {
      {offsetof(Elf64_Ehdr, e_phnum), 0xffff, 2},                       /* too many phdrs */
      {offsetof(Elf64_Ehdr, e_phoff), 0x7fffffffffffull, 8},             /* phdrs unmapped */
      {OFF_PHDR + sizeof(Elf64_Phdr) + offsetof(Elf64_Phdr, p_vaddr), 0x10000000, 8}, /* dynamic */
      {OFF_PHDR + offsetof(Elf64_Phdr, p_memsz), 0x40, 8},               /* kd outside PT_LOAD */
      {OFF_HASH + 4, 0xffffffffu, 4},                                    /* symbol count */
      {OFF_DYN + 2 * sizeof(Elf64_Dyn) + 8, 0x3ff0, 8},                  /* strtab past the end */
      {OFF_DYN + 3 * sizeof(Elf64_Dyn) + 8, 0xffffffffffull, 8},         /* strtab size */
      {OFF_SYM + sizeof(Elf64_Sym), 0x7fffffff, 4},                      /* st_name */
  };
  for (size_t i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
    uint8_t *img = build_image();
    memcpy(img + lies[i].off, &lies[i].value, lies[i].width);
    uint64_t base = map_image(img);
    const char *name = cp_kernel_name(fake_gpu(), base + OFF_KD);
    char want[64];
    snprintf(want, sizeof(want), "kernel@0x%" PRIx64, base + OFF_KD);
    cr_assert_str_eq(name, want, "lie %zu gave \"%s\"", i, name);
  }
}

Test(cp_names, an_unterminated_name_is_not_read_past_the_string_table)
{
  uint8_t *img = build_image();
  Elf64_Dyn *dyn = (Elf64_Dyn *)(img + OFF_DYN);
  dyn[3].d_un.d_val = 10; /* ends inside "_Z6scalarPfi.kd" */
  expect_fallback(map_image(img) + OFF_KD);
}
