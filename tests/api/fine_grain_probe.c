/* Prints hipDeviceAttributeFineGrainSupport of every device, one "device N fine_grain V" line
 * each, for check_fine_grain.py to compare with the topology rocminfo shows. */
#include <hip/hip_runtime_api.h>
#include <stdio.h>

int main(void)
{
	int n = 0;
	if (hipGetDeviceCount(&n) != hipSuccess)
		return 1;
	for (int i = 0; i < n; i++) {
		int v = -1;
		if (hipDeviceGetAttribute(&v, hipDeviceAttributeFineGrainSupport, i) != hipSuccess)
			return 1;
		printf("device %d fine_grain %d\n", i, v);
	}
	return 0;
}
