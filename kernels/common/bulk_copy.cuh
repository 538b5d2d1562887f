/* Hopper's bulk-copy engine (TMA, cp.async.bulk; sm_90, PTX ISA 8.0) from global to shared memory, completing on an
 * mbarrier: what the ceiling's copy_bulk kernels (copy/copy.cu) and the histogram's bulk ring
 * (hist/hist_cuda_shared.cu) share. One thread inits the barriers and issues the copies; any thread may wait. */
#pragma once

/* Inits `n` mbarriers, each completing when one arrival and its expected bytes are in. */
__device__ __forceinline__ void bulk_init(unsigned long long* bar, int n) {
  for (int s = 0; s < n; ++s)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"((unsigned)__cvta_generic_to_shared(&bar[s])));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

/* Copies `size` bytes (a multiple of 16, both addresses 16-byte aligned) from global `src` to shared `dst`; the
 * copy completes the current phase of `bar`. */
__device__ __forceinline__ void bulk_load(void* dst, const void* src, unsigned size, unsigned long long* bar) {
  const unsigned b = (unsigned)__cvta_generic_to_shared(bar);
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(size) : "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   (unsigned)__cvta_generic_to_shared(dst)),
               "l"(src), "r"(size), "r"(b)
               : "memory");
}

/* Waits until the phase of `bar` with this parity (its use count & 1) has completed. */
__device__ __forceinline__ void bulk_wait(unsigned long long* bar, unsigned parity) {
  const unsigned b = (unsigned)__cvta_generic_to_shared(bar);
  unsigned done = 0;
  while (!done)
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(b), "r"(parity)
        : "memory");
}
