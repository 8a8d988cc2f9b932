/* Small helpers shared by the loader tests. */
#ifndef LOADER_TEST_UTIL_H
#define LOADER_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>

/* Reads LOADER_CO_DIR/<name> into a malloc'd buffer; NULL if it cannot. */
static inline void *read_co(const char *name, size_t *size)
{
  char path[512];
  snprintf(path, sizeof(path), "%s/%s", LOADER_CO_DIR, name);
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *buf = malloc(n > 0 ? (size_t)n : 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  *size = (size_t)n;
  return buf;
}

#endif
