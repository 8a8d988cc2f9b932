/* Running shell commands in the toolchain tests: output captured, environment cleaned. */
#ifndef TC_RUN_H
#define TC_RUN_H

/* Runs the printf-formatted shell command with stderr merged into stdout; returns its exit
 * status (-1 if it could not run) and, in *out (caller frees), everything it printed. */
int tc_run(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Removes every variable that would steer hipcc, CMake or kfdsim, so a test sees what a new
 * user sees; creates the test's scratch directory. */
void tc_clean_env(void);

#endif
