// Does the cold-L2 flush (a memset of twice the L2) charge the timed kernel for writing back the flush's dirty
// lines? Times a read-only sum, a 256-bin histogram (shared atomics, 32 interleaved copies) and copies of the same
// working set after each flush: none (hot), memset (the tuner's), memset then a read of the flush buffer (clean
// lines), memset then discard.global.L2, and a read-only sweep of a buffer filled once. nvcc -O3 -arch=sm_90.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); std::exit(1); } } while (0)

__global__ void read_sum(const uint4* p, size_t n, unsigned* sink) {
  unsigned a = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint4 q = __ldg(p + i);
    a ^= q.x ^ q.y ^ q.z ^ q.w;
  }
  if (a == 0x9e3779b9u) *sink = a;
}
__global__ void copy(const uint4* p, uint4* q, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) q[i] = __ldg(p + i);
}
__global__ void discard_l2(char* p, size_t bytes) {
  for (size_t i = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) * 128; i < bytes; i += (size_t)gridDim.x * blockDim.x * 128)
    asm volatile("discard.global.L2 [%0], 128;" ::"l"(p + i) : "memory");
}
__global__ void __launch_bounds__(1024) hist(const uint4* p, size_t n, unsigned* bins) {
  __shared__ unsigned sub[256 * 32];
  for (int i = threadIdx.x; i < 256 * 32; i += 1024) sub[i] = 0;
  __syncthreads();
  unsigned* mine = sub + threadIdx.x % 32;
  for (size_t i = blockIdx.x * (size_t)1024 + threadIdx.x; i < n; i += (size_t)gridDim.x * 1024) {
    uint4 q = __ldg(p + i);
    unsigned w[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
    for (int k = 0; k < 4; ++k)
#pragma unroll
      for (int b = 0; b < 4; ++b) atomicAdd(&mine[((w[k] >> (8 * b)) & 255) * 32], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += 1024) {
    unsigned t = 0;
    for (int r = 0; r < 32; ++r) t += sub[b * 32 + r];
    atomicAdd(&bins[b], t);
  }
}

int main() {
  int l2 = 0, sms = 0;
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device %s, L2 %d bytes, %d SMs\n", prop.name, l2, sms);
  const size_t fbytes = 2 * (size_t)l2, big = 256u << 20;
  char *flush, *clean, *in, *out;
  unsigned *sink, *bins;
  CK(cudaMalloc(&flush, fbytes)); CK(cudaMalloc(&clean, fbytes));
  CK(cudaMalloc(&in, big)); CK(cudaMalloc(&out, big));
  CK(cudaMalloc(&sink, 4)); CK(cudaMalloc(&bins, 1024));
  std::vector<unsigned char> h(big);
  unsigned s = 12345;
  for (auto& c : h) { s = s * 1664525u + 1013904223u; c = (unsigned char)(s >> 24); }
  CK(cudaMemcpy(in, h.data(), big, cudaMemcpyHostToDevice));
  CK(cudaMemset(clean, 1, fbytes));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  const char* fnames[] = {"hot", "memset", "memset+read", "memset+discard", "read-only"};
  const char* knames[] = {"read", "hist", "copy-kernel", "memcpy-d2d"};
  int grid_read = sms * 8, grid_hist = sms * 2;
  for (size_t bytes : {size_t(32) << 20, size_t(64) << 20, size_t(256) << 20}) {
    size_t n = bytes / 16;
    for (int k = 0; k < 4; ++k) {
      for (int f = 0; f < 5; ++f) {
        std::vector<float> ms;
        unsigned fv = 0;
        for (int rep = 0; rep < 31; ++rep) {
          if (f == 1 || f == 2 || f == 3) CK(cudaMemsetAsync(flush, ++fv, fbytes));
          if (f == 2) read_sum<<<sms * 8, 512>>>((const uint4*)flush, fbytes / 16, sink);
          if (f == 3) discard_l2<<<sms * 8, 512>>>(flush, fbytes);
          if (f == 4) read_sum<<<sms * 8, 512>>>((const uint4*)clean, fbytes / 16, sink);
          if (f == 0 && rep == 0) read_sum<<<grid_read, 512>>>((const uint4*)in, n, sink);
          CK(cudaEventRecord(a));
          if (k == 0) read_sum<<<grid_read, 512>>>((const uint4*)in, n, sink);
          if (k == 1) hist<<<grid_hist, 1024>>>((const uint4*)in, n, bins);
          if (k == 2) copy<<<grid_read, 512>>>((const uint4*)in, (uint4*)out, n);
          if (k == 3) CK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice));
          CK(cudaEventRecord(b));
          CK(cudaEventSynchronize(b));
          float t; CK(cudaEventElapsedTime(&t, a, b));
          if (rep) ms.push_back(t);
        }
        CK(cudaGetLastError());
        std::sort(ms.begin(), ms.end());
        double med = ms[ms.size() / 2] * 1e-3, moved = (k >= 2 ? 2.0 : 1.0) * bytes;
        std::printf("%4zu MiB %-12s %-15s median %8.2f us  min %8.2f us  %7.1f GB/s\n", bytes >> 20, knames[k], fnames[f],
                    med * 1e6, ms[0] * 1e3, moved / med / 1e9);
      }
    }
  }
  // What each flush itself costs.
  for (int f = 1; f < 5; ++f) {
    std::vector<float> ms;
    for (int rep = 0; rep < 11; ++rep) {
      CK(cudaEventRecord(a));
      if (f <= 3) CK(cudaMemsetAsync(flush, rep, fbytes));
      if (f == 2) read_sum<<<sms * 8, 512>>>((const uint4*)flush, fbytes / 16, sink);
      if (f == 3) discard_l2<<<sms * 8, 512>>>(flush, fbytes);
      if (f == 4) read_sum<<<sms * 8, 512>>>((const uint4*)clean, fbytes / 16, sink);
      CK(cudaEventRecord(b));
      CK(cudaEventSynchronize(b));
      float t; CK(cudaEventElapsedTime(&t, a, b));
      ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    std::printf("flush %-15s %8.1f us\n", fnames[f], ms[5] * 1e3);
  }
  return 0;
}
