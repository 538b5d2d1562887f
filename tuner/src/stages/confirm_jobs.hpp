// The confirmation stage of one device as one job per problem (confirm_runner.cpp), for the distributed runner
// (docs/mpi.md): rank 0 chooses each problem's candidates from its store as confirm_device does, hands each
// problem's job (all its sessions and its widened round, so its candidates are compared on one device) to a rank
// driving a device of that kind, and stores what the jobs return as confirm_device stores it.
#pragma once
#include <cstddef>
#include <memory>

#include "run/tuner_impl.hpp"
#include "workers/wire.hpp"

namespace pimg {

class ConfirmStage {
 public:
  // The problems to confirm on `device` (a problem whose stored confirmation decides it is said and left out).
  ConfirmStage(const Tuner::Impl& m, std::size_t device, Store& store, RunObserver& obs);
  ~ConfirmStage();
  std::size_t size() const;
  const Problem& problem(std::size_t i) const;
  // What a rank needs to confirm the i-th problem (confirm_problems reads a count of them, then each).
  wire::Message job(std::size_t i) const;
  // The i-th problem's answer (its fields of confirm_problems', from field `at` on; `at` moves past them).
  void take(std::size_t i, const wire::Message& answer, std::size_t& at);
  // Every problem's candidates pooled over their sessions and stored, as confirm_device stores them.
  void store(Store& store, TuneSummary& summary, RunObserver& obs) const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// On the rank handed `job` (a count of problems, then each one's ConfirmStage::job, from field `at` on): the
// problems' sessions and widened rounds, as confirm_device runs them (every session confirms every problem of the
// job), on `session`, a session on the selected device `device` (of the job's kind; replaced by a fresh one for
// each session after the first). Returns, per problem in the job's order, the fields ConfirmStage::take reads.
wire::Message confirm_problems(const Tuner::Impl& m, const wire::Message& job, std::size_t at, std::size_t device,
                               std::unique_ptr<DeviceSession>& session, RunObserver& obs);
// The selected device a confirmation job was made for (its kind's, in the job's first field from `at`).
std::size_t confirm_job_device(const wire::Message& job, std::size_t at);

}  // namespace pimg
