/* Private to src/loader: the pieces of phase 1 shared between its files. */
#ifndef HIPKFD_LOADER_INTERNAL_H
#define HIPKFD_LOADER_INTERNAL_H

#include "loader.h"

/* Parses the NT_AMDGPU_METADATA msgpack blob into co->kernels (names, args, segment sizes,
 * register counts), co->metadata_version and co->target. -ENOEXEC for malformed metadata. */
int loader_metadata_parse(const void *blob, size_t size, struct loader_code_object *co);

/* Frees what loader_metadata_parse() filled in. */
void loader_metadata_free(struct loader_code_object *co);

#endif
