/*
 * The shared half of interprocess events (event_ipc.c), used by event.c.
 */
#ifndef HIPKFD_API_EVENT_IPC_H
#define HIPKFD_API_EVENT_IPC_H

#include <stdbool.h>

#include <hip/hip_runtime_api.h>

struct ipc_event;

/* A new shared record area owned by this process. [out] out. Returns 0 or -errno. */
int ipc_event_create(struct ipc_event **out);

/* Maps the area named by [in] handle (another process's event). -EINVAL for a handle that names
 * none, -EPERM when this process created it. [out] out. Returns 0 or -errno. */
int ipc_event_open(const hipIpcEventHandle_t *handle, struct ipc_event **out);

/* [out] handle: the name of [in] ie's area. */
void ipc_event_handle(const struct ipc_event *ie, hipIpcEventHandle_t *handle);

/* Drops this process's mapping; the area goes with its last user. NULL is a no-op. */
void ipc_event_release(struct ipc_event *ie);

/* Publishes a record on [in] stream: a slot set now and cleared by the GPU when the stream's work
 * so far is done. Returns a hipError_t. */
hipError_t ipc_event_record(struct ipc_event *ie, hipStream_t stream);

/* The last published record (in any process): IPC_EVENT_DONE when it is complete or there is
 * none, IPC_EVENT_PENDING while its GPU write is to come, IPC_EVENT_ABANDONED when the process
 * that recorded it is gone (its queues went with it, so the write never comes) or the slot holds
 * no process at all (an area no runtime wrote). */
enum ipc_event_status { IPC_EVENT_ABANDONED = -1, IPC_EVENT_PENDING = 0, IPC_EVENT_DONE = 1 };
enum ipc_event_status ipc_event_status(const struct ipc_event *ie);

/* Makes [in] stream wait (on the GPU) for the last published record. Returns a hipError_t. */
hipError_t ipc_event_stream_wait(const struct ipc_event *ie, hipStream_t stream);

#endif
