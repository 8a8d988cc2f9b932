/* kfdsim's emulated driver as the preload interposer sees it: device files, their ioctls and
 * mmaps, and the generated sysfs tree. Every function returns 0 (or a value) or -errno.
 *
 * Files: an open /dev/kfd or render node is a `struct sim_file`, shared by every descriptor
 * dup'ed from it (refcounted). A /dev/kfd file belongs to the process that opened it: after
 * fork() the child gets -EBADF from its ioctls and mmaps, as amdkfd does (kfd_chardev.c checks
 * process->lead_thread against current->group_leader).
 */
#ifndef KFDSIM_DRIVER_H
#define KFDSIM_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

enum sim_file_kind { SIM_FILE_KFD, SIM_FILE_RENDER };

struct sim_file;

/* Reads the settings (KFDSIM_GPUS, KFDSIM_PROFILE, KFDSIM_VRAM, KFDSIM_LOG) and generates the
 * sysfs tree, once per process image. Safe to call from any interposed function. */
int sim_driver_init(void);
/* Removes the generated sysfs tree if this process created it (atexit and destructor). */
void sim_driver_fini(void);

/* Where `path` points once KFD/DRM sysfs prefixes are rewritten into the private tree: returns
 * `out` (filled) when rewritten, NULL when the path is not ours. */
const char *sim_sysfs_rewrite(const char *path, char *out, size_t out_size);

/* opendir("/dev/dri") on a machine without DRM nodes: a private directory listing our render
 * nodes (their stat() comes from sim_dev_stat), or NULL. */
const char *sim_dev_dir_rewrite(const char *path, char *out, size_t out_size);

/* Is `path` a device node we emulate? 1 with kind/minor set, 0 if not ours. A render node of
 * a GPU we do not have (renderD200) is reported as ours with -ENOENT in *missing. */
int sim_dev_match(const char *path, enum sim_file_kind *kind, uint32_t *minor);
/* The stat() of an emulated device node or of the /dev/dri directory. */
int sim_dev_stat(const char *path, struct stat *st);

/* open(): returns a new file (refcount 1) or NULL with *err set. */
struct sim_file *sim_file_open(enum sim_file_kind kind, uint32_t minor, int *err);
void sim_file_get(struct sim_file *f);
void sim_file_put(struct sim_file *f);
enum sim_file_kind sim_file_kind(const struct sim_file *f);
int sim_file_fstat(const struct sim_file *f, struct stat *st);
/* ioctl() on the file. `arg` is the user pointer. */
int sim_file_ioctl(struct sim_file *f, unsigned long cmd, void *arg);
/* mmap() of the file: returns the mapping or MAP_FAILED with *err set. */
void *sim_file_mmap(struct sim_file *f, void *addr, size_t len, int prot, int flags,
                    uint64_t offset, int *err);

/* popen() of a kernel-module query ("lsmod"): the text the command would print with amdgpu
 * loaded, or NULL when the command is not one we answer. */
const char *sim_popen_answer(const char *command);



/* Provided by the interposer: the emulated file behind descriptor `fd` of this process, or
 * NULL (ACQUIRE_VM receives a render node descriptor). */
struct sim_file *sim_fd_file(int fd);
#endif
