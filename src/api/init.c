/* hipInit and the version queries. Initialisation itself is src/runtime/init.c. */
#include "../runtime/error.h"
#include "../runtime/internal.h"

hipError_t hipInit(unsigned int flags)
{
	if (flags != 0)
		HIP_RETURN(hipErrorInvalidValue);
	HIP_RETURN(hip_init_error());
}

/* HIP_VERSION of the API we implement: major * 10000000 + minor * 100000 + patch (the header's
 * HIP_VERSION when it defines one). */
#ifdef HIP_VERSION
#define HIPKFD_HIP_VERSION HIP_VERSION
#else
#define HIPKFD_HIP_VERSION (7 * 10000000 + 2 * 100000 + 0)
#endif

hipError_t hipRuntimeGetVersion(int *version)
{
	if (!version)
		HIP_RETURN(hipErrorInvalidValue);
	*version = HIPKFD_HIP_VERSION;
	HIP_RETURN(hipSuccess);
}

hipError_t hipDriverGetVersion(int *version)
{
	if (!version)
		HIP_RETURN(hipErrorInvalidValue);
	*version = HIPKFD_HIP_VERSION;
	HIP_RETURN(hipSuccess);
}
