/* "Accessed by the CPU" advice on managed memory (hipMemAdviseSetAccessedBy with hipCpuDeviceId).
 *
 * KFD has no SVM attribute for it (ACCESS_IN_PLACE names a GPU), and the CPU reaches managed
 * memory anyway, but CUDA records the advice like a GPU's and hipMemRangeGetAttribute reports it
 * for a range wholly advised. The runtime keeps the advised page ranges itself, per allocation
 * (by its never-reused allocation id, so ranges of a freed allocation never apply to a new one at
 * the same address).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "managed_cpu_access.h"

struct cpu_range {
	uint64_t alloc_id, start, end;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct cpu_range *ranges; /* lock */
static size_t n_ranges, cap_ranges;

static bool reserve(size_t n)
{
	if (n <= cap_ranges)
		return true;
	size_t cap = cap_ranges ? 2 * cap_ranges : 16;
	while (cap < n)
		cap *= 2;
	struct cpu_range *r = realloc(ranges, cap * sizeof(*r));
	if (!r)
		return false;
	ranges = r;
	cap_ranges = cap;
	return true;
}

/* Removes [start, end) of allocation id from the records, splitting one that straddles it. */
static bool subtract(uint64_t id, uint64_t start, uint64_t end)
{
	for (size_t i = 0; i < n_ranges; i++) {
		struct cpu_range *r = &ranges[i];
		if (r->alloc_id != id || r->end <= start || r->start >= end)
			continue;
		if (r->start < start && r->end > end) { /* keep both sides */
			if (!reserve(n_ranges + 1))
				return false;
			r = &ranges[i];
			ranges[n_ranges++] = (struct cpu_range){id, end, r->end};
			r->end = start;
		} else if (r->start < start) {
			r->end = start;
		} else if (r->end > end) {
			r->start = end;
		} else {
			ranges[i--] = ranges[--n_ranges];
		}
	}
	return true;
}

int managed_cpu_access_set(uint64_t alloc_id, uint64_t start, uint64_t end, bool on)
{
	int err = 0;
	pthread_mutex_lock(&lock);
	if (!subtract(alloc_id, start, end) || (on && !reserve(n_ranges + 1)))
		err = -1;
	else if (on)
		ranges[n_ranges++] = (struct cpu_range){alloc_id, start, end};
	pthread_mutex_unlock(&lock);
	return err;
}

bool managed_cpu_access_covers(uint64_t alloc_id, uint64_t start, uint64_t end)
{
	bool covered = true;
	pthread_mutex_lock(&lock);
	/* walk forward: some record of the allocation must contain each next uncovered byte */
	while (start < end && covered) {
		covered = false;
		for (size_t i = 0; i < n_ranges; i++)
			if (ranges[i].alloc_id == alloc_id && ranges[i].start <= start &&
			    ranges[i].end > start) {
				start = ranges[i].end;
				covered = true;
				break;
			}
	}
	pthread_mutex_unlock(&lock);
	return covered;
}
