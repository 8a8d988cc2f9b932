/* ISA names and target-ID matching (LLVM AMDGPUUsage "Target ID"). */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "loader.h"

static struct loader_isa isa(const char *s)
{
  struct loader_isa i;
  cr_assert_eq(loader_isa_parse(s, &i), 0, "parse %s", s);
  return i;
}

Test(isa, parses_plain_and_featured_names)
{
  struct loader_isa i = isa("gfx942");
  cr_assert_str_eq(i.processor, "gfx942");
  cr_assert_eq(i.sramecc, LOADER_FEATURE_ANY);
  cr_assert_eq(i.xnack, LOADER_FEATURE_ANY);
  i = isa("gfx90a:xnack+");
  cr_assert_str_eq(i.processor, "gfx90a");
  cr_assert_eq(i.xnack, LOADER_FEATURE_ON);
  cr_assert_eq(i.sramecc, LOADER_FEATURE_ANY);
  i = isa("gfx942:sramecc+:xnack-");
  cr_assert_eq(i.sramecc, LOADER_FEATURE_ON);
  cr_assert_eq(i.xnack, LOADER_FEATURE_OFF);
}

Test(isa, parses_triples)
{
  struct loader_isa i = isa("hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-");
  cr_assert_str_eq(i.processor, "gfx942");
  cr_assert_eq(i.xnack, LOADER_FEATURE_OFF);
  i = isa("amdgcn-amd-amdhsa--gfx90a");
  cr_assert_str_eq(i.processor, "gfx90a");
  i = isa("hip-amdgcn-amd-amdhsa-gfx906");
  cr_assert_str_eq(i.processor, "gfx906");
  i = isa("amdgcn-amd-amdhsa--gfx1030");
  cr_assert_str_eq(i.processor, "gfx1030");
}

Test(isa, rejects_bad_names)
{
  struct loader_isa i;
  const char *bad[] = {"", "gfx", "host-x86_64-unknown-linux--", "gfx942:sramecc", "gfx942:foo+",
                       "gfx942:xnack+:", "x86_64-gfx942", "gfx9g2", "gfx942xyzzy0123456789",
                       "gfx942:xnack*"};
  for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
    cr_assert_eq(loader_isa_parse(bad[k], &i), -EINVAL, "accepted '%s'", bad[k]);
  cr_assert_eq(loader_isa_parse(NULL, &i), -EINVAL);
}

Test(isa, formats_kfd_target_versions)
{
  char buf[64];
  cr_assert_eq(loader_isa_name(90402, true, false, buf, sizeof(buf)), 0);
  cr_assert_str_eq(buf, "gfx942:sramecc+:xnack-");
  cr_assert_eq(loader_isa_name(90010, false, true, buf, sizeof(buf)), 0);
  cr_assert_str_eq(buf, "gfx90a:sramecc-:xnack+");
  cr_assert_eq(loader_isa_name(100300, false, false, buf, sizeof(buf)), 0);
  cr_assert_str_eq(buf, "gfx1030:sramecc-:xnack-");
  cr_assert_eq(loader_isa_name(0, false, false, buf, sizeof(buf)), -EINVAL);
  cr_assert_eq(loader_isa_name(90402, true, false, buf, 8), -ENAMETOOLONG);
}

Test(isa, matches_features)
{
  struct loader_isa dev = isa("gfx942:sramecc+:xnack-");
  cr_assert(loader_isa_compatible(&(struct loader_isa){"gfx942", 0, 0}, &dev));
  struct loader_isa c1 = isa("gfx942:sramecc+"), c2 = isa("gfx942:xnack-"),
                    c3 = isa("gfx942:sramecc-"), c4 = isa("gfx942:xnack+"),
                    c5 = isa("gfx942:sramecc+:xnack-"), c6 = isa("gfx90a"), c7 = isa("gfx940");
  cr_assert(loader_isa_compatible(&c1, &dev));
  cr_assert(loader_isa_compatible(&c2, &dev));
  cr_assert(!loader_isa_compatible(&c3, &dev));
  cr_assert(!loader_isa_compatible(&c4, &dev));
  cr_assert(loader_isa_compatible(&c5, &dev));
  cr_assert(!loader_isa_compatible(&c6, &dev));
  cr_assert(!loader_isa_compatible(&c7, &dev));
}
