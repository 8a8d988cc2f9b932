/* Device symbols of registered modules (owned by the loader; used by the memcpy-to-symbol entry points and graph symbol nodes). */
#ifndef HIPKFD_API_SYMBOLS_H
#define HIPKFD_API_SYMBOLS_H

#include <stddef.h>

struct hip_device;

/* The device address and size of the variable whose host shadow is [in] host_symbol (what
 * hipMemcpyToSymbol/hipGetSymbolAddress receive), on [in] d, loading its module there if needed.
 * [out] dev_ptr, [out] size may be NULL. Returns 0, -ENOENT (not a registered variable, or the
 * code object lacks it), -ENOEXEC (no usable code object for the device) or -errno. */
int hip_symbol_lookup(const void *host_symbol, struct hip_device *d, void **dev_ptr, size_t *size);

#endif
