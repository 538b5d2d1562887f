// User variants declared in a space file (`user_variants:`, docs/tune-your-own-kernel.md): a kernel
// of the user's own (OpenCL, CUDA or OpenMP source read at run time) that joins a built-in family,
// validated by the family's reference and timed beside its variants, without rebuilding pimg-tune.
#pragma once
#include <string>

#include "pimg/registry.hpp"
#include "pimg/space.hpp"

namespace pimg::user {

// Registers the space file's user variants in `reg` (none: nothing happens). Throws UsageError naming
// FILE:LINE:COLUMN for a malformed declaration.
void register_space_variants(Registry& reg, const std::string& space_path);

// Loads a space file that may declare user variants: registers them, then loads the space as usual
// (the `user_variants:` section hidden from the space loader, line numbers kept), and records the file
// in the environment the run's workers read.
Space load_space_with_user_variants(Registry& reg, const std::string& space_path);

}  // namespace pimg::user
