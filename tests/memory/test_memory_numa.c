/* Placement of pinned host memory (src/memory/numa.c): hipHostMalloc binds the pages to the
 * GPU's NUMA node (preferred, as libhsakmt does), hipHostMallocNumaUser follows the policy the
 * calling thread set. The machine may have one node: the test reads back the policy the pages
 * carry (get_mempolicy MPOL_F_ADDR), which is what the runtime asked for. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

#define MASK_BITS 1024u
#define MODE_FLAGS ((1 << 15) | (1 << 14)) /* MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES */
#define SIZE (4u << 20)

/* The GPU's node as the kernel exposes it: the PCI device's numa_node, through the render node
 * (kfdsim generates it from its profile). */
static int gpu_numa_node(void)
{
	hipDeviceProp_t p;
	char path[96];
	int node = -1;

	cr_assert_eq(hipGetDeviceProperties(&p, 0), hipSuccess);
	snprintf(path, sizeof(path), "/sys/dev/char/226:%d/device/numa_node", 128);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "no %s", path);
	cr_assert_eq(fscanf(f, "%d", &node), 1);
	fclose(f);
	return node;
}

/* [out] mask: the nodes of the policy on the page at p; returns the mode without its flags. */
static int page_policy(void *p, unsigned long *mask)
{
	int mode = -1;
	memset(mask, 0, MASK_BITS / 8);
	cr_assert_eq(get_mempolicy(&mode, mask, MASK_BITS, p, MPOL_F_ADDR), 0);
	return mode & ~MODE_FLAGS;
}

static void check_usable(void *h)
{
	static unsigned char in[SIZE], out[SIZE];
	void *d = NULL;
	for (size_t i = 0; i < SIZE; i++)
		in[i] = (unsigned char)(i * 7 + 1);
	memcpy(h, in, SIZE);
	cr_assert_eq(hipMalloc(&d, SIZE), hipSuccess);
	cr_assert_eq(hipMemcpy(d, h, SIZE, hipMemcpyHostToDevice), hipSuccess);
	memset(h, 0, SIZE);
	cr_assert_eq(hipMemcpy(h, d, SIZE, hipMemcpyDeviceToHost), hipSuccess);
	memcpy(out, h, SIZE);
	cr_assert_arr_eq(out, in, SIZE);
	cr_assert_eq(hipFree(d), hipSuccess);
}

Test(memory_numa, host_malloc_prefers_the_gpu_node)
{
	unsigned long mask[MASK_BITS / (8 * sizeof(unsigned long))];
	void *h = NULL;
	int node = gpu_numa_node();

	cr_assert_geq(node, 0, "kfdsim gives every GPU a node");
	cr_assert_eq(hipHostMalloc(&h, SIZE, hipHostMallocDefault), hipSuccess);
	cr_assert_eq(page_policy(h, mask), MPOL_PREFERRED);
	cr_assert(mask[node / 64] & (1ul << (node % 64)), "pages preferred on node %d", node);
	/* The last page too: the whole allocation is bound. */
	cr_assert_eq(page_policy((char *)h + SIZE - 1, mask), MPOL_PREFERRED);
	check_usable(h);
	cr_assert_eq(hipHostFree(h), hipSuccess);

	/* Coherent (fine-grained) and mapped host memory are placed the same way. */
	cr_assert_eq(hipHostMalloc(&h, SIZE, hipHostMallocCoherent | hipHostMallocMapped), hipSuccess);
	cr_assert_eq(page_policy(h, mask), MPOL_PREFERRED);
	cr_assert_eq(hipHostFree(h), hipSuccess);
}

Test(memory_numa, numa_user_follows_the_thread_policy)
{
	unsigned long mask[MASK_BITS / (8 * sizeof(unsigned long))];
	unsigned long want[MASK_BITS / (8 * sizeof(unsigned long))];
	void *h = NULL;

	/* The thread binds to node 0 (every host has it): the allocation follows. */
	memset(want, 0, sizeof(want));
	want[0] = 1;
	cr_assert_eq(set_mempolicy(MPOL_BIND, want, MASK_BITS), 0);
	cr_assert_eq(hipHostMalloc(&h, SIZE, hipHostMallocNumaUser), hipSuccess);
	cr_assert_eq(page_policy(h, mask), MPOL_BIND);
	cr_assert_eq(mask[0] & 1ul, 1ul);
	check_usable(h);
	unsigned int flags = 0;
	cr_assert_eq(hipHostGetFlags(&flags, h), hipSuccess);
	cr_assert(flags & hipHostMallocNumaUser);
	cr_assert_eq(hipHostFree(h), hipSuccess);

	/* Interleave is copied too. */
	cr_assert_eq(set_mempolicy(MPOL_INTERLEAVE, want, MASK_BITS), 0);
	cr_assert_eq(hipHostMalloc(&h, SIZE, hipHostMallocNumaUser), hipSuccess);
	cr_assert_eq(page_policy(h, mask), MPOL_INTERLEAVE);
	cr_assert_eq(hipHostFree(h), hipSuccess);

	/* Back on the default policy: NumaUser leaves the range alone (local allocation), while a
	 * plain hipHostMalloc still prefers the GPU's node. */
	cr_assert_eq(set_mempolicy(MPOL_DEFAULT, NULL, 0), 0);
	cr_assert_eq(hipHostMalloc(&h, SIZE, hipHostMallocNumaUser), hipSuccess);
	cr_assert_eq(page_policy(h, mask), MPOL_DEFAULT);
	cr_assert_eq(hipHostFree(h), hipSuccess);
	cr_assert_eq(hipHostMalloc(&h, SIZE, 0), hipSuccess);
	cr_assert_eq(page_policy(h, mask), MPOL_PREFERRED);
	cr_assert_eq(hipHostFree(h), hipSuccess);
}

/* Host memory that is not pinned by the runtime keeps whatever policy it had. */
Test(memory_numa, registered_memory_is_not_rebound)
{
	unsigned long mask[MASK_BITS / (8 * sizeof(unsigned long))];
	void *p = aligned_alloc(4096, SIZE);
	cr_assert_not_null(p);
	memset(p, 1, SIZE);
	cr_assert_eq(hipHostRegister(p, SIZE, hipHostRegisterDefault), hipSuccess);
	cr_assert_eq(page_policy(p, mask), MPOL_DEFAULT);
	cr_assert_eq(hipHostUnregister(p), hipSuccess);
	free(p);
}
