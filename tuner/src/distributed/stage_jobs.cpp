// A device kind's stages after its search in a distributed run (stage_jobs.hpp).
#include "distributed/stage_jobs.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "pimg/errors.hpp"

namespace pimg {

using wire::Message;

void KindStages::advance(const Tuner::Impl& m, Store& store, TuneSummary& summary, RunObserver& obs,
                         std::size_t ranks) {
  while (phase_ < 3 && todo_.empty() && running_.empty()) {
    if (phase_ == 1 && confirm_) {
      confirm_->store(store, summary, obs);
      confirm_.reset();
    }
    ++phase_;
    if (phase_ == 1 && m.measure.confirm.top > 0) begin_confirmation(m, store, obs, ranks);
    if (phase_ == 2) begin_cold(m, store);
  }
}

// The problems in as many jobs as ranks drive a device of the kind (largest first, each to the group with the least
// work so far), each job's sessions confirming every problem of the job as a sequential run's do.
void KindStages::begin_confirmation(const Tuner::Impl& m, Store& store, RunObserver& obs, std::size_t ranks) {
  confirm_ = std::make_unique<ConfirmStage>(m, device_, store, obs);
  const ConfirmStage& stage = *confirm_;
  std::vector<Message> one(stage.size());  // each problem's job
  std::vector<double> work(stage.size());
  std::vector<std::size_t> order(stage.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    one[i] = stage.job(i);
    work[i] = m.family->work(stage.problem(i)) * static_cast<double>(one[i].size());
    order[i] = i;
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return work[a] > work[b]; });
  groups_.assign(std::min(std::max<std::size_t>(ranks, 1), order.size()), {});
  std::vector<double> load(groups_.size(), 0);
  for (std::size_t i : order) {
    const std::size_t g = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    groups_[g].push_back(i);
    load[g] += work[i];
  }
  kind_ = "confirm";
  jobs_.clear();
  for (const auto& g : groups_) {
    Message job = {std::to_string(g.size())};
    for (std::size_t i : g) job.insert(job.end(), one[i].begin(), one[i].end());
    jobs_.push_back(std::move(job));
  }
  for (std::size_t i = 0; i < jobs_.size(); ++i) todo_.push_back(i);
}

// Each cold run a job (each a fresh process on the GPU of the rank that takes it), stored as it returns.
void KindStages::begin_cold(const Tuner::Impl& m, Store& store) {
  cold_ = cold_jobs(m, device_, store);
  kind_ = "cold";
  jobs_.clear();
  for (const ColdJob& c : cold_) jobs_.push_back(cold_job_message(device_, c));
  for (std::size_t i = 0; i < jobs_.size(); ++i) todo_.push_back(i);
}

Message KindStages::next(std::uint64_t id, std::size_t slot) {
  PIMG_CHECK(!todo_.empty(), "distributed runner: no stage job to hand out");
  Message msg = {kind_, std::to_string(id)};
  msg.insert(msg.end(), jobs_[todo_.front()].begin(), jobs_[todo_.front()].end());
  running_[id] = {todo_.front(), slot};
  todo_.pop_front();
  return msg;
}

std::optional<std::size_t> KindStages::slot_of(std::uint64_t id) const {
  auto it = running_.find(id);
  if (it == running_.end()) return std::nullopt;
  return it->second.second;
}

std::optional<std::uint64_t> KindStages::job_on(std::size_t slot) const {
  for (const auto& [id, job] : running_)
    if (job.second == slot) return id;
  return std::nullopt;
}

std::optional<std::string> KindStages::take(const Tuner::Impl& m, const Message& r, int rank, const std::string& host,
                                            Store& store, TuneSummary& summary, RunObserver& obs) {
  auto it = running_.find(std::stoull(r.at(1)));
  PIMG_CHECK(it != running_.end(), "distributed runner: an answer to no stage job of this kind");
  const std::size_t i = it->second.first;
  running_.erase(it);
  if (r.at(0) == "error") {
    todo_.push_front(i);
    return r.at(2);
  }
  if (phase_ == 1) {
    std::size_t at = 2;
    for (std::size_t p : groups_[i]) confirm_->take(p, r, at);
    const auto lines = static_cast<std::size_t>(wire::to_long(r.at(at++)));
    for (std::size_t n = 0; n < lines; ++n) obs.on_message(r.at(at++));
    for (std::size_t p : groups_[i])
      obs.on_message(fmt::format("{}: {} confirmed by rank {} ({})", m.devices[device_].info.id(),
                                 confirm_->problem(p).label(), rank, host));
  } else {
    cold_job_store(m, device_, cold_[i], wire::decode_result(Message(r.begin() + 2, r.end())), store, summary, obs,
                   fmt::format(" (rank {}, {})", rank, host));
  }
  return std::nullopt;
}

}  // namespace pimg
