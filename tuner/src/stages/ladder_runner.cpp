// A space's ladder on one opened device (docs/spaces.md "ladder"): per problem, the steps whose variant
// runs on this device measured together by the confirmation stage's method (interleaved rounds, the
// median's interval), each stored as an evaluation with stage "ladder" and marked with its step.
#include <fmt/format.h>

#include <algorithm>

#include "pimg/device_selector.hpp"
#include "pimg/executor.hpp"
#include "pimg/registry.hpp"
#include "run/tuner_impl.hpp"

namespace pimg {

void ladder_device(const Tuner::Impl& m, std::size_t device, DeviceSession& session, Store& store,
                   TuneSummary& summary, RunObserver& obs) {
  const Ladder& ladder = m.space.ladder;
  if (ladder.steps.empty()) return;
  const SelectedDevice& sd = m.devices[device];
  std::vector<std::string> backend_names;
  for (const Backend* b : m.reg.backends()) backend_names.push_back(b->name());
  for (std::size_t p = 0; p < m.space.problems.size(); ++p) {
    const Problem& problem = m.space.problems[p];
    std::vector<std::size_t> chosen;  // indices into ladder.steps
    ConfirmJob job{problem, m.workloads[p], {}, fnv1a64("ladder" + problem.canonical() + sd.info.id())};
    for (std::size_t s = 0; s < ladder.steps.size(); ++s) {
      const LadderStep& step = ladder.steps[s];
      const Variant* v = m.reg.variant(m.space.family, step.variant);
      if (!v || v->backend() != sd.info.backend) continue;
      if (!step.device.empty() && !device_matches(sd.info, step.device, backend_names)) continue;
      // Only where the variant's search ran: a variant that skips this problem or device skips its steps too.
      const bool tuned = std::any_of(m.tasks.begin(), m.tasks.end(), [&](const Task& t) {
        return t.device == device && t.problem == p && t.variant == v;
      });
      auto expected = m.expected.find({p, v->validation_rule()});
      if (!tuned || expected == m.expected.end()) continue;
      chosen.push_back(s);
      job.candidates.push_back({v, step.config, &expected->second});
    }
    if (chosen.empty()) continue;
    const std::int64_t device_row = store.device_id(sd.info);
    const std::int64_t problem_row =
        store.problem_id(problem, {m.family->work(problem), m.family->unit(), m.family->traffic(problem)});
    const auto variant_row = [&](const Variant& v) {
      return store.variant_id({m.family->name(), v.name(), v.backend(), variant_source_hash(v), v.baseline()});
    };
    // Resume: a (ladder, problem, device) whose every step is stored from this code is not measured again
    // (its steps are measured together, so one missing step measures them all).
    const bool all_stored = m.opt.resume && std::all_of(chosen.begin(), chosen.end(), [&](std::size_t s) {
      const LadderStep& step = ladder.steps[s];
      const auto stored = store.find_ladder_step(device_row, problem_row,
                                                 variant_row(*m.reg.variant(m.space.family, step.variant)),
                                                 step.config, ladder.name, step.name);
      return stored && stored->result.status != Status::env_error && !m.opt.retry.count(stored->result.status);
    });
    if (all_stored) {
      obs.on_message(fmt::format("{}: ladder {} on {}: every step already stored", sd.info.id(), ladder.name,
                                 problem.label()));
      continue;
    }
    obs.on_message(fmt::format("{} {}: ladder {}: measuring {} steps of {} in interleaved rounds", sd.info.id(),
                               sd.info.name, ladder.name, chosen.size(), problem.label()));
    const std::vector<EvalResult> results = session.confirm(job);
    if (results.size() != chosen.size()) {
      obs.on_message(fmt::format("{}: ladder {} on {} did not finish; nothing stored for it", sd.info.id(), ladder.name,
                                 problem.label()));
      continue;
    }
    for (std::size_t i = 0; i < results.size(); ++i) {
      const LadderStep& step = ladder.steps[chosen[i]];
      EvalResult r = results[i];
      r.stage = "ladder";
      const std::int64_t id =
          store.save(summary.run_id, device_row, problem_row, variant_row(*job.candidates[i].variant), step.config, r);
      store.save_ladder_step(id, ladder.name, static_cast<int>(chosen[i]), step.name);
      obs.on_message(fmt::format("{}: ladder {} step {} ({}): {}", sd.info.id(), ladder.name, chosen[i] + 1,
                                 step.name,
                                 r.status == Status::ok ? fmt::format("{:.4g} ms", r.kernel.median)
                                                        : std::string(to_string(r.status))));
    }
  }
}

}  // namespace pimg
