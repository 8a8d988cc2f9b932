/* kfdsim's shared node (sim/kfd/node.c): whether a node's shared-memory object exists. */
#ifndef HIPKFD_TESTS_SIM_NODE_H
#define HIPKFD_TESTS_SIM_NODE_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

/* True while the object of node [in] name exists (/kfdsim-node-<uid>-<name>). */
static inline bool sim_node_exists(const char *name)
{
  char shm[128];
  snprintf(shm, sizeof(shm), "/kfdsim-node-%u-%s", (unsigned)getuid(), name);
  int fd = shm_open(shm, O_RDONLY, 0);
  if (fd >= 0)
    close(fd);
  return fd >= 0;
}

#endif
