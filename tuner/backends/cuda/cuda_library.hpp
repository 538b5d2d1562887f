// The CUDA backend's native calls (pimg::NativeCall): library baselines (NPP functions, CUB, ...) that a
// variant names instead of a kernel, run by the backend as the call registered under that name in
// library_calls(), timed by CUDA events on the default stream like a kernel and validated like any variant.
// A library baseline is one file in its family's plug-in folder, variants/<family>/cuda/native/<call>.cpp
// defining make_<call>() (e.g. flip's npp_mirror.cpp); the table is generated from the files present
// (CMakeLists.txt). NPP and CUB are loaded at run time, so the binary still runs where they (or the driver)
// are absent.
#pragma once
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "cuda_api.hpp"
#include "pimg/backend.hpp"

namespace pimg::cuda {

// What a library call runs with: the device's NPP stream context, whose stream (the legacy default
// stream) is the one the backend times.
struct LibraryEnv {
  const NppStreamContext& npp;
};

// Device pointers of the plan's buffers (workload inputs, scratch and "out"), by name.
using DevicePointers = std::map<std::string, CUdeviceptr>;

class LibraryCall {
 public:
  virtual ~LibraryCall() = default;
  // Enqueues the library's work on the default stream; throws std::runtime_error with the library's
  // status on failure. Called with the device's context current.
  virtual void run(const LibraryEnv& env, const LaunchPlan& plan, const DevicePointers& buffers) = 0;
  // Work the call needs before each run but outside its timed region (enqueued on the same stream, so run()
  // sees it done); nothing by default.
  virtual void prepare(const LibraryEnv&, const LaunchPlan&, const DevicePointers&) {}
};

// Made at compile time, once per configuration, from the plan (its defines and arguments); throws
// std::runtime_error naming a missing library or symbol or a plan the call cannot run. Device memory it
// allocates is freed in its destructor (the backend makes the context current first).
using LibraryFactory = std::unique_ptr<LibraryCall> (*)(const LaunchPlan& plan);

// NativeCall::name -> factory, for every library baseline of this build (generated: library_calls.cpp.in).
const std::map<std::string, LibraryFactory>& library_calls();

// A symbol of one of the toolkit's NPP libraries (e.g. "libnppig.so.13"), the runtime and libnppc
// loaded first. Throws std::runtime_error naming the library and symbol when either is missing.
void* npp_symbol(const std::string& library, const std::string& symbol);

template <class Fn>
Fn npp_function(const std::string& library, const std::string& symbol) {
  return reinterpret_cast<Fn>(npp_symbol(library, symbol));
}

// The pointer of buffer `name`, or std::runtime_error naming it.
CUdeviceptr pointer(const DevicePointers& buffers, const std::string& name);

// Throws std::runtime_error "<call>: NPP status N" for negative (error) statuses.
void check_npp(NppStatus status, const char* call);

// The loaded driver for a call's own device memory (made at compile time, with the device's context
// current), or std::runtime_error saying why it cannot load.
const DriverApi& library_driver();

}  // namespace pimg::cuda
