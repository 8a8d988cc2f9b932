/* kfdsim's GPU page tables (sim/kfd/memory.c): translations go through a per-thread cache, which
 * a removed map must leave (as amdkfd flushes the GPU's TLBs on unmap). */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdint.h>

#include "kfd/uapi.h"
#include "kfd/kfd_priv.h"

#define VA 0x7f0000100000ull
#define SIZE 0x2000ull

static struct sim_gpu *new_gpu(void)
{
	struct sim_gpu *g = calloc(1, sizeof(*g));
	cr_assert_not_null(g);
	pthread_rwlock_init(&g->vm.lock, NULL);
	return g;
}

static void free_gpu(struct sim_gpu *g)
{
	free(g->vm.maps);
	pthread_rwlock_destroy(&g->vm.lock);
	free(g);
}

Test(sim_gpuvm, a_removed_map_is_not_translated_from_the_cache)
{
	static uint8_t a[SIZE], b[SIZE];
	struct sim_gpu *g = new_gpu();
	int owner_a, owner_b;
	cr_assert_eq(sim_vm_insert(g, VA, SIZE, a, true, &owner_a), 0);
	for (int i = 0; i < 3; i++) /* the later ones hit the cache */
		cr_assert_eq(sim_gpuvm_translate(g, VA + 0x10, 4, true), a + 0x10);
	sim_vm_remove_owner(g, &owner_a);
	cr_assert_null(sim_gpuvm_translate(g, VA + 0x10, 4, false), "unmapped VA still translated");
	/* The same range mapped again, to other memory and read-only. */
	cr_assert_eq(sim_vm_insert(g, VA, SIZE, b, false, &owner_b), 0);
	cr_assert_eq(sim_gpuvm_translate(g, VA + 0x10, 4, false), b + 0x10);
	cr_assert_null(sim_gpuvm_translate(g, VA + 0x10, 4, true), "a read-only map written");
	cr_assert_null(sim_gpuvm_translate(g, VA + SIZE - 2, 4, false), "access past the map's end");
	free_gpu(g);
}

Test(sim_gpuvm, each_gpu_translates_its_own_maps)
{
	static uint8_t a[SIZE], b[SIZE];
	struct sim_gpu *g0 = new_gpu(), *g1 = new_gpu();
	int owner;
	cr_assert_eq(sim_vm_insert(g0, VA, SIZE, a, true, &owner), 0);
	cr_assert_eq(sim_vm_insert(g1, VA, SIZE, b, true, &owner), 0);
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(sim_gpuvm_translate(g0, VA, 8, false), a);
		cr_assert_eq(sim_gpuvm_translate(g1, VA, 8, false), b);
	}
	sim_vm_reset(g1);
	cr_assert_null(sim_gpuvm_translate(g1, VA, 8, false));
	cr_assert_eq(sim_gpuvm_translate(g0, VA, 8, false), a);
	free_gpu(g0);
	free_gpu(g1);
}

/* Another thread's unmap reaches this thread's cache. */
static void *remove_in_thread(void *arg)
{
	struct sim_gpu *g = arg;
	sim_vm_remove_owner(g, g);
	return NULL;
}

Test(sim_gpuvm, an_unmap_by_another_thread_flushes_this_cache)
{
	static uint8_t a[SIZE];
	struct sim_gpu *g = new_gpu();
	pthread_t t;
	cr_assert_eq(sim_vm_insert(g, VA, SIZE, a, true, g), 0);
	cr_assert_eq(sim_gpuvm_translate(g, VA, 8, false), a);
	cr_assert_eq(pthread_create(&t, NULL, remove_in_thread, g), 0);
	pthread_join(t, NULL);
	cr_assert_null(sim_gpuvm_translate(g, VA, 8, false));
	free_gpu(g);
}
