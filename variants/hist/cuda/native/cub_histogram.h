/* hist's CUB code in libpimg_cub.so (cub_histogram.cu; the library's conventions are pimg_cub.h's of the
 * CUDA backend): scratch storage is allocated once (by pimg_cub_histogram_prepare, outside the timed region)
 * and kept, so the timed calls do not allocate. */
#ifndef PIMG_CUB_HISTOGRAM_H
#define PIMG_CUB_HISTOGRAM_H
#ifdef __cplusplus
extern "C" {
#endif

/* cub::DeviceHistogram::HistogramEven (channels 1) or MultiHistogramEven<3, 3> (channels 3, interleaved)
 * over `pixels` pixels: 256 bins per channel, channel after channel in `bins`. */
int pimg_cub_histogram_even(const unsigned char* in, unsigned* bins, long long pixels, int channels);
/* Sizes and allocates the scratch storage of pimg_cub_histogram_even for this shape, so that its calls of
 * that shape neither ask CUB for the size nor allocate (call it outside a timed region). */
int pimg_cub_histogram_prepare(long long pixels, int channels);

#ifdef __cplusplus
}
#endif
#endif
