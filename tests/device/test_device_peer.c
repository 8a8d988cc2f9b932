/* Two GPUs: the link between them, and 3D peer copies across devices. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

Test(peer, link_type_and_hops)
{
	uint32_t type = 99, hops = 0, type2 = 98, hops2 = 0;
	int n = 0;

	cr_assert_eq(hipGetDeviceCount(&n), hipSuccess);
	cr_assert_eq(n, 2);
	cr_assert_eq(hipExtGetLinkTypeAndHopCount(0, 1, &type, &hops), hipSuccess);
	/* HSA link types: PCIe 2, XGMI 4; a direct link is one hop, through the CPU two. */
	cr_assert(type == 2 || type == 4, "link type %u", type);
	cr_assert(hops == 1 || hops == 2, "hops %u", hops);
	cr_assert_eq(hipExtGetLinkTypeAndHopCount(1, 0, &type2, &hops2), hipSuccess);
	cr_assert_eq(type2, type);
	cr_assert_eq(hops2, hops);
	cr_assert_eq(hipExtGetLinkTypeAndHopCount(0, 2, &type, &hops), hipErrorInvalidDevice);
}

Test(peer, memcpy_3d_peer_across_devices)
{
	enum { W = 32, H = 4, D = 2 };
	hipExtent whole = {W, H, D};
	hipPitchedPtr a, b;
	static uint8_t host[D][H][W], back[D][H][W];

	cr_assert_eq(hipSetDevice(0), hipSuccess);
	cr_assert_eq(hipMalloc3D(&a, whole), hipSuccess);
	cr_assert_eq(hipSetDevice(1), hipSuccess);
	cr_assert_eq(hipMalloc3D(&b, whole), hipSuccess);
	cr_assert_eq(hipMemset3D(b, 0, whole), hipSuccess);
	cr_assert_eq(hipSetDevice(0), hipSuccess);
	for (size_t i = 0; i < sizeof(host); i++)
		((uint8_t *)host)[i] = (uint8_t)(i * 7 + 1);
	hipMemcpy3DParms up;
	memset(&up, 0, sizeof(up));
	up.srcPtr = make_hipPitchedPtr(host, W, W, H);
	up.dstPtr = a;
	up.extent = whole;
	up.kind = hipMemcpyHostToDevice;
	cr_assert_eq(hipMemcpy3D(&up), hipSuccess);

	hipMemcpy3DPeerParms p;
	memset(&p, 0, sizeof(p));
	p.srcPtr = a;
	p.srcDevice = 0;
	p.dstPtr = b;
	p.dstDevice = 1;
	p.extent = whole;
	cr_assert_eq(hipMemcpy3DPeer(&p), hipSuccess);

	hipMemcpy3DParms down;
	memset(&down, 0, sizeof(down));
	down.srcPtr = b;
	down.dstPtr = make_hipPitchedPtr(back, W, W, H);
	down.extent = whole;
	down.kind = hipMemcpyDeviceToHost;
	cr_assert_eq(hipMemcpy3D(&down), hipSuccess);
	cr_assert_eq(memcmp(back, host, sizeof(host)), 0);
	cr_assert_eq(hipFree(a.ptr), hipSuccess);
	cr_assert_eq(hipFree(b.ptr), hipSuccess);
}
