/* User-mode queues: CREATE/DESTROY/UPDATE_QUEUE and SET_CU_MASK. The driver validates as
 * amdkfd does (kfd_chardev.c set_queue_properties_from_user, kfd_queue.c
 * kfd_queue_acquire_buffers: ring, read/write pointers, EOP buffer, control stack and CWSR area
 * must be mapped to the GPU with the sizes the node properties imply) and hands the queue to
 * the command processor (sim/cp). Queue ids are per process, 0..1023. */
#define _GNU_SOURCE
#include "kfd/uapi.h"   /* first: keeps the raw UAPI linux/types.h out */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kfd/kfd_priv.h"

#define MAX_QUEUES 1024                   /* KFD_MAX_NUM_OF_QUEUES_PER_PROCESS */
#define MAX_CU_MASK_BITS 1024u            /* kfd_ioctl_set_cu_mask's max_num_cus */
#define MIN_RING_SIZE 1024u               /* KFD_MIN_QUEUE_RING_SIZE */
#define DOORBELLS_PER_SLICE (SIM_DOORBELL_SLICE / 8)
#define SDMA_DOORBELL_FIRST 0x100u        /* SDMA doorbells sit above the compute ones */

enum { BUF_WPTR, BUF_RPTR, BUF_RING, BUF_EOP, BUF_CWSR, N_BUFS };

struct sim_kqueue {
  uint32_t id, type;
  struct sim_gpu *gpu;
  uint32_t doorbell;                  /* index in the GPU's doorbell slice */
  struct sim_bo *bufs[N_BUFS];
  struct sim_cp_queue *cp;
  /* SET_CU_MASK: the last mask accepted (cu_mask_bits 0: none, every CU). Kept as the MQD keeps
   * it; the command processor does not consult it (kfdsim runs a queue's waves on every CU). */
  uint32_t cu_mask[MAX_CU_MASK_BITS / 32];
  uint32_t cu_mask_bits;
};

static struct sim_kqueue *queues[MAX_QUEUES];   /* protected by sim_drv.lock */
static uint32_t n_queues;
static struct sim_kqueue *gws_owner[SIM_MAX_GPUS];
static uint8_t doorbell_used[SIM_MAX_GPUS][DOORBELLS_PER_SLICE];

void sim_queues_reset(void)
{
  memset(queues, 0, sizeof(queues));
  memset(doorbell_used, 0, sizeof(doorbell_used));
  memset(gws_owner, 0, sizeof(gws_owner));
  n_queues = 0;
}

static void release_buffers(struct sim_kqueue *q);

/* Process teardown: destroy every queue. Called with sim_drv.lock held; the command processor
 * may still be finishing a dispatch, which sim_cp_queue_destroy waits for. */
void sim_queues_release(void)
{
  for (uint32_t i = 0; i < MAX_QUEUES; i++) {
    struct sim_kqueue *q = queues[i];
    if (!q)
      continue;
    queues[i] = NULL;
    sim_cp_queue_destroy(q->cp);
    release_buffers(q);
    free(q);
  }
  memset(doorbell_used, 0, sizeof(doorbell_used));
  memset(gws_owner, 0, sizeof(gws_owner));
  n_queues = 0;
}

uint32_t sim_queue_count(void)
{
  return n_queues;
}

static bool is_pow2(uint32_t v) { return v && !(v & (v - 1)); }

static bool is_sdma(uint32_t type)
{
  return type == KFD_IOC_QUEUE_TYPE_SDMA || type == KFD_IOC_QUEUE_TYPE_SDMA_XGMI ||
         type == KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID;
}

/* set_queue_properties_from_user */
static int check_properties(struct kfd_ioctl_create_queue_args *a)
{
  if (a->queue_percentage > 100 || a->queue_priority > 15)
    return -EINVAL;
  if (a->ring_size && !is_pow2(a->ring_size))
    return -EINVAL;
  if (a->ring_size < MIN_RING_SIZE)
    a->ring_size = MIN_RING_SIZE;    /* "Size lower. clamped to KFD_MIN_QUEUE_RING_SIZE" */
  if (!a->read_pointer_address || !a->write_pointer_address)
    return -EFAULT;                  /* access_ok() */
  if (a->queue_type != KFD_IOC_QUEUE_TYPE_COMPUTE && a->queue_type != KFD_IOC_QUEUE_TYPE_COMPUTE_AQL &&
      !is_sdma(a->queue_type))
    return -524;                     /* -ENOTSUPP: "Queue type not supported" */
  return 0;
}

static void release_buffers(struct sim_kqueue *q)
{
  for (int i = 0; i < N_BUFS; i++) {
    sim_queue_buffer_put(q->bufs[i]);
    q->bufs[i] = NULL;
  }
}

/* kfd_queue_acquire_buffers */
static int acquire_buffers(struct sim_kqueue *q, const struct kfd_ioctl_create_queue_args *a)
{
  struct sim_gpu *g = q->gpu;
  if (!(q->bufs[BUF_WPTR] = sim_queue_buffer_get(g, a->write_pointer_address, SIM_PAGE_SIZE)) ||
      !(q->bufs[BUF_RPTR] = sim_queue_buffer_get(g, a->read_pointer_address, SIM_PAGE_SIZE)) ||
      !(q->bufs[BUF_RING] = sim_queue_buffer_get(g, a->ring_base_address, a->ring_size)))
    return -EINVAL;
  if (is_sdma(a->queue_type))
    return 0;   /* only compute queues need EOP and CWSR memory */
  if (a->eop_buffer_address) {
    if (a->eop_buffer_size != g->eop_buffer_size)
      return -EINVAL;
    if (!(q->bufs[BUF_EOP] = sim_queue_buffer_get(g, a->eop_buffer_address, a->eop_buffer_size)))
      return -EINVAL;
  }
  if (a->ctl_stack_size != g->ctl_stack_size || a->ctx_save_restore_size < g->cwsr_size)
    return -EINVAL;
  uint64_t total = SIM_ALIGN(((uint64_t)a->ctx_save_restore_size + g->debug_memory_size) *
                             g->prof->num_xcc, SIM_PAGE_SIZE);
  q->bufs[BUF_CWSR] = sim_queue_buffer_get(g, a->ctx_save_restore_address, total);
  if (!q->bufs[BUF_CWSR] && !sim_svm_covers(g, a->ctx_save_restore_address, total))
    return -EINVAL;
  return 0;
}

static int alloc_doorbell(struct sim_gpu *g, bool sdma, uint32_t *out)
{
  for (uint32_t i = sdma ? SDMA_DOORBELL_FIRST : 0; i < DOORBELLS_PER_SLICE; i++)
    if (!doorbell_used[g->index][i]) {
      doorbell_used[g->index][i] = 1;
      *out = i;
      return 0;
    }
  return -ENOMEM;
}

static int create_locked(struct kfd_ioctl_create_queue_args *a)
{
  int r = check_properties(a);
  if (r)
    return r;
  struct sim_gpu *g = sim_gpu_by_id(a->gpu_id);
  if (!g)
    return -EINVAL;
  if (!g->vm_acquired)
    return -ESRCH;                   /* kfd_bind_process_to_device failed */
  if (a->queue_type == KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID &&
      a->sdma_engine_id >= g->prof->num_sdma_engines + g->prof->num_sdma_xgmi_engines)
    return -EINVAL;
  uint32_t id = 0;
  while (id < MAX_QUEUES && queues[id])
    id++;
  if (id == MAX_QUEUES)
    return -ENOMEM;
  if ((r = sim_gpu_doorbells(g)))
    return r;
  struct sim_kqueue *q = calloc(1, sizeof(*q));
  if (!q)
    return -ENOMEM;
  q->id = id;
  q->type = a->queue_type;
  q->gpu = g;
  if ((r = acquire_buffers(q, a)) || (r = alloc_doorbell(g, is_sdma(q->type), &q->doorbell))) {
    release_buffers(q);
    free(q);
    return r;
  }
  struct sim_queue_desc d = {
    .queue_id = id, .type = a->queue_type, .priority = a->queue_priority,
    .percentage = a->queue_percentage, .ring_base = a->ring_base_address, .ring_size = a->ring_size,
    .read_pointer = a->read_pointer_address, .write_pointer = a->write_pointer_address,
    .eop_buffer = a->eop_buffer_address, .ctx_save_restore = a->ctx_save_restore_address,
    .doorbell = (volatile uint64_t *)(g->doorbells + q->doorbell * 8ull),
  };
  if (a->queue_type == KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID)
    d.sdma_engine = a->sdma_engine_id;
  else if (is_sdma(a->queue_type))
    d.sdma_engine = (id % g->prof->num_sdma_engines) +
                    (a->queue_type == KFD_IOC_QUEUE_TYPE_SDMA_XGMI ? g->prof->num_sdma_engines : 0);
  r = sim_cp_queue_create(g, &d, &q->cp);
  if (r) {
    doorbell_used[g->index][q->doorbell] = 0;
    release_buffers(q);
    free(q);
    return r;
  }
  queues[id] = q;
  n_queues++;
  a->queue_id = id;
  /* the doorbell's mmap offset on /dev/kfd, with its byte offset in the slice (SOC15) */
  a->doorbell_offset = SIM_MMAP_TYPE_DOORBELL | SIM_MMAP_GPU_ID(g->gpu_id) | (q->doorbell * 8ull);
  return 0;
}

int sim_ioctl_create_queue(void *arg)
{
  pthread_mutex_lock(&sim_drv.lock);
  int r = create_locked(arg);
  pthread_mutex_unlock(&sim_drv.lock);
  return r;
}

int sim_ioctl_destroy_queue(void *arg)
{
  struct kfd_ioctl_destroy_queue_args *a = arg;
  pthread_mutex_lock(&sim_drv.lock);
  struct sim_kqueue *q = a->queue_id < MAX_QUEUES ? queues[a->queue_id] : NULL;
  if (q) {
    queues[q->id] = NULL;
    n_queues--;
  }
  pthread_mutex_unlock(&sim_drv.lock);
  if (!q)
    return -EINVAL;
  sim_cp_queue_destroy(q->cp);   /* waits for a dispatch in flight: outside the driver lock */
  pthread_mutex_lock(&sim_drv.lock);
  doorbell_used[q->gpu->index][q->doorbell] = 0;
  if (gws_owner[q->gpu->index] == q)
    gws_owner[q->gpu->index] = NULL;
  release_buffers(q);
  pthread_mutex_unlock(&sim_drv.lock);
  free(q);
  return 0;
}

static int update_locked(struct kfd_ioctl_update_queue_args *a)
{
  if (a->queue_percentage > 100 || a->queue_priority > 15)
    return -EINVAL;
  if (a->ring_size && !is_pow2(a->ring_size))
    return -EINVAL;
  if (a->ring_size < MIN_RING_SIZE)
    a->ring_size = MIN_RING_SIZE;
  struct sim_kqueue *q = a->queue_id < MAX_QUEUES ? queues[a->queue_id] : NULL;
  if (!q)
    return -EFAULT;                  /* pqm_update_queue_properties: "No queue exists" */
  struct sim_bo *ring = sim_queue_buffer_get(q->gpu, a->ring_base_address, a->ring_size);
  if (!ring)
    return -EINVAL;
  int r = sim_cp_queue_update(q->cp, a->ring_base_address, a->ring_size, a->queue_percentage,
                              a->queue_priority);
  if (r) {
    sim_queue_buffer_put(ring);
    return r;
  }
  sim_queue_buffer_put(q->bufs[BUF_RING]);
  q->bufs[BUF_RING] = ring;
  return 0;
}

int sim_ioctl_update_queue(void *arg)
{
  pthread_mutex_lock(&sim_drv.lock);
  int r = update_locked(arg);
  pthread_mutex_unlock(&sim_drv.lock);
  return r;
}

/* kfd_ioctl_alloc_queue_gws / pqm_set_gws: the GPU's whole GWS to one queue of the process */
int sim_ioctl_alloc_queue_gws(void *arg)
{
  struct kfd_ioctl_alloc_queue_gws_args *a = arg;
  int r = 0;
  pthread_mutex_lock(&sim_drv.lock);
  struct sim_kqueue *q = a->queue_id < MAX_QUEUES ? queues[a->queue_id] : NULL;
  if (!q || q->type != KFD_IOC_QUEUE_TYPE_COMPUTE_AQL)
    r = -EINVAL;
  else if (!q->gpu->prof->num_gws)
    r = -ENODEV;
  else if (a->num_gws && gws_owner[q->gpu->index] && gws_owner[q->gpu->index] != q)
    r = -EBUSY;     /* another queue of the process holds it */
  else {
    gws_owner[q->gpu->index] = a->num_gws ? q : NULL;
    a->first_gws = 0;
  }
  pthread_mutex_unlock(&sim_drv.lock);
  return r;
}

/* get_wave_state needs a preempted queue with saved waves; kfdsim queues are never preempted,
 * so this is the kernel's answer for an active queue. */
int sim_ioctl_get_queue_wave_state(void *arg)
{
  (void)arg;
  return -EINVAL;
}

/* amdkfd kfd_ioctl_set_cu_mask: the bit count must be a non-zero multiple of 32 (-EINVAL);
 * counts above 1024 bits keep the first 1024; the mask is copied in before the queue is looked
 * up (an unreadable pointer is -EFAULT), and an unknown queue id is -EFAULT too
 * (pqm_update_mqd's answer). */
int sim_ioctl_set_cu_mask(void *arg)
{
  struct kfd_ioctl_set_cu_mask_args *a = arg;
  uint32_t mask[MAX_CU_MASK_BITS / 32];
  if (a->num_cu_mask % 32 || !a->num_cu_mask)
    return -EINVAL;
  uint32_t bits = a->num_cu_mask > MAX_CU_MASK_BITS ? MAX_CU_MASK_BITS : a->num_cu_mask;
  if (sim_copy_from_user(mask, a->cu_mask_ptr, bits / 8))
    return -EFAULT;
  int r = -EFAULT;
  pthread_mutex_lock(&sim_drv.lock);
  struct sim_kqueue *q = a->queue_id < MAX_QUEUES ? queues[a->queue_id] : NULL;
  if (q) {
    memcpy(q->cu_mask, mask, bits / 8);
    q->cu_mask_bits = bits;
    r = 0;
  }
  pthread_mutex_unlock(&sim_drv.lock);
  SIM_DBG("set_cu_mask queue %u: %u bits, first word 0x%08x -> %d", a->queue_id, bits, mask[0], r);
  return r;
}
