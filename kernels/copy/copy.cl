/* Device-to-device copy from "in" to "out", one 16-byte vector per work item (global = bytes / 16):
   the bandwidth ceiling the conv kernels' GB/s are compared with. */
__kernel void copy_vec(__global const uint4* in, __global uint4* out) {
  const size_t i = get_global_id(0);
  out[i] = in[i];
}
