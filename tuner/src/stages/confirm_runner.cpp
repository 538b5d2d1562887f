// The confirmation stage of the sequential and distributed runners (tuner_impl.hpp, docs/measurement.md): per
// problem on a device, the candidates the search leaves (confirm_candidates_count) measured again in interleaved
// rounds over several sessions, widened where the confirmed best's interval reaches further
// (confirm_widened_count), and each candidate's sessions pooled into one stored row.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <set>
#include <thread>

#include "stages/confirm_jobs.hpp"
#include "pimg/decision.hpp"
#include "pimg/executor.hpp"
#include "pimg/store.hpp"
#include "run/tuner_impl.hpp"

namespace pimg {

static_assert(kSettleSpread == kTieResolution / 2, "half the tool's resolution");

// One problem's confirmation on a device: its candidates, the job that measures them, and what each session found.
// Outside the anonymous namespace: ConfirmStage::State (confirm_jobs.hpp) holds them.
struct Confirming {
  std::size_t problem;
  std::vector<const ResultRow*> rows;  // the candidates' search rows, baselines last
  ConfirmJob job;
  std::vector<std::vector<EvalResult>> sessions;  // one result per candidate from each session that finished
  std::vector<const ResultRow*> tuned;            // every tuned search row, fastest first
  std::size_t kept = 0;                           // how many of them are candidates
  std::vector<const ResultRow*> baselines;
};

namespace {

// Confirming c's candidates: its `kept` fastest tuned rows, then its baselines; the sessions so far are dropped.
void set_confirm_candidates(const Tuner::Impl& m, const std::map<std::string, const Variant*>& variants,
                            Confirming& c) {
  c.rows.assign(c.tuned.begin(), c.tuned.begin() + static_cast<std::ptrdiff_t>(c.kept));
  c.rows.insert(c.rows.end(), c.baselines.begin(), c.baselines.end());
  c.job.candidates.clear();
  for (const ResultRow* r : c.rows) {
    const Variant* v = variants.at(r->variant.name);
    c.job.candidates.push_back({v, r->config, &m.expected.at({c.problem, v->validation_rule()})});
  }
  c.sessions.clear();
}

// The problems to confirm on device sd, each with its candidates (pointers into `rows`, the search's latest rows);
// a problem whose stored confirmation (in `confirmations`) decides it (below) is said and left out.
std::vector<Confirming> confirm_jobs(const Tuner::Impl& m, const SelectedDevice& sd,
                                     const std::map<std::string, const Variant*>& variants,
                                     const std::vector<ResultRow>& rows, const std::vector<ResultRow>& confirmations,
                                     RunObserver& obs) {
  const ConfirmSpec& spec = m.measure.confirm;
  std::vector<Confirming> jobs;
  for (std::size_t p = 0; p < m.space.problems.size(); ++p) {
    const Problem& problem = m.space.problems[p];
    const std::string canonical = problem.canonical();
    std::vector<const ResultRow*> tuned;
    std::map<std::string, const ResultRow*> baselines;
    std::int64_t searched = -1, confirmed = -1;  // the latest runs that searched and that confirmed this problem
    std::vector<const ResultRow*> confirm_rows;
    for (const ResultRow& r : confirmations)
      if (same_device(r.device, sd.info) && r.problem.canonical() == canonical) {
        confirmed = std::max(confirmed, r.run_id);
        confirm_rows.push_back(&r);
      }
    for (const ResultRow& r : rows) {
      if (r.result.status != Status::ok || !same_device(r.device, sd.info) || r.problem.canonical() != canonical)
        continue;
      searched = std::max(searched, r.run_id);
      auto v = variants.find(r.variant.name);
      if (v == variants.end()) continue;
      if (v->second->baseline()) {
        const ResultRow*& b = baselines[r.variant.name];
        if (!b || r.result.kernel.median < b->result.kernel.median) b = &r;
      } else {
        tuned.push_back(&r);
      }
    }
    if (tuned.empty() && baselines.empty()) continue;
    std::sort(tuned.begin(), tuned.end(),
              [](const ResultRow* a, const ResultRow* b) { return a->result.kernel.median < b->result.kernel.median; });
    Confirming c{p, {}, ConfirmJob{problem, m.workloads[p], {}, fnv1a64(canonical + sd.info.id())}, {}, tuned,
                 confirm_candidates_count(tuned, spec), {}};
    for (const auto& [name, r] : baselines) c.baselines.push_back(r);
    set_confirm_candidates(m, variants, c);
    // A problem whose stored confirmation came after its latest search and measured every candidate the search
    // gives now is decided: a resumed run keeps that answer instead of measuring a new one beside it (the latest
    // confirmation decides, docs/strategies.md). --no-resume searches again, and so confirms again.
    if (confirmed >= searched) {
      std::set<std::pair<std::string, std::string>> stored;
      for (const ResultRow* r : confirm_rows)
        if (r->run_id == confirmed) stored.emplace(r->variant.name, r->config.canonical());
      const bool covered = std::all_of(c.rows.begin(), c.rows.end(), [&](const ResultRow* r) {
        return stored.count({r->variant.name, r->config.canonical()}) > 0;
      });
      if (covered) {
        obs.on_message(fmt::format("{} {}: {} was confirmed by run {} and nothing was searched since; kept",
                                   sd.info.id(), sd.info.name, problem.label(), confirmed));
        continue;
      }
    }
    jobs.push_back(std::move(c));
  }
  return jobs;
}

// The device class's confirmation (MeasureSpec::for_device): its sessions and max_sessions.
ConfirmSpec device_confirm(const Tuner::Impl& m, const SelectedDevice& sd) {
  ConfirmSpec c = m.measure.for_device(sd.info.caps).confirm;
  c.sessions = std::max(1, c.sessions);
  c.max_sessions = std::max(c.sessions, c.max_sessions);
  return c;
}

// Sessions `from` to `to` - 1 of the stage: each confirms every problem of `todo` and is appended to its sessions;
// the first runs in `session` as it is unless `fresh`, every later one in a fresh session (worker process or device
// context), so the samples of one process are not all the stage knows. Session s's rounds are shuffled by the job's
// seed plus `seeds` plus s.
void run_confirm_sessions(const Tuner::Impl& m, const SelectedDevice& sd, std::unique_ptr<DeviceSession>& session,
                          const std::vector<Confirming*>& todo, int from, int to, bool fresh, int seeds,
                          RunObserver& obs) {
  for (int s = from; s < to && !todo.empty(); ++s) {
    if (s > from || fresh) {
      session.reset();
      session = open_session(m, sd);
    }
    for (Confirming* pc : todo) {
      Confirming& c = *pc;
      const Problem& problem = m.space.problems[c.problem];
      obs.on_message(fmt::format("{} {}: confirming {} configurations of {} in interleaved rounds (session {} of {})",
                                 sd.info.id(), sd.info.name, c.job.candidates.size(), problem.label(), s + 1, to));
      ConfirmJob job = c.job;
      job.seed += static_cast<std::uint64_t>(seeds + s);
      std::vector<EvalResult> results = session->confirm(job);
      // A session that ran while other processes held the CPU (its rows flagged "loaded" by the machine's
      // observers) is measured once more, a moment later: an interleaved round shares the load among the
      // candidates, but not evenly (a team of 2 threads loses more to one busy core than 1 thread does). What is
      // stored is the second (flagged "remeasured"), and its "loaded" flag where the load stayed, which marks the
      // decision in best, the report and the exports (docs/measurement.md).
      const auto loaded = [](const std::vector<EvalResult>& rs) {
        return std::any_of(rs.begin(), rs.end(), [](const EvalResult& r) {
          return std::find(r.flags.begin(), r.flags.end(), "loaded") != r.flags.end();
        });
      };
      if (results.size() == c.rows.size() && loaded(results)) {
        obs.on_message(fmt::format("{} {}: session {} of the confirmation of {} ran while other processes held the "
                                   "CPU; measuring it again",
                                   sd.info.id(), sd.info.name, s + 1, problem.label()));
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        std::vector<EvalResult> again = session->confirm(job);
        if (again.size() == c.rows.size()) {
          for (EvalResult& r : again) r.flags.push_back("remeasured");
          results = std::move(again);
        }
      }
      if (results.size() != c.rows.size()) {
        obs.on_message(fmt::format("{}: session {} of the confirmation stage of {} did not finish; its measurements "
                                   "are left out",
                                   sd.info.id(), s + 1, problem.label()));
        continue;
      }
      c.sessions.push_back(std::move(results));
    }
  }
}

// The confirmed best's interval, pooled over the sessions, says how far the search's order holds: where it
// reaches search rows the stage left out (confirm_widened_count), the stage runs again for that problem with
// them, in fresh sessions, and its measurements replace the first round's.
void widen_confirmations(const Tuner::Impl& m, const SelectedDevice& sd,
                         const std::map<std::string, const Variant*>& variants,
                         std::unique_ptr<DeviceSession>& session, std::vector<Confirming>& jobs, RunObserver& obs) {
  const ConfirmSpec& spec = m.measure.confirm;
  std::vector<Confirming*> wider;
  // Their first round (candidates, sessions), kept for a problem whose wider round does not finish.
  std::vector<std::pair<std::size_t, std::vector<std::vector<EvalResult>>>> first;
  for (Confirming& c : jobs) {
    if (c.sessions.empty() || c.kept == 0) continue;
    double best_high = 0, best_median = 0, best_spread = 0;
    for (std::size_t i = 0; i < c.kept; ++i) {
      std::vector<EvalResult> per_session;
      for (const auto& results : c.sessions) per_session.push_back(results[i]);
      const EvalResult pooled = pool_sessions(per_session);
      if (pooled.status != Status::ok) continue;
      if (best_median == 0 || pooled.kernel.median < best_median) {
        best_median = pooled.kernel.median;
        best_high = pooled.ci_high_ms > 0 ? pooled.ci_high_ms : pooled.kernel.median;
        best_spread = 0;
        for (const Metric& x : pooled.metrics)
          if (x.name == "confirm.session_spread") best_spread = x.value;
      }
    }
    const std::size_t n =
        best_high > 0 ? confirm_widened_count(c.tuned, c.kept, best_high, best_spread, spec) : c.kept;
    if (n == c.kept) continue;
    obs.on_message(fmt::format("{} {}: the confirmed best's interval reaches {} more configurations of {}; "
                               "confirming {} again",
                               sd.info.id(), sd.info.name, n - c.kept, m.space.problems[c.problem].label(), n));
    first.emplace_back(c.kept, c.sessions);
    c.kept = n;
    set_confirm_candidates(m, variants, c);
    wider.push_back(&c);
  }
  const int sessions = device_confirm(m, sd).sessions;
  run_confirm_sessions(m, sd, session, wider, 0, sessions, true, sessions, obs);
  for (std::size_t i = 0; i < wider.size(); ++i)
    if (wider[i]->sessions.empty()) {
      wider[i]->kept = first[i].first;
      set_confirm_candidates(m, variants, *wider[i]);
      wider[i]->sessions = std::move(first[i].second);
    }
}

// Where a problem's sessions disagree on what decides it (confirm_decisive_spread above kSettleSpread), further
// fresh sessions confirm that problem, up to the device class's max_sessions in all; their samples join its rows.
void settle_confirmations(const Tuner::Impl& m, const SelectedDevice& sd, std::unique_ptr<DeviceSession>& session,
                          std::vector<Confirming>& jobs, RunObserver& obs) {
  const ConfirmSpec spec = device_confirm(m, sd);
  if (spec.max_sessions <= spec.sessions) return;
  std::vector<Confirming*> todo;
  for (Confirming& c : jobs) {
    const double spread = confirm_decisive_spread(c.sessions, c.kept, spec);
    if (spread <= kSettleSpread) continue;
    obs.on_message(fmt::format("{} {}: {}'s sessions disagree by {:.1f}% where it is decided; confirming it in {} more",
                               sd.info.id(), sd.info.name, m.space.problems[c.problem].label(), spread * 100,
                               spec.max_sessions - spec.sessions));
    todo.push_back(&c);
  }
  run_confirm_sessions(m, sd, session, todo, spec.sessions, spec.max_sessions, true, spec.sessions, obs);
}

// Each candidate's sessions pooled into one row with stage "confirm"; a problem none of whose sessions finished
// stores nothing, said.
void store_confirmations(const Tuner::Impl& m, const SelectedDevice& sd, const std::vector<Confirming>& jobs,
                         Store& store, TuneSummary& summary, RunObserver& obs) {
  const std::int64_t device_row = store.device_id(sd.info);
  for (const Confirming& c : jobs) {
    if (c.sessions.empty()) {
      obs.on_message(fmt::format("{}: the confirmation stage of {} did not finish; nothing stored for it",
                                 sd.info.id(), m.space.problems[c.problem].label()));
      continue;
    }
    const Problem& problem = m.space.problems[c.problem];
    const std::int64_t problem_row =
        store.problem_id(problem, {m.family->work(problem), m.family->unit(), m.family->traffic(problem)});
    for (std::size_t i = 0; i < c.rows.size(); ++i) {
      std::vector<EvalResult> per_session;
      for (const auto& results : c.sessions) per_session.push_back(results[i]);
      const VariantKey& key = c.rows[i]->variant;
      store.save(summary.run_id, device_row, problem_row, store.variant_id(key), c.rows[i]->config,
                 pool_sessions(per_session));
    }
  }
}

}  // namespace

// A top configuration could still be tied when the lower end of its interval is within `within` of the upper end
// of the fastest's: one racing dropped, or any other clearly slower one, is left out, so the stage is as large as
// the contest (rows without an interval count by their median).
std::size_t confirm_candidates_count(const std::vector<const ResultRow*>& tuned, const ConfirmSpec& spec) {
  if (tuned.empty()) return 0;
  const EvalResult& best = tuned.front()->result;
  const double reach = (best.ci_high_ms > 0 ? best.ci_high_ms : best.kernel.median) * (1 + spec.within);
  const auto contender = [&](const ResultRow* r) {
    return (r->result.ci_low_ms > 0 ? r->result.ci_low_ms : r->result.kernel.median) <= reach;
  };
  const std::size_t most = std::min<std::size_t>(tuned.size(), static_cast<std::size_t>(std::max(1, spec.max)));
  std::size_t keep = 1;
  while (keep < most && keep < static_cast<std::size_t>(spec.top) && contender(tuned[keep])) ++keep;
  while (keep < most && tuned[keep]->result.kernel.median <= best.kernel.median * (1 + spec.within)) ++keep;
  return keep;
}

std::size_t confirm_widened_count(const std::vector<const ResultRow*>& tuned, std::size_t kept,
                                  double confirmed_high_ms, double session_spread, const ConfirmSpec& spec) {
  const std::size_t most = std::min<std::size_t>(tuned.size(), static_cast<std::size_t>(std::max(1, spec.max)));
  const double reach = confirmed_high_ms * (1 + std::max(spec.within, session_spread));
  std::size_t n = kept;
  while (n < most && (tuned[n]->result.ci_low_ms > 0 ? tuned[n]->result.ci_low_ms : tuned[n]->result.kernel.median) <= reach)
    ++n;
  return n;
}

double confirm_decisive_spread(const std::vector<std::vector<EvalResult>>& sessions, std::size_t kept,
                               const ConfirmSpec& spec) {
  if (sessions.size() < 2) return 0;
  const std::size_t n = sessions.front().size();
  std::vector<double> median(n, 0), spread(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<EvalResult> per_session;
    for (const auto& results : sessions)
      if (i < results.size()) per_session.push_back(results[i]);
    const EvalResult pooled = pool_sessions(per_session);
    if (pooled.status != Status::ok) continue;
    median[i] = pooled.kernel.median;
    for (const Metric& x : pooled.metrics)
      if (x.name == "confirm.session_spread") spread[i] = x.value;
  }
  double best = 0;
  for (std::size_t i = 0; i < std::min(kept, n); ++i)
    if (median[i] > 0 && (best == 0 || median[i] < best)) best = median[i];
  double most = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (median[i] > 0 && (i >= kept || median[i] <= best * (1 + spec.within))) most = std::max(most, spread[i]);
  return most;
}

void confirm_device(const Tuner::Impl& m, std::size_t device, std::unique_ptr<DeviceSession>& session, Store& store,
                    TuneSummary& summary, RunObserver& obs) {
  const ConfirmSpec& spec = m.measure.confirm;
  if (spec.top <= 0) return;
  const SelectedDevice& sd = m.devices[device];
  const std::map<std::string, const Variant*> variants = device_variants(m, device);
  RowFilter f;
  f.family = m.family->name();
  const std::vector<ResultRow> rows = store.rows(f);                  // the search's latest rows
  const std::vector<ResultRow> confirmations = store.confirm_rows(f);  // the confirmation stage's latest
  std::vector<Confirming> jobs = confirm_jobs(m, sd, variants, rows, confirmations, obs);
  std::vector<Confirming*> all;
  for (Confirming& c : jobs) all.push_back(&c);
  run_confirm_sessions(m, sd, session, all, 0, device_confirm(m, sd).sessions, false, 0, obs);
  widen_confirmations(m, sd, variants, session, jobs, obs);
  settle_confirmations(m, sd, session, jobs, obs);
  store_confirmations(m, sd, jobs, store, summary, obs);
}

struct ConfirmStage::State {
  const Tuner::Impl& m;
  std::size_t device;
  std::map<std::string, const Variant*> variants;
  std::vector<ResultRow> rows, confirmations;  // what the jobs' candidates point into
  std::vector<Confirming> jobs;
};

ConfirmStage::ConfirmStage(const Tuner::Impl& m, std::size_t device, Store& store, RunObserver& obs)
    : s_(new State{m, device, device_variants(m, device), {}, {}, {}}) {
  if (m.measure.confirm.top <= 0) return;
  RowFilter f;
  f.family = m.family->name();
  s_->rows = store.rows(f);
  s_->confirmations = store.confirm_rows(f);
  s_->jobs = confirm_jobs(m, m.devices[device], s_->variants, s_->rows, s_->confirmations, obs);
}

ConfirmStage::~ConfirmStage() = default;
std::size_t ConfirmStage::size() const { return s_->jobs.size(); }
const Problem& ConfirmStage::problem(std::size_t i) const { return s_->m.space.problems[s_->jobs.at(i).problem]; }

// The fields: device, problem, seed, candidates kept, then the tuned rows a widened round could reach (variant,
// configuration, the lower end of the search's interval, its median) and the baselines (variant, configuration).
wire::Message ConfirmStage::job(std::size_t i) const {
  const Confirming& c = s_->jobs.at(i);
  const std::size_t most =
      std::min<std::size_t>(c.tuned.size(), static_cast<std::size_t>(std::max(1, s_->m.measure.confirm.max)));
  wire::Message out = {std::to_string(s_->device), std::to_string(c.problem), std::to_string(c.job.seed),
                       std::to_string(c.kept), std::to_string(most)};
  for (std::size_t k = 0; k < most; ++k)
    out.insert(out.end(), {c.tuned[k]->variant.name, c.tuned[k]->config.canonical(),
                           wire::num(c.tuned[k]->result.ci_low_ms), wire::num(c.tuned[k]->result.kernel.median)});
  out.push_back(std::to_string(c.baselines.size()));
  for (const ResultRow* b : c.baselines) out.insert(out.end(), {b->variant.name, b->config.canonical()});
  return out;
}

std::size_t confirm_job_device(const wire::Message& job, std::size_t at) {
  return static_cast<std::size_t>(std::stoul(job.at(at + 1)));  // past the count of problems
}

wire::Message confirm_problems(const Tuner::Impl& m, const wire::Message& job, std::size_t at, std::size_t device,
                               std::unique_ptr<DeviceSession>& session, RunObserver& obs) {
  const auto count = [&] {
    const long n = wire::to_long(job.at(at++));
    if (n < 0 || static_cast<std::size_t>(n) > job.size()) throw std::runtime_error("confirmation job: bad count");
    return static_cast<std::size_t>(n);
  };
  const auto index = [&] { return static_cast<std::size_t>(std::stoul(job.at(at++))); };
  const std::size_t problems = count();
  if (problems == 0 || device >= m.devices.size()) throw std::runtime_error("confirmation job: no problem or device");
  std::deque<std::vector<ResultRow>> rows;  // what the jobs' candidates point into (a deque: stable addresses)
  std::vector<Confirming> jobs;
  std::map<std::string, const Variant*> variants;
  for (std::size_t k = 0; k < problems; ++k) {
    const std::size_t searched = index(), p = index();
    if (searched >= m.devices.size() || p >= m.space.problems.size())
      throw std::runtime_error("confirmation job: device or problem out of range");
    // The variants are those of the searched device's tasks, as on rank 0; the sessions run on this rank's device.
    if (k == 0) variants = device_variants(m, searched);
    const std::uint64_t seed = std::stoull(job.at(at++));
    const std::size_t kept = count();
    std::vector<ResultRow>& tuned = rows.emplace_back(count());
    for (ResultRow& r : tuned) {
      r.variant.name = job.at(at++);
      r.config = Config::parse_canonical(job.at(at++));
      r.result.ci_low_ms = wire::to_double(job.at(at++));
      r.result.kernel.median = wire::to_double(job.at(at++));
    }
    std::vector<ResultRow>& baselines = rows.emplace_back(count());
    for (ResultRow& r : baselines) {
      r.variant.name = job.at(at++);
      r.config = Config::parse_canonical(job.at(at++));
    }
    if (kept > tuned.size()) throw std::runtime_error("confirmation job: more kept than sent");
    Confirming& c = jobs.emplace_back(
        Confirming{p, {}, ConfirmJob{m.space.problems[p], m.workloads[p], {}, seed}, {}, {}, kept, {}});
    for (const ResultRow& r : tuned) c.tuned.push_back(&r);
    for (const ResultRow& r : baselines) c.baselines.push_back(&r);
    set_confirm_candidates(m, variants, c);
  }
  // Every session confirms every problem of the job, as a sequential run's sessions do.
  std::vector<Confirming*> all;
  for (Confirming& c : jobs) all.push_back(&c);
  const SelectedDevice& sd = m.devices[device];
  run_confirm_sessions(m, sd, session, all, 0, device_confirm(m, sd).sessions, false, 0, obs);
  widen_confirmations(m, sd, variants, session, jobs, obs);
  settle_confirmations(m, sd, session, jobs, obs);
  wire::Message out;
  for (const Confirming& c : jobs) {
    out.insert(out.end(), {std::to_string(c.kept), std::to_string(c.sessions.size()), std::to_string(c.rows.size())});
    for (const auto& results : c.sessions)
      for (const EvalResult& r : results) out.push_back(wire::encode(wire::encode_result(r)));
  }
  return out;
}

void ConfirmStage::take(std::size_t i, const wire::Message& answer, std::size_t& at) {
  Confirming& c = s_->jobs.at(i);
  const auto count = [&] { return static_cast<std::size_t>(wire::to_long(answer.at(at++))); };
  const std::size_t kept = count(), sessions = count(), candidates = count();
  if (kept > c.tuned.size()) throw std::runtime_error("confirmation answer: more kept than searched");
  c.kept = kept;
  set_confirm_candidates(s_->m, s_->variants, c);
  if (candidates != c.rows.size()) throw std::runtime_error("confirmation answer: another count of candidates");
  for (std::size_t s = 0; s < sessions; ++s) {
    std::vector<EvalResult> results;
    for (std::size_t k = 0; k < candidates; ++k)
      results.push_back(wire::decode_result(wire::decode_whole(answer.at(at++))));
    c.sessions.push_back(std::move(results));
  }
}

void ConfirmStage::store(Store& store, TuneSummary& summary, RunObserver& obs) const {
  store_confirmations(s_->m, s_->m.devices[s_->device], s_->jobs, store, summary, obs);
}

}  // namespace pimg
