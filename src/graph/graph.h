/* HIP graphs: the objects behind hipGraph_t, hipGraphNode_t and hipGraphExec_t (private to
 * src/graph).
 *
 * A graph owns its nodes; a node keeps both directions of its edges (dependencies and
 * dependents) so that every query is a walk of one array. A child-graph node owns a private
 * clone of the graph it was given (CUDA semantics: later edits of the original do not reach it).
 * An executable graph owns a clone of the graph it was instantiated from and a topological order
 * of that clone; launching it publishes prepared packets (graph_prepared.c: graphs of kernels)
 * or replays the nodes in that order through the public HIP calls
 * (hipModuleLaunchKernel, hipMemcpy3DAsync, hipMemsetD*Async, hipLaunchHostFunc, hipEventRecord,
 * hipStreamWaitEvent), so graphs depend on no internals of the stream and copy layers.
 *
 * Thread safety: as in CUDA, a graph (and its nodes) must not be used from two threads at once;
 * an executable graph may not be launched concurrently with its own update or destruction.
 */
#ifndef HIPKFD_GRAPH_GRAPH_H
#define HIPKFD_GRAPH_GRAPH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hip/hip_runtime_api.h>

#define GRAPH_MAGIC 0x47525048u      /* "GRPH": catches stale or foreign hipGraph_t */
#define GRAPH_NODE_MAGIC 0x474e4f44u /* "GNOD" */
#define GRAPH_EXEC_MAGIC 0x47455843u /* "GEXC" */

/* A growable array of node pointers. */
struct node_list {
  hipGraphNode_t *v;
  size_t n, cap;
};

/* A kernel node's launch: the explicit arguments are copied, at node creation, into one buffer
 * laid out as the kernel's kernarg segment (offsets from the code object's metadata), which is
 * what the `extra` HIP_LAUNCH_PARAM_BUFFER_POINTER form of hipModuleLaunchKernel takes. */
struct graph_kernel {
  hipKernelNodeParams p;       /* as given; kernelParams/extra point at our copies below */
  hipFunction_t fn;            /* the resolved function */
  uint8_t *args;               /* packed explicit arguments (owned) */
  size_t args_size;
  void **arg_ptrs;             /* one pointer into `args` per parameter (owned): kernelParams */
  uint32_t nargs;
};

/* A memcpy node: always kept as 3D parameters; `one_d` remembers hipGraphAddMemcpyNode1D.
 * Symbol copies (types MemcpyToSymbol/FromSymbol) keep the symbol and resolve it at each launch
 * (hipMemcpyToSymbolAsync/FromSymbolAsync), with the host side in srcPtr/dstPtr. */
struct graph_memcpy {
  hipMemcpy3DParms p;
  bool one_d;
  const void *symbol;
  size_t offset;
};

/* Memory of a hipGraphAddMemAllocNode: allocated when the node is created (its address is fixed
 * from then on, as CUDA guarantees) and released when the last node referring to it (the alloc
 * node, free nodes in any graph, and their copies in clones and executable graphs) is destroyed.
 * In between it is "allocated" in CUDA's sense from a launch of its alloc node until a launch of
 * a free node or a hipFree/hipFreeAsync of it (graph_mem_free_outside); that is what the device's
 * graph-memory statistics count. Every live one is in graph_mem.c's registry, found by address. */
struct graph_mem {
  _Atomic int refs;
  void *ptr;
  size_t size;
  int device;
  uint64_t alloc_id;           /* the runtime allocation behind ptr (mem_info.alloc_id) */
  bool allocated;              /* under graph_mem.c's lock */
  hipMemAllocNodeParams params; /* as given to the node, dptr filled in (get-params) */
  struct graph_mem *next;      /* registry link */
};

/* The rule that a graph with memory nodes has one executable graph at a time (CUDA): shared by
 * the graph and the executable graphs made from it, which may outlive it. */
struct graph_mem_guard {
  _Atomic int refs;
  _Atomic int execs;
};

/* A batched memory operation node: its own copy of the operations (graph_batch.c). */
struct graph_batch {
  hipBatchMemOpNodeParams p;   /* as given; paramArray points at ops */
  hipStreamBatchMemOpParams *ops; /* owned */
};

/* Launch attributes of a kernel node (hipGraphKernelNodeSetAttribute): kept with the node, not
 * with its parameters, so hipGraphKernelNodeSetParams leaves them as they are (CUDA). */
struct kernel_attrs {
  hipAccessPolicyWindow access_policy; /* accepted and reported; gfx9 caches have no such hint */
  int cooperative;                     /* launch as hipModuleLaunchCooperativeKernel */
  int priority;
};

struct hipGraphNode {
  uint32_t magic;
  hipGraphNodeType type;
  struct ihipGraph *graph;     /* owner */
  hipGraphNode_t origin;       /* the node this one is a clone of (hipGraphNodeFindInClone) */
  struct node_list deps;       /* edges into this node */
  struct node_list out;        /* edges out of this node */
  unsigned id;                 /* creation number in its graph (DOT names, stable order) */
  bool enabled;                /* hipGraphNodeSetEnabled (meaningful in an exec's clone) */
  bool capture_joined;         /* capture.c: the capture's origin stream has waited on it */
  size_t mark;                 /* scratch for graph walks (graph_topo_order) */
  struct kernel_attrs kattr;   /* kernel nodes only */
  union {
    struct graph_kernel kernel;
    struct graph_memcpy memcpy;
    hipMemsetParams memset;
    hipHostNodeParams host;
    struct ihipGraph *child;   /* owned clone */
    hipEvent_t event;          /* event record / wait */
    struct graph_mem *mem;     /* mem alloc / mem free (a reference) */
    struct graph_batch batch;  /* batched memory operations */
  } u;
};

/* References a graph holds on a user object (hipGraphRetainUserObject). */
struct graph_uref {
  hipUserObject_t object;
  uint64_t serial;             /* the object's creation number: a reused address is not it */
  unsigned count;
};

struct ihipGraph {
  uint32_t magic;
  struct node_list nodes;      /* in creation order */
  struct graph_uref *urefs;    /* released with the graph; clones (and executables) hold copies */
  size_t nurefs;
  unsigned next_id;
  struct ihipGraph *origin;    /* the graph this one is a clone of, or NULL */
  struct graph_mem_guard *mem_guard; /* made at its first instantiation with memory nodes */
};

struct hipGraphExec {
  uint32_t magic;
  struct ihipGraph *graph;     /* private clone of the instantiated graph (owned) */
  hipGraphNode_t *order;       /* a topological order of graph's nodes (owned) */
  size_t norder;
  unsigned long long flags;
  struct graph_mem_guard *mem_guard; /* of the graph it was made from, or NULL */
  struct graph_prepared *prep; /* graph_prepared.c: the prepared launch, or NULL (replay) */
};

/* ---- graph.c ---- */

struct hip_live_set;
extern struct hip_live_set graph_live_graphs, graph_live_nodes, graph_live_execs;
bool graph_valid(hipGraph_t g);
bool graph_node_valid(hipGraphNode_t n);
int node_list_push(struct node_list *l, hipGraphNode_t n);
bool node_list_has(const struct node_list *l, hipGraphNode_t n);
void node_list_remove(struct node_list *l, hipGraphNode_t n);

/* Allocates a graph. Returns NULL on ENOMEM. */
struct ihipGraph *graph_alloc(void);
/* Frees [in] g and every node in it. */
void graph_free(struct ihipGraph *g);
/* A deep copy of [in] g; each new node's `origin` is its source node. NULL on ENOMEM. */
struct ihipGraph *graph_clone(const struct ihipGraph *g);
/* Adds [in] n (fully built, params owned) to [in] g after [in] deps (validated here). On error
 * the node is not added and the caller still owns it. */
hipError_t graph_add_node(struct ihipGraph *g, hipGraphNode_t n, const hipGraphNode_t *deps,
                          size_t ndeps);
/* A topological order of [in] g's nodes in [out] order (malloc'd; *n entries). Returns
 * hipErrorInvalidValue if the graph has a cycle. */
hipError_t graph_topo_order(const struct ihipGraph *g, hipGraphNode_t **order, size_t *n);

/* ---- graph_node.c ---- */

hipGraphNode_t node_alloc(hipGraphNodeType type);
/* Frees a node's parameters and the node (edges must already be gone). */
void node_free(hipGraphNode_t n);
/* Copies [in] src's parameters into [in] dst (same type); child graphs are cloned. */
hipError_t node_copy_params(hipGraphNode_t dst, const struct hipGraphNode *src);
/* Checks and stores kernel parameters into [in] k (replacing what it had). */
hipError_t node_kernel_set(struct graph_kernel *k, const hipKernelNodeParams *p);
void node_kernel_clear(struct graph_kernel *k);
hipError_t node_memcpy_check(const hipMemcpy3DParms *p);
/* The kinds a copy node takes: hipMemcpyHostToHost..Default and DeviceToDeviceNoCU (clr). */
bool node_memcpy_kind_valid(hipMemcpyKind kind);
/* A 1D copy's arguments, sizes checked against the allocations (clr's ihipMemcpy_validate) and
 * the kind against what the two sides are (clr's GraphMemcpyNode1D::ValidateParams). */
hipError_t node_memcpy_1d_check(void *dst, const void *src, size_t count, hipMemcpyKind kind);
/* The same for new parameters of an existing node, where clr also refuses dst == src. */
hipError_t node_memcpy_1d_set_check(void *dst, const void *src, size_t count, hipMemcpyKind kind);
/* What the runtime knows of the memory at [in] p. */
enum mem_side { MEM_SIDE_UNKNOWN, MEM_SIDE_DEVICE, MEM_SIDE_OTHER /* pinned, registered, managed */ };
enum mem_side node_mem_side(const void *p);
hipError_t node_memset_check(const hipMemsetParams *p);
/* A 3D parameter block for a 1D copy. */
hipMemcpy3DParms node_memcpy_1d(void *dst, const void *src, size_t count, hipMemcpyKind kind);

/* ---- graph_batch.c ---- */

void node_batch_clear(struct graph_batch *b);
hipError_t node_batch_copy(struct graph_batch *dst, const struct graph_batch *src);
hipError_t node_batch_launch(const struct graph_batch *b, hipStream_t stream);

/* ---- graph_mem.c ---- */

struct graph_mem *graph_mem_get(struct graph_mem *m);
void graph_mem_put(struct graph_mem *m);
/* Instantiating [in] g: if it holds memory nodes, it may have no other executable graph (then
 * hipErrorNotSupported); [out] guard is the reference the executable keeps (NULL without memory
 * nodes). */
hipError_t graph_mem_instantiate(struct ihipGraph *g, struct graph_mem_guard **guard);
/* Drops a guard reference; [in] exec: the holder is an executable graph. */
void graph_mem_guard_put(struct graph_mem_guard *guard, bool exec);
/* [in] g holds memory nodes (child graphs may not). */
bool graph_has_mem_nodes(const struct ihipGraph *g);
/* Builds a MemAlloc node for [in] p (allocating), or a MemFree node of [in] dptr in [in] g (any
 * graph's allocation, not freed by another free node of g). */
hipError_t graph_mem_alloc_node(const hipMemAllocNodeParams *p, hipGraphNode_t *out);
hipError_t graph_mem_free_node(const struct ihipGraph *g, void *dptr, hipGraphNode_t *out);
/* A launch of memory node [in] n: the allocation becomes allocated (alloc node) or free. */
hipError_t graph_mem_launch(hipGraphNode_t n);
/* graph_mem_free_outside() is declared in capture.h (the memory layer calls it). */

/* ---- graph_user_object.c ---- */

/* Drops every user-object reference [in] g holds. */
void graph_urefs_release(struct ihipGraph *g);
/* Gives [in] dst the references [in] src holds (retaining them). 0 or -ENOMEM. */
int graph_urefs_copy(struct ihipGraph *dst, const struct ihipGraph *src);

/* ---- graph_extra.c ---- */

/* Accounts [in] delta bytes of graph memory on device [in] device (hipGraphMemAttr*). */
void graph_mem_account(int device, int64_t delta);

/* ---- graph_exec.c ---- */

/* Enqueues [in] n on [in] stream. */
hipError_t node_launch(hipGraphNode_t n, hipStream_t stream);
/* The node of executable [in] x made from [in] node of its graph, if [in] node has [in] type. */
hipError_t graph_exec_node(hipGraphExec_t x, hipGraphNode_t node, hipGraphNodeType type,
                           hipGraphNode_t *out);

#endif
