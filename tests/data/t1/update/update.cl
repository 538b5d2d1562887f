// A kernel that reads and updates its arguments (tests/e2e/t1_test.cpp): `count` is read and written in
// place, `out` is read and written (its fill is its value before each run), and the step is in a header
// beside the kernel (update_step.h), expanded by the T1 loader. Each work item updates ipt elements.
#include "update_step.h"

__kernel void update(__global const float* in, __global float* count, __global float* out, const int n) {
  for (int k = 0; k < ipt; ++k) {
    const int j = get_global_id(0) * ipt + k;
    if (j >= n) return;
    count[j] += 1.0f;
    out[j] = update_step(out[j], in[j], count[j]);
  }
}
