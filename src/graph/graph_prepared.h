/* HIP graphs: prepared launches (graph_prepared.c). Kept apart from graph.h: the prepared launch
 * knows nothing of graphs and nodes, only the list of kernels graph_exec.c hands it, so it stays
 * outside the graph engine's circle of modules. */
#ifndef HIPKFD_GRAPH_PREPARED_H
#define HIPKFD_GRAPH_PREPARED_H

#include <stddef.h>
#include <stdint.h>

#include <hip/hip_runtime_api.h>

struct graph_prepared;
struct hip_stream;

/* One kernel launch of a graph, in launch order. args: the packed explicit arguments. */
struct graph_prep_kernel {
  hipFunction_t fn;
  dim3 grid, block;               /* grid in blocks */
  uint32_t shared_mem;
  const void *args;
  size_t args_size;
};

/* The kernels to prepare: [out] k (malloc'd, freed by the caller of the callback), [out] n of
 * them enabled, [out] n_all counting disabled ones too (what the ring must hold after enabling
 * them). Nonzero when the graph has a node the fast path cannot take. */
typedef int (*graph_prep_list_fn)(void *ctx, struct graph_prep_kernel **k, size_t *n,
                                  size_t *n_all);

/* Prepare for launches on the calling thread's current device. NULL: replay every launch. */
struct graph_prepared *graph_prep_create(graph_prep_list_fn list, void *ctx);
/* The nodes changed: the next launch rebuilds (NULL-safe). */
void graph_prep_stale(struct graph_prepared *p);
/* Launch on [in] s through the prepared packets (rebuilt first through [in] list if stale).
 * hipErrorNotSupported: take the replay. */
hipError_t graph_prep_launch(struct graph_prepared *p, struct hip_stream *s,
                             graph_prep_list_fn list, void *ctx);
/* Free (waits for the launches in flight; NULL-safe). */
void graph_prep_destroy(struct graph_prepared *p);

#endif
