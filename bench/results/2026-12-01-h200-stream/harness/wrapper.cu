// One kernel configuration of the experiment: the problem's defines, the kernel file, its launcher.
#include <cuda_runtime.h>
#include PROBLEM_H
#if KIND_STREAM
#include "conv/conv_cuda_stream.cu"
#else
#include "conv/conv_vec_body.h"
#endif
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
extern "C" void CAT(launch_, TAG)(const unsigned char* in, unsigned char* out, int w, int h, cudaStream_t s) {
  const int row_vecs = (w * BPP + VEC - 1) / VEC;
  const int groups = (h + ROWS - 1) / ROWS;
  dim3 block(BLOCK_X, BLOCK_Y);
  dim3 grid((row_vecs + BLOCK_X - 1) / BLOCK_X, (groups + BLOCK_Y - 1) / BLOCK_Y);
  CAT(k_, TAG)<<<grid, block, 0, s>>>(in, out, w, h, w, h);
}
