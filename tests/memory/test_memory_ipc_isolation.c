/* IPC isolation between two real processes: an importer reaches exactly the exported allocation
 * (its bytes, its size, nothing of its neighbours in the exporter's chunk), copies past its end are
 * refused, every bad handle gets its error and no signal, and a freed exported slot is never given
 * to a new allocation while an importer may map it. The test process forks before the runtime is
 * initialised (a child cannot use its parent's KFD state); the parent exports, the child imports,
 * and they talk over pipes. Each child also arms alarm(): a hang ends as a failed test. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>

#include "../../src/memory/ipc_handle.h"

#include "../support/fd_io.h"

#define SLOT 4096u
#define CHILD_SECONDS 60

/* A child running [in] fn(read end, write end); the parent keeps the other ends. */
struct peer {
	pid_t pid;
	int to, from;
};

static struct peer peer_start(int (*fn)(int from_parent, int to_parent))
{
	int down[2], up[2];
	cr_assert_eq(pipe(down), 0);
	cr_assert_eq(pipe(up), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(down[1]);
		close(up[0]);
		alarm(CHILD_SECONDS);
		_exit(fn(down[0], up[1]));
	}
	close(down[0]);
	close(up[1]);
	return (struct peer){.pid = pid, .to = down[1], .from = up[0]};
}

/* The child's exit: 0, or the step that failed (a signal fails the test too). */
static void peer_finish(struct peer *p)
{
	int status = 0;
	cr_assert_eq(waitpid(p->pid, &status, 0), p->pid);
	cr_assert(WIFEXITED(status), "child killed by signal %d", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	cr_assert_eq(WEXITSTATUS(status), 0, "child failed at step %d", WEXITSTATUS(status));
	close(p->to);
	close(p->from);
}

static uint32_t pattern(size_t i, uint32_t seed)
{
	return (uint32_t)(i * 2654435761u) ^ seed;
}

static void fill(void *d, size_t bytes, uint32_t seed)
{
	uint32_t *h = malloc(bytes);
	for (size_t i = 0; i < bytes / 4; i++)
		h[i] = pattern(i, seed);
	cr_assert_eq(hipMemcpy(d, h, bytes, hipMemcpyHostToDevice), hipSuccess);
	free(h);
}

static bool holds(const void *d, size_t bytes, uint32_t seed)
{
	uint32_t *h = malloc(bytes);
	bool ok = hipMemcpy(h, d, bytes, hipMemcpyDeviceToHost) == hipSuccess;
	for (size_t i = 0; ok && i < bytes / 4; i++)
		ok = h[i] == pattern(i, seed);
	free(h);
	return ok;
}

/* ---- the importer reaches the allocation and nothing else -------------------------------------- */

static int exact_child(int from, int to)
{
	hipIpcMemHandle_t h[2];
	void *p = NULL, *q = NULL;
	size_t size = 0;
	static uint8_t buf[3 * SLOT];

	if (!read_full(from, h, sizeof(h)))
		return 1;
	if (hipIpcOpenMemHandle(&p, h[0], hipIpcMemLazyEnablePeerAccess) != hipSuccess || !p)
		return 2;
	/* The exporter's requested size, as clr reports it; not the chunk (2 MiB before). */
	if (hipMemPtrGetInfo(p, &size) != hipSuccess || size != SLOT)
		return 3;
	if (!holds(p, SLOT, 0xb0b))
		return 4;
	/* Copies that run past the end are refused, in both directions, and move nothing. */
	memset(buf, 0x5a, sizeof(buf));
	if (hipMemcpy(buf, p, SLOT + 1, hipMemcpyDeviceToHost) == hipSuccess)
		return 5;
	if (hipMemcpy(buf, (char *)p + SLOT - 8, 16, hipMemcpyDeviceToHost) == hipSuccess)
		return 6;
	if (hipMemcpy(buf, p, 3 * SLOT, hipMemcpyDefault) == hipSuccess)
		return 7;
	if (hipMemcpy(p, buf, 2 * SLOT, hipMemcpyHostToDevice) == hipSuccess)
		return 8;
	if (hipMemset(p, 0x77, SLOT + 4) == hipSuccess)
		return 9;
	for (size_t i = 0; i < sizeof(buf); i++)
		if (buf[i] != 0x5a)
			return 10;
	/* An odd size: reported as requested, and a copy one byte past it is refused. */
	if (hipIpcOpenMemHandle(&q, h[1], 0) != hipSuccess || hipMemPtrGetInfo(q, &size) != hipSuccess ||
	    size != 100)
		return 11;
	if (hipMemcpy(buf, q, 100, hipMemcpyDeviceToHost) != hipSuccess || buf[0] != 0x11 || buf[99] != 0x11)
		return 12;
	if (hipMemcpy(buf, q, 101, hipMemcpyDeviceToHost) == hipSuccess)
		return 13;
	/* Writes through the import land in the exporter's allocation. */
	fill(p, SLOT, 0xfeed);
	if (hipIpcCloseMemHandle(p) != hipSuccess || hipIpcCloseMemHandle(q) != hipSuccess)
		return 14;
	return write_full(to, "d", 1) ? 0 : 15;
}

Test(ipc_isolation, importer_reaches_exactly_the_allocation, .timeout = 120)
{
	struct peer c = peer_start(exact_child);
	void *a = NULL, *b = NULL, *n = NULL, *odd = NULL;

	/* Three neighbours in one chunk, the middle one exported. */
	cr_assert_eq(hipMalloc(&a, SLOT), hipSuccess);
	cr_assert_eq(hipMalloc(&b, SLOT), hipSuccess);
	cr_assert_eq(hipMalloc(&n, SLOT), hipSuccess);
	cr_assert_eq(hipMalloc(&odd, 100), hipSuccess);
	fill(a, SLOT, 0xa);
	fill(b, SLOT, 0xb0b);
	fill(n, SLOT, 0xc);
	cr_assert_eq(hipMemset(odd, 0x11, 100), hipSuccess);
	hipIpcMemHandle_t h[2];
	cr_assert_eq(hipIpcGetMemHandle(&h[0], b), hipSuccess);
	cr_assert_eq(hipIpcGetMemHandle(&h[1], odd), hipSuccess);
	cr_assert(write_full(c.to, h, sizeof(h)));
	char done = 0;
	cr_assert(read_full(c.from, &done, 1));
	peer_finish(&c);
	cr_assert(holds(b, SLOT, 0xfeed), "the importer's writes reached the allocation");
	cr_assert(holds(a, SLOT, 0xa), "the neighbour below is intact");
	cr_assert(holds(n, SLOT, 0xc), "the neighbour above is intact");
	for (void **p = (void *[]){a, b, n, odd, NULL}; *p; p++)
		cr_assert_eq(hipFree(*p), hipSuccess);
}

/* ---- bad handles ------------------------------------------------------------------------------- */

enum { H_GOOD, H_BIG, H_FREED, H_COUNT };

struct bad_case {
	const char *what;
	hipError_t want;
	void (*edit)(struct ipc_handle *h);
};

static void e_size_up(struct ipc_handle *h) { h->size += 1; }
static void e_size_page(struct ipc_handle *h) { h->size += 4096; }
static void e_size_huge(struct ipc_handle *h) { h->size = 1ull << 40; }
static void e_size_down(struct ipc_handle *h) { h->size -= 1; }
static void e_size_zero(struct ipc_handle *h) { h->size = 0; }
static void e_offset_up(struct ipc_handle *h) { h->offset += 4096; }
static void e_offset_down(struct ipc_handle *h) { h->offset = h->offset ? h->offset - 4096 : 8192; }
static void e_offset_odd(struct ipc_handle *h) { h->offset += 1; }
static void e_offset_far(struct ipc_handle *h) { h->offset = 1ull << 46; }
static void e_delta_end(struct ipc_handle *h) { h->delta = h->size; }
static void e_token(struct ipc_handle *h) { h->token ^= 1; }
static void e_record(struct ipc_handle *h) { h->record += 8; }
static void e_record_wild(struct ipc_handle *h) { h->record = 0x1000; }
static void e_ino(struct ipc_handle *h) { h->ino ^= 1; }
static void e_fd(struct ipc_handle *h) { h->fd += 1; }
static void e_fd_negative(struct ipc_handle *h) { h->fd = -1; }
static void e_pid_init(struct ipc_handle *h) { h->pid = 1; }
static void e_version(struct ipc_handle *h) { h->version += 1; }
static void e_magic(struct ipc_handle *h) { h->magic ^= 0x100; }

static const struct bad_case bad_cases[] = {
	{"size enlarged by a byte", hipErrorInvalidDevicePointer, e_size_up},
	{"size enlarged by a page", hipErrorInvalidDevicePointer, e_size_page},
	{"size enlarged to 1 TiB", hipErrorInvalidDevicePointer, e_size_huge},
	{"size truncated", hipErrorInvalidDevicePointer, e_size_down},
	{"size 0", hipErrorInvalidValue, e_size_zero},
	{"offset a page further", hipErrorInvalidDevicePointer, e_offset_up},
	{"offset a page back", hipErrorInvalidDevicePointer, e_offset_down},
	{"offset not page aligned", hipErrorInvalidValue, e_offset_odd},
	{"offset far beyond the buffer", hipErrorInvalidDevicePointer, e_offset_far},
	{"pointer beyond the allocation", hipErrorInvalidValue, e_delta_end},
	{"token changed", hipErrorInvalidDevicePointer, e_token},
	{"record moved", hipErrorInvalidDevicePointer, e_record},
	{"record at an unmapped address", hipErrorInvalidDevicePointer, e_record_wild},
	{"inode changed", hipErrorInvalidDevicePointer, e_ino},
	{"another descriptor", hipErrorInvalidDevicePointer, e_fd},
	{"negative descriptor", hipErrorInvalidValue, e_fd_negative},
	{"another process (init)", hipErrorInvalidDevicePointer, e_pid_init},
	{"unknown version", hipErrorInvalidValue, e_version},
	{"no magic", hipErrorInvalidValue, e_magic},
};
#define N_BAD (sizeof(bad_cases) / sizeof(bad_cases[0]))

/* Child: each case's error, reported back as one hipError_t per case, then the random handles. */
static int bad_child(int from, int to)
{
	hipIpcMemHandle_t h[H_COUNT];
	hipError_t got[N_BAD + 8];
	void *sentinel = (void *)0x1234, *p = sentinel;

	if (!read_full(from, h, sizeof(h)))
		return 1;
	for (size_t i = 0; i < N_BAD; i++) {
		struct ipc_handle ih;
		memcpy(&ih, &h[H_GOOD], sizeof(ih));
		bad_cases[i].edit(&ih);
		hipIpcMemHandle_t bad;
		memcpy(&bad, &ih, sizeof(bad));
		got[i] = hipIpcOpenMemHandle(&p, bad, 0);
		if (p != sentinel)
			return 2; /* a failed call leaves its output alone */
	}
	size_t k = N_BAD;
	/* The allocation was freed before the handle reached us: stale. */
	got[k++] = hipIpcOpenMemHandle(&p, h[H_FREED], 0);
	/* 2000 handles of random bytes, and 2000 with our magic and the exporter's pid (so they go
	 * as far as the exporter's records): none opens, none kills us. */
	srand(12);
	int random_ok = 0, random_signalled = 0;
	for (int i = 0; i < 4000; i++) {
		uint8_t bytes[sizeof(hipIpcMemHandle_t)];
		for (size_t j = 0; j < sizeof(bytes); j++)
			bytes[j] = (uint8_t)rand();
		if (i >= 2000) {
			struct ipc_handle ih;
			memcpy(&ih, bytes, sizeof(ih));
			struct ipc_handle good;
			memcpy(&good, &h[H_GOOD], sizeof(good));
			ih.magic = IPC_MAGIC;
			ih.version = IPC_VERSION;
			ih.pid = good.pid;
			if (i & 1) /* half keep the real record and descriptor: only the rest is forged */
				ih.record = good.record, ih.fd = good.fd, ih.ino = good.ino;
			memcpy(bytes, &ih, sizeof(ih));
		}
		hipIpcMemHandle_t r;
		memcpy(&r, bytes, sizeof(r));
		hipError_t e = hipIpcOpenMemHandle(&p, r, 0);
		random_ok += e == hipSuccess;
		random_signalled += p != sentinel;
	}
	got[k++] = random_ok ? hipSuccess : hipErrorInvalidValue;
	got[k++] = random_signalled ? hipSuccess : hipErrorInvalidValue;
	/* Replay: the genuine handle twice is one import at one pointer, counted. */
	void *p1 = NULL, *p2 = NULL, *big = NULL;
	got[k++] = hipIpcOpenMemHandle(&p1, h[H_GOOD], 0);
	got[k++] = hipIpcOpenMemHandle(&p2, h[H_GOOD], 0);
	got[k++] = p1 && p1 == p2 ? hipSuccess : hipErrorUnknown;
	/* Closing what IPC did not open: an interior pointer, a plain allocation. */
	void *mine = NULL;
	if (hipMalloc(&mine, 64) != hipSuccess)
		return 3;
	got[k++] = hipIpcCloseMemHandle((char *)p1 + 16);
	got[k++] = hipIpcCloseMemHandle(mine);
	/* The interior handle of a big allocation opens at its pointer. */
	if (hipIpcOpenMemHandle(&big, h[H_BIG], 0) != hipSuccess)
		return 4;
	uint32_t w = 0;
	if (hipMemcpy(&w, big, 4, hipMemcpyDeviceToHost) != hipSuccess || w != 0xb16b16u)
		return 5;
	if (hipIpcCloseMemHandle(big) != hipSuccess)
		return 6;
	if (hipIpcCloseMemHandle(p1) != hipSuccess || hipIpcCloseMemHandle(p2) != hipSuccess)
		return 7;
	if (hipIpcCloseMemHandle(p1) != hipErrorInvalidHandle)
		return 8;
	/* After the last close the handle opens again. */
	if (hipIpcOpenMemHandle(&p1, h[H_GOOD], 0) != hipSuccess || !holds(p1, SLOT, 0x900d) ||
	    hipIpcCloseMemHandle(p1) != hipSuccess)
		return 9;
	hipFree(mine);
	return write_full(to, got, k * sizeof(got[0])) ? 0 : 10;
}

Test(ipc_isolation, bad_handles_fail_cleanly, .timeout = 180)
{
	struct peer c = peer_start(bad_child);
	void *good = NULL, *big = NULL, *freed = NULL;
	hipIpcMemHandle_t h[H_COUNT];

	cr_assert_eq(hipMalloc(&good, SLOT), hipSuccess);
	fill(good, SLOT, 0x900d);
	cr_assert_eq(hipMalloc(&big, 3u << 20), hipSuccess);
	uint32_t w = 0xb16b16u;
	cr_assert_eq(hipMemcpy((char *)big + 8192, &w, 4, hipMemcpyHostToDevice), hipSuccess);
	cr_assert_eq(hipMalloc(&freed, SLOT), hipSuccess);
	cr_assert_eq(hipIpcGetMemHandle(&h[H_GOOD], good), hipSuccess);
	cr_assert_eq(hipIpcGetMemHandle(&h[H_BIG], (char *)big + 8192), hipSuccess);
	cr_assert_eq(hipIpcGetMemHandle(&h[H_FREED], freed), hipSuccess);
	cr_assert_eq(hipFree(freed), hipSuccess);
	/* One's own handle: clr's invalid context, and the output stays. */
	void *self = (void *)0x1234;
	cr_assert_eq(hipIpcOpenMemHandle(&self, h[H_GOOD], 0), hipErrorInvalidContext);
	cr_assert_eq(self, (void *)0x1234);
	cr_assert(write_full(c.to, h, sizeof(h)));

	hipError_t got[N_BAD + 8];
	const size_t n = N_BAD + 8;
	bool ok = read_full(c.from, got, n * sizeof(got[0]));
	peer_finish(&c);
	cr_assert(ok);
	for (size_t i = 0; i < N_BAD; i++)
		cr_expect_eq(got[i], bad_cases[i].want, "%s: got %d, want %d", bad_cases[i].what, got[i],
			     bad_cases[i].want);
	size_t k = N_BAD;
	cr_expect_eq(got[k++], hipErrorInvalidDevicePointer, "handle of a freed allocation");
	cr_expect_neq(got[k++], hipSuccess, "a random handle opened");
	cr_expect_neq(got[k++], hipSuccess, "a failed open wrote its output");
	cr_expect_eq(got[k++], hipSuccess, "first open");
	cr_expect_eq(got[k++], hipSuccess, "second open of the same handle");
	cr_expect_eq(got[k++], hipSuccess, "the same pointer twice");
	cr_expect_eq(got[k++], hipErrorInvalidHandle, "close of an interior pointer");
	cr_expect_eq(got[k++], hipErrorInvalidHandle, "close of a plain allocation");
	cr_assert(holds(good, SLOT, 0x900d), "nothing the child tried changed the allocation");
	cr_assert_eq(hipFree(good), hipSuccess);
	cr_assert_eq(hipFree(big), hipSuccess);
}

/* ---- a freed exported slot stays out of reuse -------------------------------------------------- */

static int quarantine_child(int from, int to)
{
	hipIpcMemHandle_t h;
	void *p = NULL;
	char go;

	if (!read_full(from, &h, sizeof(h)))
		return 1;
	if (hipIpcOpenMemHandle(&p, h, 0) != hipSuccess || !holds(p, SLOT, 0x01d))
		return 2;
	if (!write_full(to, "o", 1) || !read_full(from, &go, 1))
		return 3;
	/* The exporter freed it and allocated again: no new owner's data shows through. */
	if (!holds(p, SLOT, 0x01d))
		return 4;
	if (hipIpcCloseMemHandle(p) != hipSuccess)
		return 5;
	return write_full(to, "d", 1) ? 0 : 6;
}

Test(ipc_isolation, freed_exported_slot_is_not_reused, .timeout = 120)
{
	struct peer c = peer_start(quarantine_child);
	void *b = NULL, *again[64];
	hipIpcMemHandle_t h;
	char ack;

	cr_assert_eq(hipMalloc(&b, SLOT), hipSuccess);
	fill(b, SLOT, 0x01d);
	cr_assert_eq(hipIpcGetMemHandle(&h, b), hipSuccess);
	cr_assert(write_full(c.to, &h, sizeof(h)));
	cr_assert(read_full(c.from, &ack, 1));
	cr_assert_eq(hipFree(b), hipSuccess);
	cr_assert_eq(hipFree(b), hipErrorInvalidValue, "a second free is still refused");
	for (int i = 0; i < 64; i++) {
		cr_assert_eq(hipMalloc(&again[i], SLOT), hipSuccess);
		cr_assert_neq(again[i], b, "the exported slot came back");
		cr_assert_eq(hipMemset(again[i], 0xdd, SLOT), hipSuccess);
	}
	cr_assert_eq(hipDeviceSynchronize(), hipSuccess);
	cr_assert(write_full(c.to, "g", 1));
	cr_assert(read_full(c.from, &ack, 1));
	peer_finish(&c);
	for (int i = 0; i < 64; i++)
		cr_assert_eq(hipFree(again[i]), hipSuccess);
}

/* ---- event handles ----------------------------------------------------------------------------- */

static int stale_event_child(int from, int to)
{
	hipEvent_t e;
	hipIpcEventHandle_t h;
	(void)from;
	if (hipEventCreateWithFlags(&e, hipEventInterprocess | hipEventDisableTiming) != hipSuccess ||
	    hipIpcGetEventHandle(&h, e) != hipSuccess)
		return 1;
	if (hipEventDestroy(e) != hipSuccess)
		return 2;
	return write_full(to, &h, sizeof(h)) ? 0 : 3;
}

Test(ipc_isolation, bad_event_handles_fail_cleanly, .timeout = 120)
{
	hipEvent_t e = (hipEvent_t)0x1234;
	hipIpcEventHandle_t h;

	/* Random bytes. */
	srand(7);
	for (int i = 0; i < 1000; i++) {
		for (size_t j = 0; j < sizeof(h.reserved); j++)
			h.reserved[j] = (char)rand();
		cr_assert_eq(hipIpcOpenEventHandle(&e, h), hipErrorInvalidValue);
	}
	/* Our prefix, no such area. */
	memset(&h, 0, sizeof(h));
	strcpy(h.reserved, "/hipkfd_event_0_0");
	cr_assert_eq(hipIpcOpenEventHandle(&e, h), hipErrorInvalidValue);
	/* An object of the prefix shorter than an area: refused, not a SIGBUS at the first read. */
	char name[64];
	snprintf(name, sizeof(name), "/hipkfd_event_short_%d", (int)getpid());
	int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
	cr_assert_geq(fd, 0);
	close(fd);
	memset(&h, 0, sizeof(h));
	strcpy(h.reserved, name);
	hipError_t err = hipIpcOpenEventHandle(&e, h);
	shm_unlink(name);
	cr_assert_eq(err, hipErrorInvalidValue);
	cr_assert_eq(e, (hipEvent_t)0x1234, "a failed open leaves its output alone");
	/* Stale: the creating process destroyed its event and exited. */
	struct peer c = peer_start(stale_event_child);
	bool got = read_full(c.from, &h, sizeof(h));
	peer_finish(&c);
	cr_assert(got);
	cr_assert_eq(hipIpcOpenEventHandle(&e, h), hipErrorInvalidValue);
	cr_assert_eq(e, (hipEvent_t)0x1234);
}

/* ---- a crafted event area ---------------------------------------------------------------------- */

/* The shared area's layout as src/api/event_ipc.c writes it (a page: magic, owner pid, users,
 * write index, read index, padding, then the 32 completion slots). A hostile exporter can write
 * any of it; the importer's record must end with an error, not wait forever. */
struct forged_area {
	uint32_t magic, owner_pid, users;
	int32_t write_index, read_index;
	uint32_t pad[3];
	uint32_t slot[32];
};

enum { FORGE_AHEAD, FORGE_GAP, FORGE_STALL, FORGE_SLOT, FORGE_NONE, FORGE_COUNT };

static void forge(struct forged_area *a, int how)
{
	switch (how) {
	case FORGE_AHEAD: /* the latest record is past every claim */
		a->write_index = 5;
		a->read_index = 100;
		break;
	case FORGE_GAP: /* a thousand claims nobody published */
		a->write_index = 1000;
		a->read_index = -1;
		break;
	case FORGE_STALL: /* six claims ahead of ours that will never be published */
		a->write_index = 10;
		a->read_index = 3;
		break;
	case FORGE_SLOT: /* the first record's slot pending although no record used it */
		a->write_index = 0;
		a->read_index = -1;
		a->slot[0] = 1;
		break;
	}
}

/* An interprocess event of this process, its handle in [out] h and its shared area mapped
 * writable in [out] area (as a hostile exporter can map it). 0, or the step that failed. */
static int crafted_event(hipEvent_t *e, hipIpcEventHandle_t *h, struct forged_area **area)
{
	if (hipEventCreateWithFlags(e, hipEventInterprocess | hipEventDisableTiming) != hipSuccess ||
	    hipIpcGetEventHandle(h, *e) != hipSuccess)
		return 1;
	char name[sizeof(h->reserved) + 1] = {0};
	memcpy(name, h->reserved, sizeof(h->reserved));
	int fd = shm_open(name, O_RDWR, 0);
	if (fd < 0)
		return 2;
	void *a = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (a == MAP_FAILED)
		return 3;
	*area = a;
	return 0;
}

static int forged_event_child(int from, int to)
{
	hipEvent_t e[FORGE_COUNT];
	hipIpcEventHandle_t h[FORGE_COUNT];
	char ack;
	for (int i = 0; i < FORGE_COUNT; i++) {
		struct forged_area *a;
		int step = crafted_event(&e[i], &h[i], &a);
		if (step)
			return step;
		forge(a, i);
		munmap(a, 4096);
	}
	if (!write_full(to, h, sizeof(h)) || !read_full(from, &ack, 1))
		return 4;
	for (int i = 0; i < FORGE_COUNT; i++)
		if (hipEventDestroy(e[i]) != hipSuccess)
			return 5;
	return 0;
}

static double seconds_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

Test(ipc_isolation, forged_event_area_record_fails, .timeout = 120)
{
	struct peer c = peer_start(forged_event_child);
	hipIpcEventHandle_t h[FORGE_COUNT];
	hipEvent_t e[FORGE_COUNT];
	cr_assert(read_full(c.from, h, sizeof(h)));
	for (int i = 0; i < FORGE_COUNT; i++) {
		cr_assert_eq(hipIpcOpenEventHandle(&e[i], h[i]), hipSuccess, "area %d", i);
		double t0 = seconds_now();
		hipError_t err = hipEventRecord(e[i], NULL);
		double took = seconds_now() - t0;
		if (i == FORGE_NONE) {
			/* The untouched area next to them still works. */
			cr_assert_eq(err, hipSuccess);
			cr_assert_eq(hipEventSynchronize(e[i]), hipSuccess);
			cr_assert_eq(hipEventQuery(e[i]), hipSuccess);
		} else {
			cr_assert_eq(err, hipErrorInvalidHandle, "area %d: record returned %d", i, err);
		}
		/* The stall bound is 2 s; the other forgeries are seen at once. */
		cr_assert_lt(took, 10.0, "area %d: record took %.1f s", i, took);
		cr_assert_eq(hipEventDestroy(e[i]), hipSuccess);
	}
	cr_assert_eq(hipDeviceSynchronize(), hipSuccess);
	cr_assert(write_full(c.to, "g", 1));
	peer_finish(&c);
}

/* ---- records whose recorder is gone ------------------------------------------------------------ */

/* A pending record's slot holds the recorder's pid until the recorder's GPU writes 0. A recorder
 * that died never writes it (its queues died with it), so waiting for that record must end: the
 * importer gets hipErrorInvalidHandle from the query, the synchronize and a stream wait, and a
 * later record may take the slot. A slot holding no pid at all is a forged area. */
enum { REC_DEAD, REC_NOPID, REC_LIVE, REC_REUSE, REC_COUNT };

static uint32_t dead_pid(void)
{
	pid_t p = fork();
	if (p == 0)
		_exit(0);
	int status;
	return p > 0 && waitpid(p, &status, 0) == p ? (uint32_t)p : 0;
}

static void leave_pending(struct forged_area *a, int how, uint32_t dead)
{
	switch (how) {
	case REC_DEAD: /* the latest record, pending, its recorder gone */
		a->write_index = 1;
		a->read_index = 0;
		a->slot[0] = dead;
		break;
	case REC_NOPID: /* the latest record pending with a value that is no process */
		a->write_index = 1;
		a->read_index = 0;
		a->slot[0] = 0xffffffffu;
		break;
	case REC_LIVE: /* pending while the child lives */
		a->write_index = 1;
		a->read_index = 0;
		a->slot[0] = (uint32_t)getpid();
		break;
	case REC_REUSE: /* the next record's slot still held by a dead recorder 32 records ago */
		a->write_index = 32;
		a->read_index = 31;
		a->slot[0] = dead;
		break;
	}
}

static int abandoned_event_child(int from, int to)
{
	hipEvent_t e[REC_COUNT];
	hipIpcEventHandle_t h[REC_COUNT];
	char ack;
	uint32_t dead = dead_pid();
	if (!dead)
		return 1;
	for (int i = 0; i < REC_COUNT; i++) {
		struct forged_area *a;
		int step = crafted_event(&e[i], &h[i], &a);
		if (step)
			return 1 + step;
		leave_pending(a, i, dead);
		munmap(a, 4096);
	}
	if (!write_full(to, h, sizeof(h)) || !read_full(from, &ack, 1))
		return 5;
	for (int i = 0; i < REC_COUNT; i++)
		if (hipEventDestroy(e[i]) != hipSuccess)
			return 6;
	return 0;
}

Test(ipc_isolation, a_record_whose_recorder_died_is_abandoned, .timeout = 120)
{
	struct peer c = peer_start(abandoned_event_child);
	hipIpcEventHandle_t h[REC_COUNT];
	hipEvent_t e[REC_COUNT];
	hipStream_t s;
	cr_assert(read_full(c.from, h, sizeof(h)));
	cr_assert_eq(hipStreamCreate(&s), hipSuccess);
	for (int i = 0; i < REC_COUNT; i++)
		cr_assert_eq(hipIpcOpenEventHandle(&e[i], h[i]), hipSuccess, "area %d", i);
	for (int i = REC_DEAD; i <= REC_NOPID; i++) {
		cr_assert_eq(hipEventQuery(e[i]), hipErrorInvalidHandle, "area %d", i);
		cr_assert_eq(hipEventSynchronize(e[i]), hipErrorInvalidHandle, "area %d", i);
		cr_assert_eq(hipStreamWaitEvent(s, e[i], 0), hipErrorInvalidHandle, "area %d", i);
	}
	/* A live recorder's pending record is just not ready. */
	cr_assert_eq(hipEventQuery(e[REC_LIVE]), hipErrorNotReady);
	/* The dead recorder's slot is taken by the next record, which completes. */
	cr_assert_eq(hipEventRecord(e[REC_REUSE], s), hipSuccess);
	cr_assert_eq(hipEventSynchronize(e[REC_REUSE]), hipSuccess);
	cr_assert_eq(hipEventQuery(e[REC_REUSE]), hipSuccess);
	/* The child exits: its pending record is abandoned, and the wait for it ends. */
	cr_assert(write_full(c.to, "g", 1));
	peer_finish(&c);
	cr_assert_eq(hipEventSynchronize(e[REC_LIVE]), hipErrorInvalidHandle);
	cr_assert_eq(hipStreamSynchronize(s), hipSuccess);
	for (int i = 0; i < REC_COUNT; i++)
		cr_assert_eq(hipEventDestroy(e[i]), hipSuccess);
	cr_assert_eq(hipStreamDestroy(s), hipSuccess);
}
