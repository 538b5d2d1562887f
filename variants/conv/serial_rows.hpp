// The serial baseline's row loop (serial.cpp), shared with the threaded host variants (pthread_rows.cpp):
// the host-function arguments read back into a ConvSpec, and the output rows of a range of the
// plane-major (plane, row) sequence computed as `serial` computes them.
#pragma once
#include <cstdint>
#include <vector>

#include "conv_family.hpp"
#include "pimg/backend.hpp"

namespace pimg::conv {

// serial's arguments: buffers in, out, weights; ints width, height, channels, planar, border, k, divisor, batch.
std::vector<KernelArg> row_loop_args(const ConvSpec& s);
ConvSpec row_loop_spec(void* const* buffers, const std::int64_t* ints);
// The one image the host functions' first seven ints describe (width .. divisor; batch 1), weights from
// buffers[2]: row_loop_spec's and the OpenCV baseline's, whose arguments end there.
ConvSpec host_spec(void* const* buffers, const std::int64_t* ints);
// Output rows in all: batch x planes x out_height (one plane per image when interleaved).
long row_loop_rows(const ConvSpec& s);
// Output rows [first, last) of the plane-major sequence.
void row_loop(const ConvSpec& s, const std::uint8_t* in, std::uint8_t* out, long first, long last);

}  // namespace pimg::conv
