/* Device-to-device copy from "in" to "out" (NVRTC): a grid-stride loop of 16-byte (uint4) vectors, then
   the last bytes % 16 bytes one by one; the bandwidth ceiling the CUDA conv kernels' GB/s are compared with. */
extern "C" __global__ void copy_vec(const uint4* __restrict__ in, uint4* __restrict__ out, int bytes) {
  const long long vectors = bytes / 16;
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  for (long long i = first; i < vectors; i += stride) out[i] = in[i];
  const int tail = bytes % 16;
  if (first < tail)
    ((unsigned char*)out)[vectors * 16 + first] = ((const unsigned char*)in)[vectors * 16 + first];
}
