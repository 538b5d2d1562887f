/* libpimg_cub.so, built by nvcc (CUB is host-dispatched C++ templates, which NVRTC cannot run) and
 * dlopen'ed by the CUDA backend, so pimg-tune runs without a CUDA driver: this file's functions, and the
 * families' CUB code (variants/<family>/cuda/native/*.cu, each with a header of its C functions, which the
 * family's native calls resolve by name through cub_function). Pointers are device pointers in the current
 * (primary) context; every call runs on the legacy default stream and returns 0 or a cudaError_t code
 * whose text pimg_cub_error() gives. */
#ifndef PIMG_CUB_H
#define PIMG_CUB_H
#ifdef __cplusplus
extern "C" {
#endif

/* Waits for the default stream; returns its error. */
int pimg_cub_synchronize(void);
const char* pimg_cub_error(int code);

#ifdef __cplusplus
}
#endif
#endif
