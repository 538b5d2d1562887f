/* Reads every 16-byte vector of "in" once (a grid-stride loop) and writes one 32-bit sum per work-group to
   "out" (the sum, modulo 2^32, of the group's 32-bit words): the read ceiling a kernel that reads far more than it
   writes is compared with (docs/measurement.md, "The bandwidth ceiling"). The host checks the sums, so no load can
   be left out. Work-groups of up to 1024 items, of any size. */
__kernel void read_vec(__global const uint4* in, __global uint* out, int vectors) {
  __local uint part[1024];
  const size_t stride = get_global_size(0);
  uint s = 0;
  for (size_t i = get_global_id(0); i < (size_t)vectors; i += stride) {
    const uint4 v = in[i];
    s += v.x + v.y + v.z + v.w;
  }
  const uint lid = (uint)get_local_id(0), n = (uint)get_local_size(0);
  part[lid] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint step = 1; step < n; step <<= 1) {
    if (lid % (2 * step) == 0 && lid + step < n) part[lid] += part[lid + step];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) out[get_group_id(0)] = part[0];
}

/* The same read without a work-group step (no barrier, which some CPU implementations run as loops of their own):
   each work item writes its own sum to out[get_global_id(0)]; the plan gives each item at least 64 vectors, so
   the sums are at most 1/256 of the bytes read. */
__kernel void read_each(__global const uint4* in, __global uint* out, int vectors) {
  const size_t stride = get_global_size(0);
  uint s = 0;
  for (size_t i = get_global_id(0); i < (size_t)vectors; i += stride) {
    const uint4 v = in[i];
    s += v.x + v.y + v.z + v.w;
  }
  out[get_global_id(0)] = s;
}

/* The read as a CPU implementation runs it best: each work item sums its own contiguous run of vectors (a grid-stride
   loop makes each item of a work-group, run one after the other, stride through memory), writing its sum to
   out[get_global_id(0)]; at least 64 vectors an item, as read_each. */
__kernel void read_chunk(__global const uint4* in, __global uint* out, int vectors) {
  const size_t items = get_global_size(0), g = get_global_id(0);
  const size_t per = ((size_t)vectors + items - 1) / items;
  const size_t end = min((g + 1) * per, (size_t)vectors);
  uint s = 0;
  for (size_t i = g * per; i < end; ++i) {
    const uint4 v = in[i];
    s += v.x + v.y + v.z + v.w;
  }
  out[g] = s;
}
