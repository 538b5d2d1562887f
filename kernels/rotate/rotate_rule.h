/* The rotate family's arithmetic rule, shared word for word by the CPU reference, OpenCL, OpenMP and CUDA
   kernels. Everything after the host has turned the angle into two integers is integer arithmetic, so every
   device computes the same bytes.

   Coordinates: pixel (x, y) has its centre at (x, y); the rotation centre is ((w-1)/2, (h-1)/2). Gather:
   output pixel (x, y) reads the source point
       sx = cx + cos(a) (x - cx) - sin(a) (y - cy),   sy = cy + sin(a) (x - cx) + cos(a) (y - cy),
   which turns the picture counterclockwise by a degrees as displayed (y pointing down). cos and sin are the
   integers CS = round(cos(a) 2^16) and SN = round(sin(a) 2^16) computed once on the host; with doubled
   offsets u = 2x - (w-1), v = 2y - (h-1) the source point in units of 2^-17 pixel is exactly
       PX = CS u - SN v + (w-1) 2^16,   PY = SN u + CS v + (h-1) 2^16,
   so one pixel to the right adds (2 CS, 2 SN) and one row down adds (-2 SN, 2 CS) (row-wise increments give
   the same integers). No intermediate leaves int32 when 2 max(w,h) + min(w,h) <= 32767; the family asks
   for <= 30000, so kernels may step a source point up to 1300 pixels past the image and stay in range.

   Nearest: the source pixel is (floor(sx + 1/2), floor(sy + 1/2)) (ties go right / down); outside the image,
   the output is the fill value.
   Bilinear: sx and sy are rounded half up to 1/256 pixel; x0 = floor(sx), fx = 256 frac(sx) (same for y);
   the four taps (x0|x0+1, y0|y0+1) read the fill value outside the image, and
       top = p00 (256-fx) + p10 fx,  bot = p01 (256-fx) + p11 fx,  out = (top (256-fy) + bot fy + 2^15) >> 16.
   Layouts: interleaved ((y w + x) ch + c) or planar ((c h + y) w + x). */
#ifndef PIMG_ROTATE_RULE_H
#define PIMG_ROTATE_RULE_H

#if defined(__OPENCL_VERSION__)
#define PIMG_ROT_FN static inline
#define PIMG_ROT_GLOBAL __global
#elif defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define PIMG_ROT_FN static __device__ __forceinline__
#define PIMG_ROT_GLOBAL
#else
#define PIMG_ROT_FN static inline
#define PIMG_ROT_GLOBAL
#endif

/* How a kernel reads an input byte (CUDA kernels may define it as __ldg before including this file). */
#ifndef PIMG_ROT_LOAD
#define PIMG_ROT_LOAD(p) (*(p))
#endif

#define PIMG_ROT_NEAREST 0
#define PIMG_ROT_BILINEAR 1
#define PIMG_ROT_FRAC 17 /* PX, PY: pixels in units of 2^-17 */

/* The source point of output pixel (x, y) in units of 2^-17 pixel. */
PIMG_ROT_FN int pimg_rot_px(int x, int y, int w, int h, int cs, int sn) {
  return cs * (2 * x - (w - 1)) - sn * (2 * y - (h - 1)) + (w - 1) * 65536;
}
PIMG_ROT_FN int pimg_rot_py(int x, int y, int w, int h, int cs, int sn) {
  return sn * (2 * x - (w - 1)) + cs * (2 * y - (h - 1)) + (h - 1) * 65536;
}

/* Index of channel c of pixel (x, y). */
PIMG_ROT_FN int pimg_rot_index(int x, int y, int c, int w, int h, int ch, int planar) {
  return planar ? (c * h + y) * w + x : (y * w + x) * ch + c;
}

/* Nearest: the source pixel's number y w + x, or -1 when it lies outside the image. */
PIMG_ROT_FN int pimg_rot_nearest_pixel(int px, int py, int w, int h) {
  const int qx = px + 65536, qy = py + 65536; /* s + 1/2 */
  if (qx < 0 || qy < 0 || qx >= (w << PIMG_ROT_FRAC) || qy >= (h << PIMG_ROT_FRAC)) return -1;
  return (qy >> PIMG_ROT_FRAC) * w + (qx >> PIMG_ROT_FRAC);
}

/* Scatter (seed 002's kernel, rule "scatter"; nearest only): source pixel (x, y) goes to the destination point
   of the inverse rotation, d = c + R(-a) (s - c), in units of 2^-17 pixel
       DX = CS u + SN v + (w-1) 2^16,   DY = -SN u + CS v + (h-1) 2^16   (u = 2x - (w-1), v = 2y - (h-1)),
   rounded like the gather's nearest (ties right / down; pimg_rot_nearest_pixel). Output pixels no source
   reaches (holes) take the fill value; where several sources land on one output pixel, the last source in
   raster order (the largest y w + x) wins, as a serial loop writing in raster order leaves it. Parallel
   kernels keep, per output pixel, the largest source number + 1 reaching it (an atomic maximum; 0: a hole)
   and copy that source's bytes in a second pass. */
PIMG_ROT_FN int pimg_rot_scatter_target(int x, int y, int w, int h, int cs, int sn) {
  const int u = 2 * x - (w - 1), v = 2 * y - (h - 1);
  return pimg_rot_nearest_pixel(cs * u + sn * v + (w - 1) * 65536, -sn * u + cs * v + (h - 1) * 65536, w, h);
}

/* Bilinear: (s + 1) rounded half up to 1/256 pixel, or -1 when s < -1 (every tap outside). */
PIMG_ROT_FN int pimg_rot_q8(int p) {
  const int t = p + (1 << PIMG_ROT_FRAC) + (1 << (PIMG_ROT_FRAC - 9));
  return t < 0 ? -1 : t >> (PIMG_ROT_FRAC - 8);
}

PIMG_ROT_FN int pimg_rot_blend(int p00, int p10, int p01, int p11, int fx, int fy) {
  const int top = p00 * (256 - fx) + p10 * fx;
  const int bot = p01 * (256 - fx) + p11 * fx;
  return (top * (256 - fy) + bot * fy + 32768) >> 16;
}

/* Channel c of source pixel (x, y), or the fill value outside the image. */
PIMG_ROT_FN int pimg_rot_tap(const PIMG_ROT_GLOBAL unsigned char* in, int x, int y, int c, int w, int h, int ch,
                             int planar, int fill) {
  if (x < 0 || y < 0 || x >= w || y >= h) return fill;
  return PIMG_ROT_LOAD(in + pimg_rot_index(x, y, c, w, h, ch, planar));
}

/* Channel c of the output pixel whose source point is (px, py), by interpolation `interp`. */
PIMG_ROT_FN int pimg_rot_sample(const PIMG_ROT_GLOBAL unsigned char* in, int px, int py, int c, int w, int h,
                                int ch, int planar, int interp, int fill) {
  if (interp == PIMG_ROT_NEAREST) {
    const int n = pimg_rot_nearest_pixel(px, py, w, h);
    if (n < 0) return fill;
    return PIMG_ROT_LOAD(in + (planar ? c * w * h + n : n * ch + c));
  }
  const int qx = pimg_rot_q8(px), qy = pimg_rot_q8(py);
  if (qx < 0 || qy < 0) return fill;
  const int x0 = (qx >> 8) - 1, y0 = (qy >> 8) - 1;
  return pimg_rot_blend(pimg_rot_tap(in, x0, y0, c, w, h, ch, planar, fill),
                        pimg_rot_tap(in, x0 + 1, y0, c, w, h, ch, planar, fill),
                        pimg_rot_tap(in, x0, y0 + 1, c, w, h, ch, planar, fill),
                        pimg_rot_tap(in, x0 + 1, y0 + 1, c, w, h, ch, planar, fill), qx & 255, qy & 255);
}

/* The same rule with the source read as 1-byte texels of a 2-D image (interleaved rows w*ch texels wide, planes
   stacked vertically) through PIMG_ROT_TEXEL(in, tx, ty), `in` of type PIMG_ROT_IMAGE: both defined by a
   kernel that reads a texture before including this file. */
#ifdef PIMG_ROT_TEXEL
PIMG_ROT_FN int pimg_rot_texel(PIMG_ROT_IMAGE in, int x, int y, int c, int w, int h, int ch, int planar, int fill) {
  if (x < 0 || y < 0 || x >= w || y >= h) return fill;
  return planar ? PIMG_ROT_TEXEL(in, x, c * h + y) : PIMG_ROT_TEXEL(in, x * ch + c, y);
}

PIMG_ROT_FN int pimg_rot_sample_texels(PIMG_ROT_IMAGE in, int px, int py, int c, int w, int h, int ch, int planar,
                                       int interp, int fill) {
  if (interp == PIMG_ROT_NEAREST) {
    const int qx = px + 65536, qy = py + 65536; /* s + 1/2; the upper bounds are the texel's */
    if (qx < 0 || qy < 0) return fill;
    return pimg_rot_texel(in, qx >> PIMG_ROT_FRAC, qy >> PIMG_ROT_FRAC, c, w, h, ch, planar, fill);
  }
  const int qx = pimg_rot_q8(px), qy = pimg_rot_q8(py);
  if (qx < 0 || qy < 0) return fill;
  const int x0 = (qx >> 8) - 1, y0 = (qy >> 8) - 1;
  return pimg_rot_blend(pimg_rot_texel(in, x0, y0, c, w, h, ch, planar, fill),
                        pimg_rot_texel(in, x0 + 1, y0, c, w, h, ch, planar, fill),
                        pimg_rot_texel(in, x0, y0 + 1, c, w, h, ch, planar, fill),
                        pimg_rot_texel(in, x0 + 1, y0 + 1, c, w, h, ch, planar, fill), qx & 255, qy & 255);
}
#endif

#endif
