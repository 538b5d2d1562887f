// The thin backend interface: probe devices, compile a kernel source for a configuration,
// allocate/upload/download buffers, launch with a geometry and time it. Nothing here includes a
// vendor header; each backend is its own CMake target, registered from its own folder
// (tuner/backends/<name>/register.cpp; docs/design.md, "Adding a backend").
#pragma once
#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace pimg {

// The calling convention shared by compiled OpenMP kernels and the host backend's built-in
// functions: buffers, integer and real arguments, each in the order they appear in the plan.
using HostKernelFn = void (*)(void* const* buffers, const std::int64_t* ints, const double* reals);

// What a device is, for the decisions the core makes about it (how it is measured, observed and run), so
// that none of them names a backend. Its backend sets them; a store keeps the flags (stored(), schema 9), so the
// report decides by them too.
struct DeviceCaps {
  // It computes on the host's cores (the host, OpenMP, MPI ranks, a CPU OpenCL device): compiling beside it
  // would be measured with its kernels, and its medians take the host-cores noise target (NoiseTarget).
  bool host_cores = false;
  // Its work runs in processes of its own (MPI ranks): what other processes use of the CPU is its own work.
  bool distributed = false;
  // The source of its check kernels (kernels/check/: pimg_check, pimg_check_poison, pimg_checksum) in its own
  // language; empty where the backend has none and outputs are compared on the host.
  std::string check_source;
  // It sets a plan's LaunchPlan::globals (variables of a host-compiled library) before every launch.
  bool program_globals = false;
  // The kernel profiler that can replay its programs for counters ("ncu": Nsight Compute); empty: none.
  std::string profiler;
  // Its compiler finishes a program only at the program's first launch (code for the launch's work-group size)
  // and builds one program at a time within a process (serial_compiler): each task's programs are built and
  // launched once in worker processes, one per core, before the task is measured (the warm pass, docs/design.md),
  // so that neither the compiles nor the first launch's code generation wait in line in the worker that measures.
  bool compiles_at_first_launch = false;
  // Its compiler builds one program at a time within a process however many threads call it: the compile pipeline
  // builds its programs in compile worker processes, one per compile thread (docs/design.md, "Compiling ahead").
  // Such a backend's precompile() reads only a plan's entry, defines and options, which is what a worker receives.
  bool serial_compiler = false;
  // False for a device read from a store written before the flags were kept (schema version 9), until a tuner
  // sees the device again: what it was is not known, and decisions by its flags are left out.
  bool known = true;

  // The flags as the store keeps them: the names of those set, space-separated ("none" when none is); the
  // text fields (check_source, profiler) are the backend's business and not kept.
  std::string stored() const {
    std::string s;
    for (const auto& [name, on] : flags()) s += on ? (s.empty() ? "" : " ") + std::string(name) : "";
    return s.empty() ? "none" : s;
  }
  // stored()'s text back; "" (a device row from before version 9) gives a device whose flags are not known.
  static DeviceCaps from_stored(const std::string& text) {
    DeviceCaps c;
    c.known = !text.empty();
    for (std::size_t at = 0; at < text.size();) {
      const std::size_t end = std::min(text.find(' ', at), text.size());
      const std::string name = text.substr(at, end - at);
      for (auto& [n, flag] : c.flag_refs())
        if (name == n) *flag = true;
      at = end + 1;
    }
    return c;
  }

 private:
  std::vector<std::pair<const char*, bool>> flags() const {
    return {{"host_cores", host_cores},
            {"distributed", distributed},
            {"program_globals", program_globals},
            {"compiles_at_first_launch", compiles_at_first_launch},
            {"serial_compiler", serial_compiler}};
  }
  std::vector<std::pair<const char*, bool*>> flag_refs() {
    return {{"host_cores", &host_cores},
            {"distributed", &distributed},
            {"program_globals", &program_globals},
            {"compiles_at_first_launch", &compiles_at_first_launch},
            {"serial_compiler", &serial_compiler}};
  }
};

struct DeviceInfo {
  std::string backend;   // the backend's registered name (its folder under tuner/backends/)
  int index = 0;         // position within the backend's device list
  std::string name;
  std::string vendor;
  std::string driver;    // driver or runtime version
  std::string platform;  // OpenCL platform, compiler for openmp, ...
  int compute_units = 0;
  std::uint64_t global_mem_bytes = 0;
  std::uint64_t local_mem_bytes = 0;
  std::int64_t max_work_group_size = 0;
  // Named limits constraints may use (max_work_group_size, local_mem_size, compute_units, ...).
  std::map<std::string, double> limits;
  DeviceCaps caps;

  std::string id() const { return backend + ":" + std::to_string(index); }
};

struct BackendStatus {
  bool available = false;
  std::string reason;  // why not, when unavailable
};

// A native call: the plan's work is a function of the backend's own, registered with that backend under
// `name` (a library baseline such as NPP, CUB or OpenCV, or a serial reference), instead of a kernel it
// compiles. `library` names the library and version the call is tied to ("OpenCV 4.6.0"; empty for
// code of this build), part of the stored identity.
struct NativeCall {
  std::string name;
  std::string library;
};

// A kernel source as the backend receives it, or a native call (text empty).
struct KernelSource {
  std::string path;  // relative to kernels/, for logs
  std::string text;
  std::string hash;  // hash of text (of the call's name and library for a native call)
  std::optional<NativeCall> native;  // set: run the backend's native function native->name
};

// The source of a native call: path "native:<name>", no text, and the hash its variant's rows were
// stored under when calls were named by "builtin:<name>" sources (the library's version added when it
// has one), so stored serial-reference rows keep their variant ids.
KernelSource native_source(const NativeCall& call);

// Bytes: a scalar of any type passed as its raw bytes (int8 .. double16 of a T1 kernel).
enum class ArgKind { Buffer, Image2D, Int, Float, Bytes };

struct KernelArg {
  ArgKind kind = ArgKind::Int;
  std::string buffer;  // Buffer/Image2D: the workload buffer name, or "out"
  std::int64_t i = 0;
  double f = 0;
  int image_width = 0, image_height = 0;  // Image2D: 1-byte texels, width x height
  std::vector<std::uint8_t> bytes;        // Bytes: the value as the kernel reads it

  static KernelArg buf(std::string name) {
    KernelArg a;
    a.kind = ArgKind::Buffer;
    a.buffer = std::move(name);
    return a;
  }
  static KernelArg integer(std::int64_t v) { KernelArg a; a.kind = ArgKind::Int; a.i = v; return a; }
  static KernelArg real(double v) { KernelArg a; a.kind = ArgKind::Float; a.f = v; return a; }
  static KernelArg raw(std::vector<std::uint8_t> b) {
    KernelArg a;
    a.kind = ArgKind::Bytes;
    a.bytes = std::move(b);
    return a;
  }
  static KernelArg image(std::string name, int w, int h) {
    KernelArg a;
    a.kind = ArgKind::Image2D;
    a.buffer = std::move(name);
    a.image_width = w;
    a.image_height = h;
    return a;
  }
};

// A further step of a plan, run after the plan's own kernel in every run: another kernel of the same
// program (entry, geometry, arguments), or, when `host` is set, a computation on the host that reads
// buffer `host_in` (downloaded) and writes buffer `host_out` (uploaded) — e.g. a CDF computed on the CPU
// between two kernels. A host step's time includes its two transfers.
struct LaunchStep {
  std::string entry;
  int dims = 1;
  std::array<std::size_t, 3> global{1, 1, 1};
  std::array<std::size_t, 3> local{0, 0, 0};
  std::vector<KernelArg> args;
  std::function<void(std::span<const std::uint8_t> in, std::span<std::uint8_t> out)> host;
  std::string host_in, host_out;
};

// A device buffer for intermediates (partial histograms, per-block maxima, ...). The evaluator
// allocates it once per configuration and poisons it before every run, like the output: kernels must
// initialise what they read, and a variant that relies on zeroed memory fails validation.
struct ScratchBuffer {
  std::string name;  // referenced by KernelArg::buf(name); must not clash with a workload input or "out"
  std::size_t bytes = 0;
};

// What a variant asks the backend to do for one configuration.
struct LaunchPlan {
  std::string entry;                                          // kernel / function name
  std::vector<std::pair<std::string, std::string>> defines;   // -DNAME=VALUE
  std::vector<std::string> options;                           // extra compiler options
  int dims = 2;
  std::array<std::size_t, 3> global{1, 1, 1};  // total work items (OpenCL sense)
  std::array<std::size_t, 3> local{0, 0, 0};   // work-group size; 0 = backend decides
  std::vector<KernelArg> args;
  std::vector<LaunchStep> steps;       // run after the first kernel, in order; empty for one-kernel plans
  std::vector<ScratchBuffer> scratch;  // intermediates the kernels share
  // CUDA: device symbols of the program (`__constant__ float d_filter[...]`) filled before every
  // launch from a buffer of the plan's arguments: {symbol, buffer}. Other backends refuse them.
  std::vector<std::pair<std::string, std::string>> symbols;
  std::size_t shared_bytes = 0;  // dynamic shared (CUDA) memory per block
  // Integer variables of the program (`extern "C" int NAME` of a host-compiled library), set before every launch:
  // knobs that need no program of their own (OpenMP's thread count and chunk size), so that configurations
  // differing only in them share one compiled program. A backend that cannot set them refuses the launch.
  std::vector<std::pair<std::string, std::int64_t>> globals;
};

class Program {
 public:
  virtual ~Program() = default;
};

struct CompileResult {
  std::shared_ptr<Program> program;  // null on failure
  std::string log;                   // build log (kept on success too)
  double ms = 0;                     // wall time of this call
  bool cached = false;               // served from the memory or disk cache
};

class DeviceBuffer {
 public:
  virtual ~DeviceBuffer() = default;
  virtual std::size_t size() const = 0;
};

struct LaunchResult {
  bool ok = false;
  std::string error;
  double kernel_ms = 0;  // device-side time (profiling events / host clock for CPU backends)
  // A backend's own measurements of the launch, in ms, by metric name (the MPI backend's communication time, the
  // part of kernel_ms its ranks spent exchanging data, for one): summed over a run's launches and stored per timed
  // run as metrics of that name (seq: the run), so a new one needs no schema, wire or store change.
  std::vector<std::pair<std::string, double>> parts;
};

// How a run's time is taken (docs/measurement.md). `cold`: the device's last-level cache is flushed
// before every run (a buffer larger than it is written), as NVBench does; hot runs follow each other
// with whatever the previous run left in the cache. `hide_launch`: the host's launch latency is kept out
// of the time (CUDA: every launch of the run queued behind a spinning kernel, then released at once);
// when false, events are recorded around each call as it is made ("call time").
struct TimingMethod {
  bool cold = true;
  bool hide_launch = true;
  bool operator==(const TimingMethod&) const = default;
};

// One run of a prepared plan: its 0-based number (warm-ups included) and the byte its outputs and scratch
// buffers were filled with before it (the executor alternates kPoisonValues: 0xA5, 0x5A).
struct RunSpec {
  std::int64_t seq = 0;
  std::uint8_t poison = 0xA5;
};

// An opened device. Not thread-safe; one evaluation at a time.
class Device {
 public:
  virtual ~Device() = default;
  virtual const DeviceInfo& info() const = 0;
  virtual CompileResult compile(const KernelSource& source, const LaunchPlan& plan) = 0;
  virtual std::shared_ptr<DeviceBuffer> alloc(std::size_t bytes) = 0;
  // A read-only 2-D image (texture) of 1-byte texels; backends without images throw.
  virtual std::shared_ptr<DeviceBuffer> alloc_image(int width, int height) = 0;
  virtual void upload(DeviceBuffer& dst, std::span<const std::uint8_t> src) = 0;
  virtual void download(const DeviceBuffer& src, std::span<std::uint8_t> dst) = 0;
  virtual void fill(DeviceBuffer& dst, std::uint8_t value) = 0;
  virtual LaunchResult launch(Program& program, const LaunchPlan& plan,
                              const std::map<std::string, DeviceBuffer*>& buffers) = 0;
  // The measurement's per-run timeout, told before the runs of a configuration. Backends whose
  // launches run in other processes (MPI) kill them past it; the others ignore it.
  virtual void set_run_timeout(double /*seconds*/) {}
  // Called before each run of a prepared plan, after its outputs and scratch buffers were filled with run.poison
  // and before prepare_launch() and begin_timing(): a backend whose own workers fill buffers of theirs (the MPI
  // ranks) poisons them with run.poison.
  virtual void begin_run(const RunSpec& /*run*/) {}

  // A timed region around every launch of one run: begin_timing() before the first step (it flushes
  // the cache when the method is cold, and where the backend can, holds the launches back so that their
  // latency is hidden), end_timing() after the last. A backend that times the region returns its time
  // from end_timing() and its launch() returns kernel_ms 0 inside it; one that does not returns nullopt
  // and the run's time is the sum of its launches' kernel_ms. end_timing() is called after every
  // begin_timing(), also when a launch failed. `region` is false for plans whose host steps need the
  // device's results in the middle of a run: the cache is still flushed, each launch timed alone.
  virtual void begin_timing(const TimingMethod& /*method*/, bool /*region*/) {}
  virtual std::optional<double> end_timing() { return std::nullopt; }
  // The name of the method this device uses for `method`, stored with every evaluation
  // ("cuda-events spin cold-l2", "host-clock cold-evict", ...).
  virtual std::string timing_method(const TimingMethod& method, bool region) const {
    return std::string("per-launch") + (method.cold ? " cold" : " hot") + (region ? "" : " host-steps");
  }
  // The method the last run was actually timed by, where it can differ from timing_method() (a CUDA
  // library call that synchronises inside cannot be held behind the spin); empty: timing_method()'s.
  virtual std::string last_timing() const { return ""; }
  // Work a program needs before each run but outside its timed region (a library's set-up); called
  // before begin_timing().
  virtual void prepare_launch(Program& /*program*/, const LaunchPlan& /*plan*/,
                              const std::map<std::string, DeviceBuffer*>& /*buffers*/) {}
  // Bytes [offset, offset + dst.size()) of a buffer (canary checks). The default downloads the whole
  // buffer; backends override it with a ranged copy.
  virtual void download_range(const DeviceBuffer& src, std::size_t offset, std::span<std::uint8_t> dst) {
    std::vector<std::uint8_t> all(src.size());
    download(src, all);
    if (offset + dst.size() > all.size()) throw std::runtime_error("download_range past the end of the buffer");
    std::copy(all.begin() + static_cast<std::ptrdiff_t>(offset),
              all.begin() + static_cast<std::ptrdiff_t>(offset + dst.size()), dst.begin());
  }
  // The milliseconds the last upload() or download() spent moving its bytes, where the backend times that
  // apart from host copies the call also made (CUDA's pinned staging buffer: the copy into it is not the
  // transfer); negative where the call's own wall time is the transfer. timed_upload/timed_download read it.
  virtual double last_transfer_ms() const { return -1; }
  // The API's own device-to-device copy of src into dst (the same size), enqueued like a launch (inside a
  // timed region when one is open); its time as a LaunchResult. ok = false where the backend has none.
  virtual LaunchResult copy_buffer(DeviceBuffer& /*dst*/, const DeviceBuffer& /*src*/) {
    return {false, "no native copy", 0, {}};
  }
};

// One upload or download (`transfer`, a call on `device`) and its time in ms: the backend's own transfer
// time where it has one (Device::last_transfer_ms), else the call's wall time.
template <class Transfer>
double timed_transfer(const Device& device, Transfer&& transfer) {
  const auto t0 = std::chrono::steady_clock::now();
  transfer();
  const double own = device.last_transfer_ms();
  return own >= 0 ? own : std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
inline double timed_upload(Device& device, DeviceBuffer& dst, std::span<const std::uint8_t> src) {
  return timed_transfer(device, [&] { device.upload(dst, src); });
}
inline double timed_download(Device& device, const DeviceBuffer& src, std::span<std::uint8_t> dst) {
  return timed_transfer(device, [&] { device.download(src, dst); });
}

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  virtual BackendStatus status() const = 0;
  virtual std::vector<DeviceInfo> devices() const = 0;  // empty when unavailable
  virtual std::unique_ptr<Device> open(const DeviceInfo& info) const = 0;
  // A kernel source and plan that copies `bytes` from buffer "in" to "out", to measure the
  // device's bandwidth ceiling; nullopt when the backend has none. `more`: further plans of the same
  // source (other entries or geometries) that the backend's fastest copy may need.
  struct CopyKernel {
    KernelSource source;
    LaunchPlan plan;
    std::vector<LaunchPlan> more;
  };
  virtual std::optional<CopyKernel> copy_kernel(std::size_t bytes) const = 0;
  // A kernel source and plans that read `bytes` (a multiple of 16) of buffer "in" once and write partial sums
  // (modulo 2^32) of its 32-bit words to "out", one 32-bit word each from its start, which add up to the input's
  // sum: the device's read ceiling for kernels that read far more than they write; nullopt when the backend has
  // none (such a kernel's share is then against the copy ceiling).
  virtual std::optional<CopyKernel> read_kernel(std::size_t /*bytes*/) const { return std::nullopt; }

  // The native calls (NativeCall::name) this backend runs, each registered by one line in the backend's
  // own table (the host backend: Registry::add_host_function; CUDA: cuda_library.cpp); none by default.
  virtual std::vector<std::string> native_calls() const { return {}; }

  // Compiles the plans of one kernel source for a device into the disk cache, on up to `threads`
  // threads and without opening the device, so that the evaluations that follow load their programs
  // instead of compiling them one after the other. Returns how many were compiled (0 where the
  // backend has no such pass or everything was cached). Failures are left for compile() to report.
  virtual std::size_t precompile(const DeviceInfo&, const KernelSource&, const std::vector<LaunchPlan>&,
                                 int /*threads*/) const {
    return 0;
  }
  virtual bool precompiles() const { return false; }  // true where precompile() does something
};

}  // namespace pimg
