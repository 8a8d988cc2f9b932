/*
 * ISA names and target-ID matching.
 *
 * A target ID is "<processor>(:<feature>(+|-))*" (LLVM AMDGPUUsage, "Target ID"); a feature left
 * out means the code runs with either setting of it. Bundle entries prefix it with an offload
 * triple ("hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"), metadata with the target triple.
 */
#include "loader.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Parses one ":feature+" / ":feature-" item. Unknown features are an error: guessing that code
 * built for a feature we do not know runs on the device would be unsafe. */
static int parse_feature(const char *p, size_t len, struct loader_isa *isa)
{
  if (len < 2 || (p[len - 1] != '+' && p[len - 1] != '-'))
    return -EINVAL;
  enum loader_feature v = p[len - 1] == '+' ? LOADER_FEATURE_ON : LOADER_FEATURE_OFF;
  size_t n = len - 1;
  if (n == 7 && memcmp(p, "sramecc", 7) == 0)
    isa->sramecc = v;
  else if (n == 5 && memcmp(p, "xnack", 5) == 0)
    isa->xnack = v;
  else
    return -EINVAL;
  return 0;
}

/* The prefix before the processor, if any, must name the AMDGPU HSA triple. */
static bool prefix_is_amdhsa(const char *name, size_t len)
{
  static const char triple[] = "amdgcn-amd-amdhsa";
  if (len == 0)
    return true;
  if (name[len - 1] != '-')
    return false;
  for (size_t i = 0; i + sizeof(triple) - 1 <= len; i++)
    if (memcmp(name + i, triple, sizeof(triple) - 1) == 0)
      return true;
  return false;
}

int loader_isa_parse(const char *name, struct loader_isa *out)
{
  if (!name || !out)
    return -EINVAL;
  memset(out, 0, sizeof(*out));

  /* The processor starts at "gfx", at the start or right after a '-'. */
  const char *gfx = NULL;
  for (const char *p = name; (p = strstr(p, "gfx")); p++) {
    if (p == name || p[-1] == '-') {
      gfx = p;
      break;
    }
  }
  if (!gfx || !prefix_is_amdhsa(name, (size_t)(gfx - name)))
    return -EINVAL;

  size_t plen = strcspn(gfx, ":");
  if (plen <= 3 || plen >= sizeof(out->processor))
    return -EINVAL;
  for (size_t i = 3; i < plen; i++) {
    char c = gfx[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
      return -EINVAL;
  }
  memcpy(out->processor, gfx, plen);
  out->processor[plen] = '\0';

  const char *p = gfx + plen;
  while (*p == ':') {
    p++;
    size_t flen = strcspn(p, ":");
    int err = parse_feature(p, flen, out);
    if (err)
      return err;
    p += flen;
  }
  return *p == '\0' ? 0 : -EINVAL;
}

int loader_isa_name(uint32_t gfx_target_version, bool sramecc, bool xnack, char *buf, size_t size)
{
  /* KFD encodes the version as major*10000 + minor*100 + stepping (kfd_topology.c); the target
   * name prints minor and stepping as one hex digit each (gfx90a is 9.0.10). */
  unsigned major = gfx_target_version / 10000;
  unsigned minor = (gfx_target_version / 100) % 100;
  unsigned step = gfx_target_version % 100;
  if (major == 0 || minor > 15 || step > 15 || !buf)
    return -EINVAL;
  int n = snprintf(buf, size, "gfx%u%x%x:sramecc%c:xnack%c", major, minor, step,
                   sramecc ? '+' : '-', xnack ? '+' : '-');
  return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static bool feature_compatible(enum loader_feature code, enum loader_feature device)
{
  return code == LOADER_FEATURE_ANY || device == LOADER_FEATURE_ANY || code == device;
}

bool loader_isa_compatible(const struct loader_isa *code, const struct loader_isa *device)
{
  return strcmp(code->processor, device->processor) == 0 &&
         feature_compatible(code->sramecc, device->sramecc) &&
         feature_compatible(code->xnack, device->xnack);
}
