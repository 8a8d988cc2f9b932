/* Helpers shared by the tests that drive kfdsim through the raw /dev/kfd ABI. */
#ifndef HIPKFD_TESTS_KFD_TEST_UTIL_H
#define HIPKFD_TESTS_KFD_TEST_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

/* ioctl returning 0 or -errno, as the kernel's handlers do */
static inline int kioctl(int fd, unsigned long cmd, void *arg)
{
  return ioctl(fd, cmd, arg) == 0 ? 0 : -errno;
}

/* value of `name` in a sysfs properties file, or -1 */
static inline long long prop(const char *path, const char *name)
{
  FILE *f = fopen(path, "r");
  char key[128];
  long long v, found = -1;
  if (!f)
    return -1;
  while (fscanf(f, "%127s %lld", key, &v) == 2)
    if (!strcmp(key, name))
      found = v;
  fclose(f);
  return found;
}

#endif
