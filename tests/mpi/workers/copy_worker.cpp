// A test worker for the MPI backend (tests/mpi/mpi_poison_test.cpp): conv with the 1x1 identity filter, so
// every output pixel's correct value is its input pixel. Each rank copies its share of the image's bytes, then
// one MPI_Gatherv to rank 0, through mpi_serve.hpp's protocol like the real workers. Built twice
// (tests/CMakeLists.txt): pimg-test-mpi-copy, correct, and pimg-test-mpi-skip-a5 (PIMG_SKIP_A5), whose last
// rank leaves every pixel whose correct value is 0xA5 unwritten: right while the run's poison is 0xA5,
// caught on a run poisoned with 0x5A, provided the run's poison reaches the ranks.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "mpi_serve.hpp"

#ifndef PIMG_SKIP_A5
#define PIMG_SKIP_A5 0
#endif

namespace {

using pimg::mpi::PlanFile;
using pimg::mpi::RunTimes;

class CopyJob {
 public:
  explicit CopyJob(const PlanFile& plan) {
    const pimg::mpi::Ranks r = pimg::mpi::read_ranks(plan, {"scatter", "halo", "owned"});
    rank_ = r.rank;
    ranks_ = r.ranks;
    if (plan.ints.size() != 4 || plan.buffers.size() != 3 || plan.buffers[0] != "in" || plan.buffers[1] != "out")
      throw std::runtime_error("plan arguments must be conv's: buffers in, out, weights and four ints");
    if (plan.int_define("PIMG_K") != 1 || plan.int_define("PIMG_DIVISOR") != 1 || plan.ints[0] != plan.ints[2] ||
        plan.ints[1] != plan.ints[3])
      throw std::runtime_error("this test worker copies: it needs conv's 1x1 filter [[1]] with divisor 1");
    const long bytes = plan.ints[0] * plan.ints[1] * plan.int_define("PIMG_CHANNELS");
    for (int i = 0; i <= ranks_; ++i) displs_.push_back(static_cast<int>(bytes * i / ranks_));
    for (int i = 0; i < ranks_; ++i) counts_.push_back(displs_[i + 1] - displs_[i]);
    in_.resize(static_cast<std::size_t>(counts_[rank_]));
    out_local_.resize(in_.size());
    if (rank_ == 0) out_.resize(static_cast<std::size_t>(bytes));
    FILE* f = std::fopen(plan.path("in").c_str(), "rb");
    const bool ok = f && std::fseek(f, displs_[rank_], SEEK_SET) == 0 &&
                    std::fread(in_.data(), 1, in_.size(), f) == in_.size();
    if (f) std::fclose(f);
    if (!ok) throw std::runtime_error("cannot read this rank's part of " + plan.path("in"));
  }

  void poison(std::uint8_t value) {
    std::fill(out_local_.begin(), out_local_.end(), value);
    std::fill(out_.begin(), out_.end(), value);
  }

  RunTimes run() {
    RunTimes t;
    pimg::mpi::Laps laps;
    const bool skip = PIMG_SKIP_A5 && rank_ == ranks_ - 1;
    for (std::size_t i = 0; i < in_.size(); ++i)
      if (!skip || in_[i] != 0xA5) out_local_[i] = in_[i];
    laps.lap(t.comp);
    MPI_Gatherv(out_local_.data(), counts_[rank_], MPI_UINT8_T, out_.data(), counts_.data(), displs_.data(),
                MPI_UINT8_T, 0, MPI_COMM_WORLD);
    laps.lap(t.comm);
    t.total = laps.total();
    return t;
  }

  const std::vector<std::uint8_t>& output() const { return out_; }

 private:
  int rank_ = 0, ranks_ = 1;
  std::vector<int> counts_, displs_;
  std::vector<std::uint8_t> in_, out_local_, out_;
};

}  // namespace

int main(int argc, char** argv) {
  return pimg::mpi::serve(argc, argv, [](const PlanFile& plan) {
    auto job = std::make_shared<CopyJob>(plan);
    return pimg::mpi::Job{[job](std::uint8_t value) { job->poison(value); }, [job] { return job->run(); },
                          [job]() -> const std::vector<std::uint8_t>& { return job->output(); }};
  });
}
