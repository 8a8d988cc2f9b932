/* SDMA 4.x packets (gfx9: Vega, MI200, MI300), our own encoding helpers. Facts from the kernel's
 * vega10_sdma_pkt_open.h and ROCr's sdma_registers.h: every packet starts with a header dword
 * holding op (bits 0..7) and sub_op (bits 8..15); lengths are in dwords. On SDMA 4 counts are
 * "bytes - 1" (ROCr's BlitSdmaV4 SizeToCountOffset of -1). */
#ifndef KFDSIM_SDMA_PACKETS_H
#define KFDSIM_SDMA_PACKETS_H

#define SDMA_OP(h) ((h) & 0xffu)
#define SDMA_SUB_OP(h) (((h) >> 8) & 0xffu)

enum sdma_op {
  SDMA_OP_NOP = 0,
  SDMA_OP_COPY = 1,
  SDMA_OP_WRITE = 2,
  SDMA_OP_FENCE = 5,
  SDMA_OP_TRAP = 6,
  SDMA_OP_POLL_REGMEM = 8,
  SDMA_OP_ATOMIC = 10,
  SDMA_OP_CONST_FILL = 11,
  SDMA_OP_TIMESTAMP = 13,
};

enum sdma_sub_op {
  SDMA_SUBOP_COPY_LINEAR = 0,
  SDMA_SUBOP_COPY_LINEAR_RECT = 4,
  SDMA_SUBOP_WRITE_LINEAR = 0,
  SDMA_SUBOP_TIMESTAMP_SET = 0,
  SDMA_SUBOP_TIMESTAMP_GET = 1,
  SDMA_SUBOP_TIMESTAMP_GET_GLOBAL = 2,
};

/* Packet sizes in dwords. */
#define SDMA_COPY_LINEAR_DW 7
#define SDMA_COPY_LINEAR_RECT_DW 13
#define SDMA_FENCE_DW 4
#define SDMA_TRAP_DW 2
#define SDMA_POLL_REGMEM_DW 6
#define SDMA_ATOMIC_DW 8
#define SDMA_CONST_FILL_DW 5
#define SDMA_TIMESTAMP_DW 3
#define SDMA_MAX_DW 13

/* Field helpers. */
#define SDMA_COUNT_MASK 0x3fffffffu           /* 22 bits on SDMA 4.0, wider on 4.4; reserved bits are 0 */
#define SDMA_NOP_COUNT(h) (((h) >> 16) & 0x3fffu)
#define SDMA_FILL_SIZE(h) (((h) >> 30) & 3u)  /* log2 of the element: 0 byte .. 2 dword */
#define SDMA_RECT_ELEMENT(h) (((h) >> 29) & 7u)
#define SDMA_POLL_FUNC(h) (((h) >> 28) & 7u)
#define SDMA_POLL_MEM(h) (((h) >> 31) & 1u)
#define SDMA_POLL_RETRY(dw5) (((dw5) >> 16) & 0xfffu)
#define SDMA_POLL_RETRY_FOREVER 0xfffu
#define SDMA_ATOMIC_LOOP(h) (((h) >> 16) & 1u)
#define SDMA_ATOMIC_OPERATION(h) (((h) >> 25) & 0x7fu)
#define SDMA_TRAP_INT_CTX(dw1) ((dw1) & 0x0fffffffu)

#endif
