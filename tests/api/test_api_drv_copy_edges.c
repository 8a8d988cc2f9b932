/* Driver-style copies at the edges AMD's hip-tests probe (issue 13 item 3): hipMemcpyParam2D(Async)
 * with a pitch of 0 is accepted when the row fits (the pitch is then the width), and a
 * hipDrvMemcpy3D(Async) host-to-device copy lands every slice where it belongs, [0,0,1] included. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include <hip/hip_runtime_api.h>

enum { W = 32, H = 4, D = 3 };

static void fill(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 7 + 3);
}

static void param2d_pitch0(bool async)
{
	unsigned char host[W * H], back[W * H];
	void *dev;
	fill(host, sizeof(host));
	cr_assert_eq(hipMalloc(&dev, sizeof(host)), hipSuccess);
	hip_Memcpy2D c;
	memset(&c, 0, sizeof(c));
	c.srcMemoryType = hipMemoryTypeHost;
	c.srcHost = host;
	c.dstMemoryType = hipMemoryTypeDevice;
	c.dstDevice = (hipDeviceptr_t)dev;
	c.WidthInBytes = W;
	c.Height = H; /* both pitches 0 */
	if (async) {
		cr_assert_eq(hipMemcpyParam2DAsync(&c, NULL), hipSuccess);
		cr_assert_eq(hipStreamSynchronize(NULL), hipSuccess);
	} else {
		cr_assert_eq(hipMemcpyParam2D(&c), hipSuccess);
	}
	cr_assert_eq(hipMemcpy(back, dev, sizeof(back), hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_arr_eq(back, host, sizeof(host));
	/* A row that does not fit a given pitch is still refused. */
	c.srcPitch = W - 1;
	cr_assert_neq(hipMemcpyParam2D(&c), hipSuccess);
	cr_assert_eq(hipFree(dev), hipSuccess);
}

Test(drv_copy_edges, param2d_pitch_zero)
{
	param2d_pitch0(false);
}

Test(drv_copy_edges, param2d_async_pitch_zero)
{
	param2d_pitch0(true);
}

static void drv3d_h2d(bool async)
{
	static unsigned char host[W * H * D], back[W * H * D];
	void *dev;
	fill(host, sizeof(host));
	cr_assert_eq(hipMalloc(&dev, sizeof(host)), hipSuccess);
	cr_assert_eq(hipMemset(dev, 0, sizeof(host)), hipSuccess);
	HIP_MEMCPY3D c;
	memset(&c, 0, sizeof(c));
	c.srcMemoryType = hipMemoryTypeHost;
	c.srcHost = host;
	c.srcPitch = W;
	c.srcHeight = H;
	c.dstMemoryType = hipMemoryTypeDevice;
	c.dstDevice = (hipDeviceptr_t)dev;
	c.dstPitch = W;
	c.dstHeight = H;
	c.WidthInBytes = W;
	c.Height = H;
	c.Depth = D;
	if (async) {
		cr_assert_eq(hipDrvMemcpy3DAsync(&c, NULL), hipSuccess);
		cr_assert_eq(hipStreamSynchronize(NULL), hipSuccess);
	} else {
		cr_assert_eq(hipDrvMemcpy3D(&c), hipSuccess);
	}
	cr_assert_eq(hipMemcpy(back, dev, sizeof(back), hipMemcpyDeviceToHost), hipSuccess);
	cr_assert_eq(back[W * H], host[W * H], "[0,0,1]");
	cr_assert_arr_eq(back, host, sizeof(host));
	cr_assert_eq(hipFree(dev), hipSuccess);
}

Test(drv_copy_edges, drv3d_host_to_device)
{
	drv3d_h2d(false);
}

Test(drv_copy_edges, drv3d_async_host_to_device)
{
	drv3d_h2d(true);
}
