/* CUDA direct KxK convolution reading the input through a texture object (NVRTC): "in" is a CUDA array
   of 1-byte texels holding the buffer's bytes (width*channels wide interleaved, planes stacked vertically
   when planar), read with tex2D<unsigned char> and point sampling. Coordinates follow the border rule
   explicitly; ITEMS_X x ITEMS_Y neighbouring pixels per thread through the per-pixel helper. */
#include "conv/conv_cuda_common.cuh"

/* Channel c of input pixel (x, y); out-of-range coordinates follow the border rule. */
static __device__ __forceinline__ int tex_px(unsigned long long in, int x, int y, int c, int width, int height) {
  CONV_BORDER_XY(x, y, width, height);
#if PIMG_PLANAR
  const int tx = x, ty = c * height + y;
#else
  const int tx = x * PIMG_CHANNELS + c, ty = y;
#endif
  return (int)tex2D<unsigned char>(in, (float)tx + 0.5f, (float)ty + 0.5f);
}

/* One output value: channel c of the window whose top-left tap is input (x0, y0). */
PIMG_HELPER int texture_pixel(unsigned long long in, const int* __restrict__ weights, int x0, int y0, int c,
                              int width, int height) {
  FILTER_LOCALS
  int acc = 0;
  TAP_LOOP
  for (int ky = 0; ky < PIMG_K; ++ky) {
    TAP_LOOP
    for (int kx = 0; kx < PIMG_K; ++kx) acc += TAP_TERM(ky * PIMG_K + kx, tex_px(in, x0 + kx, y0 + ky, c, width, height));
  }
  return pimg_conv_finish(acc, PIMG_DIVISOR);
}

/* in: a texture object (cudaTextureObject_t); weights: K*K row-major (multiplies: no ARITH knob). */
extern "C" __global__ void PIMG_BOUNDS conv_cuda_texture(unsigned long long in, const int* __restrict__ weights,
                                                         uchar* __restrict__ out, int width, int height,
                                                         int out_width, int out_height) {
  const int ox0 = (int)(blockIdx.x * BLOCK_X + threadIdx.x) * ITEMS_X;
  const int oy0 = (int)(blockIdx.y * BLOCK_Y + threadIdx.y) * ITEMS_Y;
  for (int iy = 0; iy < ITEMS_Y; ++iy) {
    const int oy = oy0 + iy;
    if (oy >= out_height) break;
    for (int ix = 0; ix < ITEMS_X; ++ix) {
      const int ox = ox0 + ix;
      if (ox >= out_width) break;
      const int x0 = ox + CENTRE - PIMG_R, y0 = oy + CENTRE - PIMG_R; /* top-left tap */
      for (int c = 0; c < PIMG_CHANNELS; ++c)
        out[pimg_pixel_index(ox, oy, c, out_width, out_height, PIMG_CHANNELS, PIMG_PLANAR)] =
            (uchar)texture_pixel(in, weights, x0, y0, c, width, height);
    }
  }
}
