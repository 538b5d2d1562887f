// Evicting a buffer's cache lines from every level of the host's caches, for cold runs of devices whose
// memory is the host's (docs/measurement.md, "Timing methods"): cost in proportion to the bytes flushed,
// where sweeping a buffer of twice the last-level cache costs in proportion to that cache (a virtual CPU may
// report hundreds of MiB).
#pragma once
#include <cstddef>

namespace pimg {

// True where this build can evict lines by address (x86-64: CLFLUSHOPT where the CPU has it, else CLFLUSH;
// AArch64: DC CIVAC). Elsewhere flush_cache_lines() does nothing and callers sweep instead.
bool can_flush_cache_lines();

// Writes back and evicts every cache line of [data, data + bytes) from all cache levels of the coherence
// domain, and waits until that is done (a fence), so the next access of any of the bytes comes from memory.
void flush_cache_lines(const void* data, std::size_t bytes);

}  // namespace pimg
