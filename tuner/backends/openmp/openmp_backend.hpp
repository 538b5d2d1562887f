// The OpenMP backend: each configuration of a kernel source is compiled by the host C++ compiler
// (-fopenmp, its defines on the command line) into a shared library, cached on disk and in memory,
// loaded with dlopen and run on host memory, timed with the host clock.
#pragma once
#include <memory>

#include "pimg/backend.hpp"

namespace pimg {
std::unique_ptr<Backend> make_openmp_backend();
}
