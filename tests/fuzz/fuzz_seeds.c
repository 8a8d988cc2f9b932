/* Writes the fuzzers' seed corpus from real code objects built by this tree:
 *   fuzz_seeds CORPUS_DIR FILE...
 * Each FILE (an offload bundle, a compressed bundle or a code object) goes to CORPUS_DIR/bundle;
 * each code object it holds to CORPUS_DIR/code_object, that object's metadata note payload to
 * CORPUS_DIR/metadata and each of its kernels' argument layouts to CORPUS_DIR/kernarg. */
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_kinds.h"

#define NT_AMDGPU_METADATA_ 32

static const char *corpus;

static int put(const char *kind, const char *name, const char *suffix, const void *p, size_t n)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s/%s%s", corpus, kind, name, suffix);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
    perror(path);
    return 1;
  }
  return 0;
}

static void *slurp(const char *path, size_t *n)
{
  FILE *f = fopen(path, "rb");
  void *p = NULL;
  long len;
  if (f && !fseek(f, 0, SEEK_END) && (len = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET) &&
      (p = malloc((size_t)len)) && fread(p, 1, (size_t)len, f) == (size_t)len) {
    fclose(f);
    *n = (size_t)len;
    return p;
  }
  if (f)
    fclose(f);
  free(p);
  return NULL;
}

/* The AMDGPU metadata note's payload, through libelf. */
static int put_metadata(const void *elf_bytes, size_t size, const char *name)
{
  Elf *elf = elf_memory((char *)elf_bytes, size);
  Elf_Scn *scn = NULL;
  int err = 1;
  while (elf && (scn = elf_nextscn(elf, scn))) {
    GElf_Shdr sh;
    Elf_Data *d;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
      continue;
    GElf_Nhdr nh;
    size_t off = 0, next, name_off, desc_off;
    while ((next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
      if (nh.n_type == NT_AMDGPU_METADATA_)
        err = put("metadata", name, ".msgpack", (char *)d->d_buf + desc_off, nh.n_descsz);
      off = next;
    }
  }
  if (elf)
    elf_end(elf);
  return err;
}

/* One kernarg-harness input per kernel: its segment and arguments, as the metadata gave them. */
static int put_kernargs(const struct loader_code_object *co, const char *name)
{
  int err = 0;
  for (uint32_t i = 0; i < co->nkernels && !err; i++) {
    const struct loader_kernel *k = &co->kernels[i];
    size_t n = sizeof(struct fuzz_kernarg_header) + k->nargs * sizeof(struct fuzz_kernarg_record);
    uint8_t *buf = calloc(1, n);
    struct fuzz_kernarg_header h = {k->kernarg_segment_size,
                                    (uint8_t)__builtin_ctz(k->kernarg_segment_align),
                                    (uint8_t)(k->wavefront_size == 64)};
    memcpy(buf, &h, sizeof(h));
    for (uint32_t j = 0; j < k->nargs; j++) {
      struct fuzz_kernarg_record r = {k->args[j].offset, k->args[j].size, (uint8_t)k->args[j].kind};
      memcpy(buf + sizeof(h) + j * sizeof(r), &r, sizeof(r));
    }
    char suffix[32];
    snprintf(suffix, sizeof(suffix), ".k%u", i);
    err = put("kernarg", name, suffix, buf, n);
    free(buf);
  }
  return err;
}

static int put_code_object(const void *elf, size_t size, const char *name)
{
  struct loader_code_object *co;
  if (loader_code_object_open(elf, size, &co)) {
    fprintf(stderr, "fuzz_seeds: %s does not open\n", name);
    return 1;
  }
  int err = put("code_object", name, ".co", elf, size) || put_metadata(elf, size, name) ||
            put_kernargs(co, name);
  loader_code_object_close(co);
  return err;
}

int main(int argc, char **argv)
{
  static const char *const devices[] = {"gfx942:sramecc+:xnack-", "gfx90a:sramecc-:xnack-"};
  int err = 0;
  if (argc < 3) {
    fprintf(stderr, "usage: fuzz_seeds CORPUS_DIR FILE...\n");
    return 2;
  }
  corpus = argv[1];
  elf_version(EV_CURRENT);
  for (int i = 2; i < argc && !err; i++) {
    size_t size;
    void *data = slurp(argv[i], &size);
    const char *base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
    if (!data) {
      perror(argv[i]);
      return 1;
    }
    err = put("bundle", base, "", data, size);
    for (size_t d = 0; d < 2 && !err; d++) {
      const void *elf = NULL;
      size_t elf_size;
      void *dec;
      char name[512];
      snprintf(name, sizeof(name), "%s.%.6s", base, devices[d]);
      if (loader_bundle_find(data, size, devices[d], &elf, &elf_size, &dec) == 0)
        err = put_code_object(elf, elf_size, name);
      free(dec);
      if (elf == data)
        break; /* a bare code object: the same for every device */
    }
    free(data);
  }
  return err;
}
