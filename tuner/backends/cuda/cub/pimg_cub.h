/* The C interface of libpimg_cub.so, built by nvcc (CUB is host-dispatched C++ templates, which NVRTC
 * cannot run) and dlopen'ed by the CUDA backend, so pimg-tune runs without a CUDA driver. Pointers are
 * device pointers in the current (primary) context; every call runs on the legacy default stream and
 * returns 0 or a cudaError_t code whose text pimg_cub_error() gives. Scratch storage is allocated once
 * (by pimg_cub_histogram_prepare, outside the timed region) and kept, so the timed calls do not allocate. */
#ifndef PIMG_CUB_H
#define PIMG_CUB_H
#ifdef __cplusplus
extern "C" {
#endif

/* cub::DeviceHistogram::HistogramEven (channels 1) or MultiHistogramEven<3, 3> (channels 3, interleaved)
 * over `pixels` pixels: 256 bins per channel, channel after channel in `bins`. */
int pimg_cub_histogram_even(const unsigned char* in, unsigned* bins, long long pixels, int channels);
/* Sizes and allocates the scratch storage of pimg_cub_histogram_even for this shape, so that its calls of
 * that shape neither ask CUB for the size nor allocate (call it outside a timed region). */
int pimg_cub_histogram_prepare(long long pixels, int channels);
/* A 256-thread kernel: the histeq rule's LUT (kernels/histeq/histeq_rule.h) of a 256-bin histogram of
 * `total` pixels. */
int pimg_cub_histeq_lut(const unsigned* hist, unsigned char* lut, int total);
/* Waits for the default stream; returns its error. */
int pimg_cub_synchronize(void);
const char* pimg_cub_error(int code);

#ifdef __cplusplus
}
#endif
#endif
