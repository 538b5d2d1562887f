// The semblance family across MPI processes with one GPU per rank: the worker program
// pimg-mpi-semblance-cuda, built once at build time where CMake finds MPI and the CUDA toolkit, and
// started by the mpi backend under `mpirun -np RANKS`. It is the semblance search of semblance.cu
// (the variant's source, which the backend hands over as text beside the plan) run by every rank on
// its own GPU: rank r uses the host's CUDA device (local rank % devices), so ranks spread over the
// GPUs of a host and share them when there are more ranks than GPUs.
//
// The ranks share out the grid's A values (the slowest axis) in slabs of B x C x D x E points; a
// rank's part of the grid is itself a grid (its A values, every B..E), so each rank compiles the
// family's own kernel for its sub-grid with NVRTC (through the CUDA backend, cubins cached on disk)
// at set-up, with the configuration's knobs. SCHEME says how the slabs are shared out and what
// reaches rank 0:
//   blocks  contiguous runs of A values; each rank downloads its points' semblance and stack and
//           MPI_Gatherv puts them in place on rank 0 (the family's GRID output)
//   cyclic  A value a on rank a % RANKS (the dear and cheap parts of the grid shared evenly); rank 0
//           receives each rank's slabs in place through a strided datatype (GRID output)
//   best    cyclic slabs, and the kernel reduces to the rank's best point on the GPU (semb_argmax_final);
//           only that point travels (BEST output)
// The best point overall is MPI_Allreduce(MPI_DOUBLE_INT, MPI_MAXLOC) of the ranks' first maxima
// (the lowest index on ties, the family's "first in grid order"); after a run that gathered the grid,
// rank 0 checks it is the gathered values' first maximum. Times per run: comp is the kernels (and the
// host's scan for the rank's maximum in the gathering schemes), comm the downloads from the GPU, the
// reduction and the gathers.
//
// `pimg-mpi-semblance-cuda --gpus` prints "gpus N" and a "gpu NAME" line per CUDA device, without MPI:
// the mpi backend asks it once, to tell variants and the store what GPUs are behind the ranks.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cuda_backend.hpp"
#include "mpi_serve.hpp"
#include "pimg/backend.hpp"
#include "pimg/config.hpp"
#include "pimg/evaluator.hpp"
#include "semblance/semblance_core.h"
#include "semblance/mpi/native/semblance_mpi_parts.h"
#include "semblance/semblance_variants.hpp"

namespace {

using pimg::mpi::PlanFile;
using pimg::mpi::RunTimes;
using pimg::mpi::ValueIndex;
using pimg::semblance::DeviceApi;

constexpr int kHeaderBytes = pimg::mpi::kSembHeaderBytes;

int gpus_command() {
  const std::unique_ptr<pimg::Backend> cuda = pimg::make_cuda_backend();
  const std::vector<pimg::DeviceInfo> devices = cuda->status().available ? cuda->devices() : std::vector<pimg::DeviceInfo>{};
  std::printf("gpus %zu\n", devices.size());
  for (const auto& d : devices) std::printf("gpu %s\n", d.name.c_str());
  return 0;
}

// This rank's place among the ranks of its host (the GPU it takes).
int local_rank() {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int r = 0;
  MPI_Comm_rank(node, &r);
  MPI_Comm_free(&node);
  return r;
}

class GpuJob {
 public:
  explicit GpuJob(const PlanFile& plan) : r_(pimg::mpi::read_ranks(plan, {"blocks", "cyclic", "best"})) {
    if (plan.buffers != std::vector<std::string>{"samples", "geom", "hdr", "axes", "out"})
      throw std::runtime_error("plan arguments must be buffers samples, geom, hdr, axes, out and reals t0, m0, h0, idt");
    argmax_ = r_.scheme == "best";
    cyclic_ = r_.scheme != "blocks";
    p_ = pimg::mpi::semb_plan(plan);
    slab_ = p_.points / p_.n[0];
    if (r_.ranks > p_.n[0])
      throw std::runtime_error(std::to_string(r_.ranks) + " ranks leave a rank without A values (the grid has " +
                               std::to_string(p_.n[0]) + ")");
    for (int r = 0; r < r_.ranks; ++r) {
      std::vector<int> a;
      if (cyclic_)
        for (int v = r; v < p_.n[0]; v += r_.ranks) a.push_back(v);
      else
        for (int v = r * p_.n[0] / r_.ranks; v < (r + 1) * p_.n[0] / r_.ranks; ++v) a.push_back(v);
      slabs_.push_back(std::move(a));
    }
    mine_ = slabs_[r_.rank];
    open_gpu();
    build(plan);
    if (r_.rank == 0) out_.resize(kHeaderBytes + 8 * static_cast<std::size_t>(p_.points));
  }

  void poison(std::uint8_t value) {
    dev_->fill(*out_dev_, value);
    for (auto& [name, buf] : scratch_) dev_->fill(*buf, value);
    std::fill(sub_out_.begin(), sub_out_.end(), value);
    std::fill(out_.begin(), out_.end(), value);
    best_ = {-1.0, -1};
    error_.clear();
  }

  RunTimes run() {
    RunTimes t;
    pimg::mpi::Laps laps;
    for (auto& [plan, program] : kernels_) {
      const pimg::LaunchResult l = dev_->launch(*program, plan, args_);
      if (!l.ok) {
        error_ = "rank " + std::to_string(r_.rank) + ": " + plan.entry + ": " + l.error;
        break;
      }
    }
    laps.lap(t.comp);
    ValueIndex mine{-1.0, -1};
    float mine_stack = 0;
    if (error_.empty()) {
      // Only the header after the arg-max kernels; the rank's whole sub-grid otherwise.
      dev_->download(*out_dev_, std::span<std::uint8_t>(sub_out_.data(), argmax_ ? kHeaderBytes : sub_out_.size()));
      laps.lap(t.comm);
      if (argmax_) {
        std::int32_t words[SEMB_HEADER_FLOATS];
        std::memcpy(words, sub_out_.data(), sizeof words);
        float sem = 0;
        std::memcpy(&sem, &words[2], 4);
        std::memcpy(&mine_stack, &words[3], 4);
        if (words[0] != SEMB_TAG_BEST || words[1] < 0 || words[1] >= sub_points())
          error_ = "rank " + std::to_string(r_.rank) + ": the arg-max kernels wrote no best point";
        else
          mine = {sem, global(words[1])};
      } else {
        // This rank's first maximum; its points are in increasing grid order.
        const float* sem = sub_grid(0);
        for (long k = 0; k < sub_points(); ++k)
          if (sem[k] > mine.value) mine = {sem[k], global(k)};
      }
      laps.lap(t.comp);
    }
    // Every rank learns whether any failed, so all skip the collectives that follow together.
    int failed = error_.empty() ? 0 : 1, any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any) {
      collect_errors();
    } else {
      MPI_Allreduce(&mine, &best_, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
      if (argmax_)
        send_best(mine_stack);
      else
        gather(cyclic_);
    }
    laps.lap(t.comm);
    t.total = laps.total();
    return t;
  }

  // Rank 0, after a run: a rank's failure, or (after a gather) a reduced best that is not the
  // gathered values' first maximum. Empty when the run is sound.
  std::string check() const {
    if (!error_.empty()) return error_;
    return r_.scheme == "best" ? std::string() : pimg::mpi::semb_check_first_max(best_, out_.data(), p_.points);
  }

  const std::vector<std::uint8_t>& output() const { return out_; }

 private:
  void open_gpu() {
    backend_ = pimg::make_cuda_backend();
    if (const auto st = backend_->status(); !st.available)
      throw std::runtime_error("rank " + std::to_string(r_.rank) + ": CUDA unavailable: " + st.reason);
    const auto devices = backend_->devices();
    if (devices.empty()) throw std::runtime_error("rank " + std::to_string(r_.rank) + ": no CUDA device");
    gpu_ = devices[static_cast<std::size_t>(local_rank()) % devices.size()];
    dev_ = backend_->open(gpu_);
  }

  long sub_points() const { return static_cast<long>(mine_.size()) * slab_; }
  int global(long k) const { return static_cast<int>(mine_[k / slab_] * slab_ + k % slab_); }
  const float* sub_grid(int array) const {
    return reinterpret_cast<const float*>(sub_out_.data() + kHeaderBytes) + array * sub_points();
  }
  float* grid(int array) { return reinterpret_cast<float*>(out_.data() + kHeaderBytes) + array * p_.points; }

  // The rank's sub-grid as a problem of its own: the family's workload with this rank's A values,
  // the device plan of semblance.cu for it, compiled, and its inputs on the GPU.
  void build(const PlanFile& plan) {
    pimg::semblance::SembSpec s;
    s.traces = p_.ntr;
    s.ns = p_.ns;
    s.tau = p_.tau;
    s.w = p_.w;
    s.t0 = p_.t0;
    s.m0 = p_.m0;
    s.h0 = p_.h0;
    s.idt = p_.idt;
    for (int d = 0; d < 5; ++d) s.n[d] = p_.n[d];
    s.n[0] = static_cast<int>(mine_.size());

    using pimg::mpi::read_input;
    const std::size_t traces = static_cast<std::size_t>(p_.ntr);
    pimg::Workload w;
    w.inputs.push_back({"samples", read_input<std::uint8_t>(plan, "samples", traces * p_.ns * 4)});
    w.inputs.push_back({"geom", read_input<std::uint8_t>(plan, "geom", traces * SEMB_GEOM_STRIDE * 4)});
    w.inputs.push_back({"hdr", read_input<std::uint8_t>(plan, "hdr", traces * SEMB_HDR_STRIDE * 4)});
    const auto axes = read_input<std::uint8_t>(plan, "axes", static_cast<std::size_t>(p_.axis_values) * 4);
    std::vector<std::uint8_t> sub_axes;  // this rank's A values, then every B..E value
    for (int a : mine_) sub_axes.insert(sub_axes.end(), axes.begin() + 4 * a, axes.begin() + 4 * a + 4);
    sub_axes.insert(sub_axes.end(), axes.begin() + 4 * p_.n[0], axes.end());
    w.inputs.push_back({"axes", std::move(sub_axes)});
    for (const char* name : {"PIMG_NTR", "PIMG_NS", "PIMG_TAU", "PIMG_W", "PIMG_NB", "PIMG_NC", "PIMG_ND", "PIMG_NE"})
      w.defines[name] = plan.define(name);
    w.defines["PIMG_NA"] = std::to_string(s.n[0]);
    w.output_bytes = kHeaderBytes + 8 * static_cast<std::size_t>(sub_points());

    const std::string where = "rank " + std::to_string(r_.rank) + " (" + gpu_.id() + ", " + gpu_.name + "): ";
    const pimg::semblance::DeviceKnobs k = pimg::semblance::knobs_from_defines(plan.defines, DeviceApi::cuda);
    try {
      plan_ = pimg::semblance::device_plan(s, w, k, gpu_, DeviceApi::cuda, argmax_);
    } catch (const pimg::PlanError& e) {
      throw std::runtime_error(where + e.what());
    }
    pimg::KernelSource src;
    src.path = plan.source;
    src.text = std::string(std::istreambuf_iterator<char>(std::ifstream(plan.dir + "/source.txt", std::ios::binary).rdbuf()),
                           std::istreambuf_iterator<char>());
    if (src.text.empty()) throw std::runtime_error("no kernel source in " + plan.dir + "/source.txt");
    src.hash = pimg::hash128(src.text);
    // The search kernel, then its steps (scheme best: semb_argmax_final), each compiled like a plan.
    std::vector<pimg::LaunchPlan> plans{plan_};
    for (const pimg::LaunchStep& step : plan_.steps) plans.push_back(pimg::step_plan(plan_, step));
    for (const pimg::LaunchPlan& p : plans) {
      const pimg::CompileResult c = dev_->compile(src, p);
      if (!c.program) throw std::runtime_error(where + "compiling " + src.path + " (" + p.entry + "): " + c.log);
      kernels_.push_back({p, c.program});
    }

    for (const auto& in : w.inputs) {
      auto buf = dev_->alloc(in.bytes.size());
      dev_->upload(*buf, in.bytes);
      args_[in.name] = buf.get();
      inputs_.push_back(std::move(buf));
    }
    for (const auto& sc : plan_.scratch) {
      scratch_[sc.name] = dev_->alloc(sc.bytes);
      args_[sc.name] = scratch_[sc.name].get();
    }
    out_dev_ = dev_->alloc(argmax_ ? kHeaderBytes : w.output_bytes);
    args_["out"] = out_dev_.get();
    sub_out_.resize(argmax_ ? kHeaderBytes : w.output_bytes);
  }

  // Some rank failed: rank 0 collects every rank's message (256 bytes each) into error_.
  void collect_errors() {
    char mine[256] = {};
    std::snprintf(mine, sizeof mine, "%s", error_.c_str());
    std::vector<char> all(r_.rank == 0 ? 256 * static_cast<std::size_t>(r_.ranks) : 0);
    MPI_Gather(mine, 256, MPI_CHAR, all.data(), 256, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (r_.rank != 0) return;
    error_.clear();
    for (int r = 0; r < r_.ranks; ++r)
      if (all[256 * r]) error_ += (error_.empty() ? "" : "; ") + std::string(&all[256 * r], strnlen(&all[256 * r], 256));
  }

  void header(std::int32_t tag, float stack) { pimg::mpi::semb_header(out_.data(), tag, best_, stack); }

  // Rank 0's output arrays (null elsewhere) and this rank's downloaded ones.
  void gather(bool interleaved) {
    const float* mine[2] = {sub_grid(0), sub_grid(1)};
    float* grids[2] = {r_.rank == 0 ? grid(0) : nullptr, r_.rank == 0 ? grid(1) : nullptr};
    std::vector<long> firsts, counts;
    for (const auto& a : slabs_) {
      firsts.push_back(a.front() * slab_);
      counts.push_back(static_cast<long>(a.size()) * (interleaved ? 1 : slab_));
    }
    // blocks: contiguous runs of A values; cyclic: slab a of rank a % RANKS, placed by a strided datatype.
    if (interleaved)
      pimg::mpi::semb_gather_interleaved(mine, counts, slab_, r_.rank, grids);
    else
      pimg::mpi::semb_gather_blocks(mine, firsts, counts, r_.rank, grids);
    if (r_.rank == 0) header(SEMB_TAG_GRID, grid(1)[best_.index]);
  }

  // Only the best point: its owner (every rank knows it from the Allreduce) sends its stack to rank 0.
  void send_best(float mine_stack) {
    const int owner = static_cast<int>((best_.index / slab_) % r_.ranks);
    float stack = mine_stack;
    if (owner != 0 && r_.rank == owner) MPI_Send(&stack, 1, MPI_FLOAT, 0, 2, MPI_COMM_WORLD);
    if (owner != 0 && r_.rank == 0) MPI_Recv(&stack, 1, MPI_FLOAT, owner, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (r_.rank == 0) header(SEMB_TAG_BEST, stack);
  }

  pimg::mpi::Ranks r_;
  bool argmax_ = false, cyclic_ = false;
  pimg::mpi::SembPlan p_;  // the whole grid's problem
  long slab_ = 1;           // points per A value
  std::vector<std::vector<int>> slabs_;  // per rank: its A values, increasing
  std::vector<int> mine_;
  std::unique_ptr<pimg::Backend> backend_;
  pimg::DeviceInfo gpu_;
  std::unique_ptr<pimg::Device> dev_;
  pimg::LaunchPlan plan_;
  std::vector<std::pair<pimg::LaunchPlan, std::shared_ptr<pimg::Program>>> kernels_;  // in run order
  std::vector<std::shared_ptr<pimg::DeviceBuffer>> inputs_;
  std::map<std::string, std::shared_ptr<pimg::DeviceBuffer>> scratch_;
  std::shared_ptr<pimg::DeviceBuffer> out_dev_;
  std::map<std::string, pimg::DeviceBuffer*> args_;
  std::vector<std::uint8_t> sub_out_;  // the rank's sub-grid (or header) from its GPU
  std::vector<std::uint8_t> out_;      // rank 0: the family's output
  ValueIndex best_{-1.0, -1};
  std::string error_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--gpus") == 0) return gpus_command();
  return pimg::mpi::serve(argc, argv, [](const PlanFile& plan) {
    auto job = std::make_shared<GpuJob>(plan);
    pimg::mpi::Job j{[job](std::uint8_t value) { job->poison(value); }, [job] { return job->run(); },
                     [job]() -> const std::vector<std::uint8_t>& { return job->output(); }};
    j.check = [job] { return job->check(); };
    return j;
  });
}
