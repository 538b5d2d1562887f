// The semblance family across MPI processes: the worker program pimg-mpi-semblance, built once at
// build time (MPI, OpenMP inside each rank) and started by the mpi backend under `mpirun -np RANKS`.
// Every rank reads the traces, their geometry and the grid's axes from the backend's input files at
// set-up (outside every timed region; they stay resident between runs, like device memory), and
// computes its share of the grid's points with THREADS OpenMP threads. SCHEME says how the points
// are shared out and what reaches rank 0:
//   blocks  contiguous blocks of points (sizes differ by at most one); MPI_Gatherv of every point's
//           semblance and stack to rank 0 (the family's GRID output)
//   cyclic  point i on rank i % RANKS (interleaved, so the cheap and dear parts of the grid are
//           shared evenly); rank 0 receives each rank's values straight into place through a
//           strided datatype (GRID output)
//   best    cyclic split and no gather: only the best point travels (BEST output)
// Every scheme finds the best point with MPI_Allreduce(MPI_DOUBLE_INT, MPI_MAXLOC) (the lowest
// index on ties, the family's "first in grid order"); after a run that gathered the grid, rank 0
// checks that the reduced best is the first maximum of the gathered values and fails the run if not.
// The arithmetic is semblance_core.h's, the rule the reference and every other variant follow.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "mpi_serve.hpp"
#include "semblance/semblance_core.h"
#include "semblance/mpi/native/semblance_mpi_parts.h"

namespace {

using pimg::mpi::PlanFile;
using pimg::mpi::RunTimes;
using pimg::mpi::ValueIndex;

constexpr int kMaxWindow = 64;
constexpr int kHeaderBytes = pimg::mpi::kSembHeaderBytes;

// The plan's problem and its inputs, resident between runs.
struct Semb : pimg::mpi::SembPlan {
  std::vector<float> samples, geom, axes;
};

Semb semb_of(const PlanFile& plan) {
  if (plan.buffers != std::vector<std::string>{"samples", "geom", "axes", "out"})
    throw std::runtime_error("plan arguments must be buffers samples, geom, axes, out and reals t0, m0, h0, idt");
  Semb s;
  static_cast<pimg::mpi::SembPlan&>(s) = pimg::mpi::semb_plan(plan);
  if (s.w > kMaxWindow) throw std::runtime_error("the window is wider than " + std::to_string(kMaxWindow) + " samples");
  using pimg::mpi::read_input;
  s.samples = read_input<float>(plan, "samples", static_cast<std::size_t>(s.ntr) * s.ns);
  s.geom = read_input<float>(plan, "geom", static_cast<std::size_t>(s.ntr) * SEMB_GEOM_STRIDE);
  s.axes = read_input<float>(plan, "axes", static_cast<std::size_t>(s.axis_values));
  return s;
}

// Grid point `index` (A slowest, E fastest): its semblance and stack, by the reference's loop.
void point(const Semb& s, long index, float* sem, float* stk) {
  int i[5];
  for (int d = 4; d >= 0; --d) {
    i[d] = static_cast<int>(index % s.n[d]);
    index /= s.n[d];
  }
  const float* ax = s.axes.data();
  const float A = ax[i[0]], B = ax[s.n[0] + i[1]], C = ax[s.n[0] + s.n[1] + i[2]];
  const float D = ax[s.n[0] + s.n[1] + s.n[2] + i[3]], E = ax[s.n[0] + s.n[1] + s.n[2] + s.n[3] + i[4]];
  float num[kMaxWindow] = {}, den[kMaxWindow] = {};
  float stack = 0;
  int m = 0;
  for (int t = 0; t < s.ntr; ++t) {
    const float* g = s.geom.data() + static_cast<long>(t) * SEMB_GEOM_STRIDE;
    const semb_geom geo{g[0], g[1], g[2], g[3], g[4]};
    const float x = semb_position(semb_quadratic(A, B, C, D, s.t0, geo), E, s.idt, geo);
    if (!semb_inside(x, s.tau, s.ns)) continue;
    const int it = static_cast<int>(x);
    const float* tr = s.samples.data() + static_cast<long>(t) * s.ns;
    for (int j = 0; j < s.w; ++j) {
      const int k = it - s.tau + j;
      const float v = semb_interp_seed(tr[k], tr[k + 1], x, j, s.tau, k);
      num[j] += v;
      den[j] += v * v;
      stack += v;
    }
    ++m;
  }
  float sn = 0, sd = 0;
  for (int j = 0; j < s.w; ++j) {
    sn += num[j] * num[j];
    sd += den[j];
  }
  *sem = semb_finish(sn, sd, m, s.ntr);
  *stk = semb_stack(stack, m, s.w, s.ntr);
}

class SembJob {
 public:
  SembJob(const PlanFile& plan, Semb semb)
      : s_(std::move(semb)), r_(pimg::mpi::read_ranks(plan, {"blocks", "cyclic", "best"})) {
    rank_ = r_.rank;
    ranks_ = r_.ranks;
    scheme_ = r_.scheme;
    if (ranks_ > s_.points)
      throw std::runtime_error(std::to_string(ranks_) + " ranks leave a rank without grid points (" +
                               std::to_string(s_.points) + " points)");
    cyclic_ = scheme_ != "blocks";
    for (int r = 0; r < ranks_; ++r) {
      first_.push_back(cyclic_ ? r : static_cast<long>(static_cast<long long>(r) * s_.points / ranks_));
      count_.push_back(cyclic_ ? (s_.points - r + ranks_ - 1) / ranks_
                               : static_cast<long>(static_cast<long long>(r + 1) * s_.points / ranks_) - first_[r]);
    }
    sem_.resize(static_cast<std::size_t>(count_[rank_]));
    stk_.resize(sem_.size());
    if (rank_ == 0) out_.resize(kHeaderBytes + 8 * static_cast<std::size_t>(s_.points));
  }

  void poison(std::uint8_t value) {
    for (auto* v : {&sem_, &stk_})
      std::fill_n(reinterpret_cast<std::uint8_t*>(v->data()), v->size() * sizeof(float), value);
    std::fill(out_.begin(), out_.end(), value);
    best_ = {-1.0, -1};
  }

  RunTimes run() {
    RunTimes t;
    pimg::mpi::Laps laps;
    compute();
    // This rank's first maximum, in grid order (its points are in increasing grid order).
    ValueIndex mine{-1.0, -1};
    for (long k = 0; k < count_[rank_]; ++k)
      if (sem_[k] > mine.value) mine = {sem_[k], static_cast<int>(global(rank_, k))};
    laps.lap(t.comp);
    MPI_Allreduce(&mine, &best_, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    if (scheme_ == "blocks")
      gather_blocks();
    else if (scheme_ == "cyclic")
      gather_cyclic();
    else
      send_best();
    laps.lap(t.comm);
    t.total = laps.total();
    return t;
  }

  // Rank 0, after a run that gathered the grid: the reduced best must be the gathered values' first
  // maximum. Empty when it is.
  std::string check() const {
    return scheme_ == "best" ? std::string() : pimg::mpi::semb_check_first_max(best_, out_.data(), s_.points);
  }

  const std::vector<std::uint8_t>& output() const { return out_; }

 private:
  long global(int rank, long k) const { return cyclic_ ? rank + k * ranks_ : first_[rank] + k; }

  float* grid(int array) { return reinterpret_cast<float*>(out_.data() + kHeaderBytes) + array * s_.points; }

  void compute() {
    const long n = count_[rank_];
#pragma omp parallel for schedule(dynamic, 16) num_threads(r_.threads)
    for (long k = 0; k < n; ++k) point(s_, global(rank_, k), &sem_[k], &stk_[k]);
  }

  void header(std::int32_t tag, float stack) { pimg::mpi::semb_header(out_.data(), tag, best_, stack); }

  // Contiguous blocks: one MPI_Gatherv per array, straight into rank 0's output.
  void gather_blocks() {
    const float* mine[2] = {sem_.data(), stk_.data()};
    float* grids[2] = {rank_ == 0 ? grid(0) : nullptr, rank_ == 0 ? grid(1) : nullptr};
    pimg::mpi::semb_gather_blocks(mine, first_, count_, rank_, grids);
    if (rank_ == 0) header(SEMB_TAG_GRID, grid(1)[best_.index]);
  }

  // Interleaved points: rank 0 receives rank r's values into every RANKS-th float from point r (a
  // strided datatype, so MPI places them; no unpacking pass), every rank sends its values contiguously.
  void gather_cyclic() {
    const float* mine[2] = {sem_.data(), stk_.data()};
    float* grids[2] = {rank_ == 0 ? grid(0) : nullptr, rank_ == 0 ? grid(1) : nullptr};
    pimg::mpi::semb_gather_interleaved(mine, count_, 1, rank_, grids);
    if (rank_ == 0) header(SEMB_TAG_GRID, grid(1)[best_.index]);
  }

  // Only the best point: its owner sends its stack to rank 0 (every rank knows the owner from the
  // Allreduce), which writes the BEST header.
  void send_best() {
    const int owner = best_.index % ranks_;
    float stack = 0;
    if (rank_ == owner) stack = stk_[best_.index / ranks_];
    if (owner != 0 && rank_ == owner) MPI_Send(&stack, 1, MPI_FLOAT, 0, 2, MPI_COMM_WORLD);
    if (owner != 0 && rank_ == 0) MPI_Recv(&stack, 1, MPI_FLOAT, owner, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank_ == 0) header(SEMB_TAG_BEST, stack);
  }

  Semb s_;
  pimg::mpi::Ranks r_;
  int rank_ = 0, ranks_ = 1;
  std::string scheme_;
  bool cyclic_ = false;
  std::vector<long> first_, count_;  // per rank: first point (blocks) or rank (cyclic), point count
  std::vector<float> sem_, stk_;     // this rank's points, in increasing grid order
  std::vector<std::uint8_t> out_;    // rank 0: the family's output
  ValueIndex best_{-1.0, -1};
};

}  // namespace

int main(int argc, char** argv) {
  return pimg::mpi::serve(argc, argv, [](const PlanFile& plan) {
    auto job = std::make_shared<SembJob>(plan, semb_of(plan));
    pimg::mpi::Job j{[job](std::uint8_t value) { job->poison(value); }, [job] { return job->run(); },
                     [job]() -> const std::vector<std::uint8_t>& { return job->output(); }};
    j.check = [job] { return job->check(); };
    return j;
  });
}
