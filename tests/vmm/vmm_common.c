#include "vmm_common.h"

#include <criterion/criterion.h>
#include <string.h>

hipMemAllocationProp vmm_prop(int dev, hipMemAllocationHandleType handle_type)
{
	hipMemAllocationProp prop;
	memset(&prop, 0, sizeof(prop));
	prop.type = hipMemAllocationTypePinned;
	prop.requestedHandleType = handle_type;
	prop.location.type = hipMemLocationTypeDevice;
	prop.location.id = dev;
	return prop;
}

size_t vmm_min_granularity(void)
{
	hipMemAllocationProp prop = vmm_prop(0, hipMemHandleTypeNone);
	size_t g = 0;
	cr_assert_eq(hipMemGetAllocationGranularity(&g, &prop, hipMemAllocationGranularityMinimum),
		     hipSuccess);
	cr_assert_eq(g, 4096);
	return g;
}

hipError_t vmm_set_access(void *va, size_t size, int dev, hipMemAccessFlags flags)
{
	hipMemAccessDesc desc;
	memset(&desc, 0, sizeof(desc));
	desc.location.type = hipMemLocationTypeDevice;
	desc.location.id = dev;
	desc.flags = flags;
	return hipMemSetAccess(va, size, &desc, 1);
}

unsigned long long vmm_get_access(void *va, int dev)
{
	hipMemLocation loc = {.type = hipMemLocationTypeDevice, .id = dev};
	unsigned long long flags = 99;
	cr_assert_eq(hipMemGetAccess(&flags, &loc, va), hipSuccess);
	return flags;
}

void vmm_map_new(size_t size, hipMemAllocationHandleType handle_type, void **va,
		 hipMemGenericAllocationHandle_t *h)
{
	hipMemAllocationProp prop = vmm_prop(0, handle_type);
	cr_assert_eq(hipMemAddressReserve(va, size, 0, NULL, 0), hipSuccess);
	cr_assert_eq(hipMemCreate(h, size, &prop, 0), hipSuccess);
	cr_assert_eq(hipMemMap(*va, size, 0, *h, 0), hipSuccess);
	cr_assert_eq(vmm_set_access(*va, size, 0, hipMemAccessFlagsProtReadWrite), hipSuccess);
}

void vmm_unmap_free(void *va, size_t size, hipMemGenericAllocationHandle_t h)
{
	cr_assert_eq(hipMemUnmap(va, size), hipSuccess);
	cr_assert_eq(hipMemRelease(h), hipSuccess);
	cr_assert_eq(hipMemAddressFree(va, size), hipSuccess);
}
