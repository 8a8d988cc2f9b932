/*
 * Execution contexts (green contexts): what green_ctx.c shares with its tests.
 *
 * A hipDevResource of type hipDevResourceTypeSm handed out by this runtime carries, in its
 * _internal_padding, which CUs it stands for. The layout is private to green_ctx.c except for
 * what tests need to check that splits are disjoint: GREEN_TAG_MAGIC at byte 0, the device
 * ordinal at byte 4, the split family at byte 8, and from byte GREEN_TAG_CUS_OFFSET one bit per
 * CU (bit i of the 32-bit little-endian word i / 32), the bit numbering AMDKFD_IOC_SET_CU_MASK
 * takes.
 */
#ifndef HIPKFD_GREENCTX_GREEN_CTX_H
#define HIPKFD_GREENCTX_GREEN_CTX_H

#define GREEN_TAG_MAGIC 0x78636b68u /* "hkcx" */
#define GREEN_TAG_CUS_OFFSET 12
/* CUs a tag can name: the 80 bytes left in the 92-byte padding. MI300X has 304. */
#define GREEN_TAG_MAX_CUS 640

struct hip_stream;


#endif
