/* Running LLVM 19's tools for runtime compilation (hiprtc.c) and linking (rtc_link.c): a scratch
 * directory, files in and out of it, and a tool run with its messages in a log file. */
#ifndef HIPKFD_RTC_RTC_TOOLS_H
#define HIPKFD_RTC_RTC_TOOLS_H

#include <stdbool.h>
#include <stddef.h>

#define RTC_MAX_ARGS 64
#define RTC_MAX_STORAGE 32

/* An argument vector with room for formatted arguments. */
struct rtc_args {
  const char *argv[RTC_MAX_ARGS + 1];
  int argc;
  char storage[RTC_MAX_STORAGE][2048];
  int nstorage;
};

bool rtc_arg(struct rtc_args *a, const char *s);
bool rtc_argf(struct rtc_args *a, const char *fmt, const char *v); /* one %s */

/* A fresh private directory under $TMPDIR (or /tmp) in `dir`; false if none could be made. */
bool rtc_scratch_dir(char *dir, size_t size);
void rtc_remove_tree(const char *dir);

bool rtc_write_file(const char *path, const void *data, size_t len);
/* The whole file, NUL-terminated (not counted in *len); NULL if unreadable. Caller frees. */
char *rtc_read_file(const char *path, size_t *len);

/* Runs argv (argv[0] an LLVM 19 tool such as "clang++-19" or "llvm-link-19", looked up on PATH,
 * then in /usr/lib/llvm-19/bin under its unversioned name) with stdout and stderr appended to
 * `log_path`. True if it exited with status 0. */
bool rtc_run(struct rtc_args *a, const char *log_path);

/* The current device's target ID ("gfx942:sramecc+:xnack-"; "gfx942" when there is none). */
void rtc_current_arch(char *out, size_t size);

#endif
