/* hipkfd: the numbering of the profiling interfaces (api_names.c). */
#ifndef HIPKFD_API_API_NAMES_H
#define HIPKFD_API_API_NAMES_H

#include <stdint.h>

/* The highest HIP API callback id (clr's hip_api_id_t, hip_prof_str.h) hipApiName names. */
uint32_t hip_api_callback_id_last(void);
/* The callback id of the entry point [in] name, or 0 (HIP_API_ID_NONE) when clr's numbering
 * has none for it. A linear search: callers cache the answer. */
uint32_t hip_api_callback_id(const char *name);

#endif
