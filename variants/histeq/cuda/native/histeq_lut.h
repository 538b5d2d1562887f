/* histeq's kernel in libpimg_cub.so (histeq_lut.cu; the library's conventions are pimg_cub.h's of the
 * CUDA backend). */
#ifndef PIMG_CUB_HISTEQ_LUT_H
#define PIMG_CUB_HISTEQ_LUT_H
#ifdef __cplusplus
extern "C" {
#endif

/* A 256-thread kernel: the histeq rule's LUT (kernels/histeq/histeq_rule.h) of a 256-bin histogram of
 * `total` pixels. */
int pimg_cub_histeq_lut(const unsigned* hist, unsigned char* lut, int total);

#ifdef __cplusplus
}
#endif
#endif
