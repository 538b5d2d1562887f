// A device kind's stages after its search in a distributed run (distributed_runner.cpp, docs/mpi.md): the
// confirmation, then the whole-program (cold) runs, each a list of jobs for the ranks that drive that kind: which
// are still to hand out and which are running on which slot. The coordinator decides when and to whom a job goes;
// this keeps the jobs, stores what they return and moves the stages on.
#pragma once
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "run/tuner_impl.hpp"
#include "stages/cold_jobs.hpp"
#include "stages/confirm_jobs.hpp"
#include "workers/wire.hpp"

namespace pimg {

class KindStages {
 public:
  // The stages of the kind whose first task is `pos` (an index into the layout's tasks) on selected device `device`.
  KindStages(std::size_t pos, std::size_t device) : pos_(pos), device_(device) {}
  std::size_t pos() const { return pos_; }
  bool begun() const { return phase_ != 0; }
  bool running() const { return phase_ == 1 || phase_ == 2; }
  bool done() const { return phase_ == 3; }
  bool whole_programs() const { return phase_ == 2; }
  bool waiting() const { return !todo_.empty(); }  // a job of the phase running is still to hand out

  // Moves on once every job of the phase running is back: not begun -> the confirmation (its problems in as many
  // jobs as `ranks`, the ranks driving the kind), stored when its last job is back -> the whole-program runs (a job
  // each) -> done.
  void advance(const Tuner::Impl& m, Store& store, TuneSummary& summary, RunObserver& obs, std::size_t ranks);
  // The next job to hand out, as the message a rank is sent ({kind, id, job...}), now running on `slot`.
  wire::Message next(std::uint64_t id, std::size_t slot);
  // The slot running job `id`, if it is one of this kind's; the job on `slot`, if any.
  std::optional<std::size_t> slot_of(std::uint64_t id) const;
  std::optional<std::uint64_t> job_on(std::size_t slot) const;
  // Answer `r` ({"done"/..., id, fields...}) to running job r[1] from `rank` on `host`: stored, or (an "error") the
  // job back at the front of those to hand out. Returns the error, if it was one.
  std::optional<std::string> take(const Tuner::Impl& m, const wire::Message& r, int rank, const std::string& host,
                                  Store& store, TuneSummary& summary, RunObserver& obs);

 private:
  void begin_confirmation(const Tuner::Impl& m, Store& store, RunObserver& obs, std::size_t ranks);
  void begin_cold(const Tuner::Impl& m, Store& store);

  std::size_t pos_, device_;
  int phase_ = 0;  // 0: not begun, 1: confirming, 2: the whole-program runs, 3: done
  std::unique_ptr<ConfirmStage> confirm_;
  std::vector<std::vector<std::size_t>> groups_;  // the confirmation's problems in each of its jobs
  std::vector<ColdJob> cold_;
  std::string kind_;  // the message kind of the phase running
  std::vector<wire::Message> jobs_;
  std::deque<std::size_t> todo_;
  std::map<std::uint64_t, std::pair<std::size_t, std::size_t>> running_;  // job id: (index in jobs_, slot)
};

}  // namespace pimg
