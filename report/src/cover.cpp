// `pimg-tune cover`: stored rows matched into problems, devices and configurations, and the choice of at most k
// configurations that maximises the worst device's fraction of its optimum, in-sample and leave-one-device-out.
#include "pimg/cover.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "metrics.hpp"
#include "observations.hpp"
#include "pimg/errors.hpp"

namespace pimg {
// Named, not anonymous: the target compiles its files in unity batches, where helpers of one file meet another's.
namespace cover_select {

using namespace report_detail;

// One device of one family in one store, with its rows by problem.
struct DeviceRows {
  std::string store, family;
  DeviceInfo device;
  std::map<std::string, Problem> problems;                    // canonical -> problem
  std::map<std::string, std::vector<const ResultRow*>> rows;  // canonical -> its search rows
};

std::string device_id(const std::string& family, const DeviceInfo& d) {
  return family + "\n" + d.backend + "\n" + d.name + "\n" + d.driver;
}

std::string device_words(const DeviceRows& d) {
  return fmt::format("{} ({}, {})", device_label(d.device), d.family, d.store);
}

// The worst and the mean over `devices` of each device's best fraction among `set`.
struct Score {
  double worst = 0, mean = 0;
};

Score score(const std::vector<std::vector<double>>& f, const std::vector<std::size_t>& devices,
            const std::vector<std::size_t>& set) {
  Score s{devices.empty() ? 0.0 : 1.0, 0};
  for (const std::size_t d : devices) {
    double best = 0;
    for (const std::size_t c : set) best = std::max(best, f[c][d]);
    s.worst = std::min(s.worst, best);
    s.mean += best;
  }
  if (!devices.empty()) s.mean /= static_cast<double>(devices.size());
  return s;
}

// Lexicographic: a larger worst fraction, else (the same worst) a larger mean.
bool better(const Score& a, const Score& b) {
  return a.worst > b.worst || (a.worst == b.worst && a.mean > b.mean + 1e-12);
}

// The fewest rows (at most k) each of whose device's fraction reaches `threshold`, by a breadth-first search over
// the subsets of devices covered (rows that cover a subset of another row's devices are left out); nullopt when
// more than k are needed.
std::optional<std::vector<std::size_t>> cover_at(const std::vector<std::vector<double>>& f,
                                                 const std::vector<std::size_t>& devices, std::size_t k,
                                                 double threshold) {
  const std::size_t n = devices.size();
  const std::uint32_t full = (std::uint32_t{1} << n) - 1;
  std::map<std::uint32_t, std::size_t> by_mask;  // devices covered -> the first row covering exactly them
  for (std::size_t c = 0; c < f.size(); ++c) {
    std::uint32_t m = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (f[c][devices[i]] >= threshold) m |= std::uint32_t{1} << i;
    if (m) by_mask.try_emplace(m, c);
  }
  std::vector<std::pair<std::uint32_t, std::size_t>> masks;
  for (const auto& entry : by_mask) {  // not a structured binding: clang 14 cannot capture one
    const std::uint32_t m = entry.first;
    const bool inside =
        std::any_of(by_mask.begin(), by_mask.end(), [&](const auto& o) { return o.first != m && (o.first & m) == m; });
    if (!inside) masks.push_back(entry);
  }
  std::vector<int> level(std::size_t{1} << n, -1);
  std::vector<std::pair<std::uint32_t, std::size_t>> from(std::size_t{1} << n);  // previous subset, row added
  level[0] = 0;
  std::vector<std::uint32_t> frontier{0};
  for (std::size_t step = 1; step <= k && level[full] < 0 && !frontier.empty(); ++step) {
    std::vector<std::uint32_t> next;
    for (const std::uint32_t s : frontier)
      for (const auto& [m, c] : masks) {
        const std::uint32_t t = s | m;
        if (level[t] >= 0) continue;
        level[t] = static_cast<int>(step);
        from[t] = {s, c};
        next.push_back(t);
      }
    frontier = std::move(next);
  }
  if (level[full] < 0) return std::nullopt;
  std::vector<std::size_t> rows;
  for (std::uint32_t s = full; s != 0; s = from[s].first) rows.push_back(from[s].second);
  return rows;
}

// The largest worst fraction any k rows reach, by bisection over the fractions stored (a threshold k rows reach,
// every smaller one they reach too), and rows that reach it; empty when k rows cannot give every device anything.
std::vector<std::size_t> exact_worst(const std::vector<std::vector<double>>& f, const std::vector<std::size_t>& devices,
                                     std::size_t k) {
  std::vector<double> values;
  for (const auto& row : f)
    for (const std::size_t d : devices)
      if (row[d] > 0) values.push_back(row[d]);
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  std::vector<std::size_t> best;
  std::size_t lo = 0, hi = values.size();  // values[lo - 1] reached (lo > 0), values[hi] not (hi < size)
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (auto rows = cover_at(f, devices, k, values[mid])) {
      best = std::move(*rows);
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return best;
}

CoverSet choose_set(const std::vector<std::vector<double>>& f, const std::vector<std::size_t>& devices, std::size_t k) {
  CoverSet out;
  const bool is_exact = devices.size() <= kCoverExactDevices;
  out.exact = is_exact;
  if (devices.empty() || f.empty() || k == 0) return out;
  std::vector<std::size_t> set = is_exact ? exact_worst(f, devices, k) : std::vector<std::size_t>{};
  std::vector<bool> in(f.size(), false);
  for (const std::size_t c : set) in[c] = true;
  // Greedy additions while they raise the score, then the best swap of one row for another until none does: the
  // exact worst fraction is kept (the order is lexicographic), the mean raised.
  while (set.size() < k) {
    Score top = score(f, devices, set);
    std::optional<std::size_t> pick;
    for (std::size_t c = 0; c < f.size(); ++c) {
      if (in[c]) continue;
      set.push_back(c);
      const Score s = score(f, devices, set);
      set.pop_back();
      if (better(s, top)) {
        top = s;
        pick = c;
      }
    }
    if (!pick) break;
    set.push_back(*pick);
    in[*pick] = true;
  }
  for (int pass = 0; pass < 100; ++pass) {
    Score top = score(f, devices, set);
    std::optional<std::pair<std::size_t, std::size_t>> swap;
    for (std::size_t i = 0; i < set.size(); ++i) {
      const std::size_t was = set[i];
      for (std::size_t c = 0; c < f.size(); ++c) {
        if (in[c]) continue;
        set[i] = c;
        const Score s = score(f, devices, set);
        if (better(s, top)) {
          top = s;
          swap = {i, c};
        }
      }
      set[i] = was;
    }
    if (!swap) break;
    in[set[swap->first]] = false;
    set[swap->first] = swap->second;
    in[swap->second] = true;
  }
  // Each device's best of the set (the first of equals); a row that is no device's best is dropped.
  std::map<std::size_t, std::size_t> best_on;
  for (const std::size_t d : devices) {
    std::optional<std::size_t> pick;
    for (const std::size_t c : set)
      if (f[c][d] > 0 && (!pick || f[c][d] > f[*pick][d])) pick = c;
    if (pick) ++best_on[*pick];
  }
  for (const auto& [c, n] : best_on) out.rows.push_back(c);
  std::stable_sort(out.rows.begin(), out.rows.end(),
                   [&](std::size_t a, std::size_t b) { return best_on[a] > best_on[b]; });
  out.core = out.rows.size();
  // Room left: the rows good on every device seen, the best guess for one not seen (in row order among equals).
  std::vector<std::pair<Score, std::size_t>> hedges;
  for (std::size_t c = 0; c < f.size(); ++c)
    if (!best_on.count(c)) hedges.emplace_back(score(f, devices, {c}), c);
  std::stable_sort(hedges.begin(), hedges.end(), [](const auto& a, const auto& b) {
    return a.first.worst > b.first.worst || (a.first.worst == b.first.worst && a.first.mean > b.first.mean);
  });
  for (std::size_t i = 0; i < hedges.size() && out.rows.size() < k; ++i)
    if (hedges[i].first.worst > 0) out.rows.push_back(hedges[i].second);
  return out;
}

// The devices of opt.families in `sources`, each from one store, and the tuned variants of each family.
struct Collected {
  std::map<std::string, DeviceRows> devices;
  std::map<std::string, std::set<std::string>> variants_of;
};

Collected collect_devices(const std::vector<CoverSource>& sources, const CoverOptions& opt, CoverResult& out) {
  Collected got;
  std::set<std::string> stored_families;
  for (const CoverSource& src : sources) {
    out.stores.push_back(src.store);
    for (const ResultRow& r : src.rows) {
      stored_families.insert(r.problem.family);
      if (std::find(opt.families.begin(), opt.families.end(), r.problem.family) == opt.families.end()) continue;
      if (r.variant.baseline || r.result.stage == "confirm" || r.device.platform == kCoverPlatform) continue;
      const std::string id = device_id(r.problem.family, r.device);
      auto [it, added] = got.devices.try_emplace(id);
      DeviceRows& d = it->second;
      if (added) {
        d.store = src.store;
        d.family = r.problem.family;
        d.device = r.device;
      } else if (d.store != src.store) {
        throw UsageError(fmt::format("cover: {} of family {} is stored in both {} and {}: give one of them",
                                     device_label(r.device), d.family, d.store, src.store));
      }
      const std::string p = r.problem.canonical();
      d.problems.try_emplace(p, r.problem);
      d.rows[p].push_back(&r);
      got.variants_of[r.problem.family].insert(r.variant.name);
    }
  }
  for (const std::string& fam : opt.families)
    if (!got.variants_of.count(fam))
      throw UsageError(fmt::format(
          "cover: --family {}: no tuned configuration of it in {} (families stored: {})", fam,
          fmt::join(out.stores, ", "),
          stored_families.empty() ? std::string("none") : fmt::format("{}", fmt::join(stored_families, ", "))));
  return got;
}

// One device's side of a problem group: each configuration's time by the objective (the latest row where a
// variant's source changed), what it stores, and each variant's parameter names.
struct Side {
  const DeviceRows* rows;
  std::string problem;
  std::map<std::string, double> ms;  // passed
  std::set<std::string> stored;
  std::map<std::string, std::set<std::string>> params;  // variant key -> parameter names
};

// A group's sides (devices where something passed, in the families' order, then by device) and its configurations.
std::vector<Side> sides_of(const std::map<std::string, std::string>& members,
                           const std::map<std::string, DeviceRows>& devices, Objective objective, bool one_each,
                           const std::map<std::string, std::size_t>& family_rank, CoverResult& out,
                           std::map<std::string, CoverConfig>& configs) {
  std::vector<Side> sides;
  for (const auto& [id, canon] : members) {
    const DeviceRows& d = devices.at(id);
    Side s{&d, canon, {}, {}, {}};
    std::map<std::string, const ResultRow*> latest;
    for (const ResultRow* r : d.rows.at(canon)) {
      const std::string variant = out.variant_in_key ? r->variant.name : "";
      const std::string k = variant + (variant.empty() ? "" : " ") + r->config.canonical();
      auto& slot = latest[k];
      if (!slot || r->id > slot->id) slot = r;
      configs.try_emplace(k, CoverConfig{variant, r->config, k});
    }
    for (const auto& [k, r] : latest) {
      s.stored.insert(k);
      std::set<std::string>& names = s.params[configs.at(k).variant];
      for (const auto& [name, _] : r->config.values()) names.insert(name);
      const std::optional<double> v = objective_value(*r, objective);
      if (v && std::isfinite(*v) && *v > 0) s.ms[k] = *v;
    }
    if (s.ms.empty()) {
      out.notes.push_back(fmt::format("{} left out: no configuration passed there{}", device_words(d),
                                      one_each ? "" : " for " + d.problems.at(canon).label()));
      continue;
    }
    sides.push_back(std::move(s));
  }
  std::stable_sort(sides.begin(), sides.end(), [&](const Side& a, const Side& b) {
    return std::make_tuple(family_rank.at(a.rows->family), device_label(a.rows->device), a.rows->device.driver) <
           std::make_tuple(family_rank.at(b.rows->family), device_label(b.rows->device), b.rows->device.driver);
  });
  return sides;
}

// Configurations match by their parameter values: UsageError unless the devices store the same parameters of a
// variant.
void check_same_parameters(const std::vector<Side>& sides) {
  std::map<std::string, std::set<std::string>> names_of;  // variant key -> every parameter any device stores
  for (const Side& s : sides)
    for (const auto& [v, names] : s.params) names_of[v].insert(names.begin(), names.end());
  for (const auto& [v, all] : names_of) {
    std::set<std::string> partial;
    std::vector<std::string> lacking;
    for (const Side& s : sides) {
      auto it = s.params.find(v);
      if (it == s.params.end()) continue;
      std::vector<std::string> lacks;
      for (const std::string& n : all)
        if (!it->second.count(n)) lacks.push_back(n);
      if (lacks.empty()) continue;
      partial.insert(lacks.begin(), lacks.end());
      const std::size_t shown = std::min<std::size_t>(lacks.size(), 6);
      lacking.push_back(
          fmt::format("{} lacks {}{}", device_words(*s.rows),
                      fmt::join(lacks.begin(), lacks.begin() + static_cast<std::ptrdiff_t>(shown), ", "),
                      lacks.size() > shown ? fmt::format(" and {} more", lacks.size() - shown) : ""));
    }
    if (partial.empty()) continue;
    throw UsageError(fmt::format(
        "cover: configurations match by their parameter values, and {} parameter{} {} not stored on every device "
        "({}): the families must tune the same parameters",
        partial.size(), partial.size() == 1 ? "" : "s", partial.size() == 1 ? "is" : "are", fmt::join(lacking, "; ")));
  }
}

// The problem's devices with their optima, and fraction[c][d] = optimum / time of candidate keys[c] on side d.
std::vector<std::vector<double>> fractions(const std::vector<Side>& sides, const std::vector<std::string>& keys,
                                           const std::map<std::string, CoverConfig>& configs, CoverProblem& prob) {
  std::vector<double> optimum;
  for (const Side& s : sides) {
    CoverDevice d;
    d.store = s.rows->store;
    d.family = s.rows->family;
    d.device = s.rows->device;
    d.problem = s.rows->problems.at(s.problem);
    d.cost = s.rows->rows.at(s.problem).front()->cost;
    std::set<std::pair<std::string, std::string>> seen;
    for (const ResultRow* r : s.rows->rows.at(s.problem))
      if (seen.insert({r->variant.name, r->variant.source_hash}).second) d.variants.push_back(r->variant);
    d.stored = s.stored.size();
    d.valid = s.ms.size();
    auto best =
        std::min_element(s.ms.begin(), s.ms.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    d.optimum_ms = best->second;
    d.optimum = configs.at(best->first);
    optimum.push_back(best->second);
    prob.devices.push_back(std::move(d));
  }
  std::vector<std::vector<double>> fraction(keys.size(), std::vector<double>(sides.size(), 0.0));
  for (std::size_t c = 0; c < keys.size(); ++c)
    for (std::size_t d = 0; d < sides.size(); ++d)
      if (auto it = sides[d].ms.find(keys[c]); it != sides[d].ms.end()) fraction[c][d] = optimum[d] / it->second;
  return fraction;
}

// The chosen set of at most k, each device's in-sample fraction and, with several devices, its fraction under the
// set the others choose (leave one device out).
void choose_and_score(const std::vector<std::vector<double>>& fraction, const std::vector<Side>& sides,
                      const std::vector<std::string>& keys, const std::map<std::string, CoverConfig>& configs, int k,
                      CoverProblem& prob) {
  std::vector<std::size_t> all(sides.size());
  for (std::size_t d = 0; d < all.size(); ++d) all[d] = d;
  const CoverSet set = choose_set(fraction, all, k);
  prob.exact = set.exact;
  const std::vector<std::size_t>& chosen = set.rows;
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    const std::size_t c = chosen[i];
    CoverChoice ch{configs.at(keys[c]), i >= set.core, {}, 0};
    for (const Side& s : sides) {
      auto it = s.ms.find(keys[c]);
      ch.ms.push_back(it == s.ms.end() ? std::nullopt : std::optional<double>(it->second));
    }
    prob.chosen.push_back(std::move(ch));
  }
  prob.worst_in_sample = 1;
  for (std::size_t d = 0; d < sides.size(); ++d) {
    CoverDevice& dev = prob.devices[d];
    for (std::size_t i = 0; i < chosen.size(); ++i)
      if (fraction[chosen[i]][d] > dev.in_sample) {
        dev.in_sample = fraction[chosen[i]][d];
        dev.in_sample_via = i;
      }
    if (dev.in_sample_via) {
      dev.in_sample_ms = *prob.chosen[*dev.in_sample_via].ms[d];
      ++prob.chosen[*dev.in_sample_via].best_on;
    }
    prob.worst_in_sample = std::min(prob.worst_in_sample, dev.in_sample);
    if (sides.size() < 2) continue;
    // Leave this device out: the set the others choose, scored here.
    std::vector<std::size_t> others;
    for (std::size_t o = 0; o < sides.size(); ++o)
      if (o != d) others.push_back(o);
    double got = 0;
    for (const std::size_t c : choose_set(fraction, others, k).rows) {
      dev.leave_one_out_set.push_back(configs.at(keys[c]));
      if (fraction[c][d] > got) {
        got = fraction[c][d];
        dev.leave_one_out_ms = sides[d].ms.at(keys[c]);
      }
    }
    dev.leave_one_out = got;
    prob.worst_leave_one_out = std::min(prob.worst_leave_one_out.value_or(1.0), got);
  }
}

// The covering problem of one group of paired problems; nullopt when nothing passed on any of its devices.
std::optional<CoverProblem> cover_group(const std::string& key, const std::map<std::string, std::string>& members,
                                        const std::map<std::string, DeviceRows>& devices, const CoverOptions& opt,
                                        bool one_each, const std::map<std::string, std::size_t>& family_rank,
                                        CoverResult& out) {
  const Objective objective = opt.objective == CoverObjective::writer ? Objective::writer : Objective::time;
  std::map<std::string, CoverConfig> configs;
  const std::vector<Side> sides = sides_of(members, devices, objective, one_each, family_rank, out, configs);
  if (sides.empty()) return std::nullopt;
  check_same_parameters(sides);
  CoverProblem prob;
  for (const auto& entry : configs) {
    const std::string& k = entry.first;
    if (std::all_of(sides.begin(), sides.end(), [&](const Side& s) { return s.stored.count(k) > 0; })) ++prob.shared;
  }
  if (sides.size() > 1 && prob.shared == 0) {
    std::vector<std::string> names;
    for (const Side& s : sides) names.push_back(device_words(*s.rows));
    throw UsageError(
        fmt::format("cover: no configuration is stored on every device ({}): they share no "
                    "configuration{}; are the families one kernel?",
                    fmt::join(names, ", "),
                    out.variant_in_key ? " (a family holds several variants, so variants match by name)" : ""));
  }
  // Candidates: every configuration that passed on some device, in key order.
  std::vector<std::string> keys;
  for (const auto& entry : configs) {
    const std::string& k = entry.first;
    if (std::any_of(sides.begin(), sides.end(), [&](const Side& s) { return s.ms.count(k) > 0; })) keys.push_back(k);
  }
  prob.candidates = keys.size();
  const std::vector<std::vector<double>> fraction = fractions(sides, keys, configs, prob);
  choose_and_score(fraction, sides, keys, configs, opt.k, prob);
  if (one_each) {
    std::set<std::string> labels;
    for (const CoverDevice& d : prob.devices) labels.insert(d.problem.label());
    prob.label = fmt::format("{}", fmt::join(labels, "; "));
  } else {
    prob.label = opt.families.size() > 1 ? key : prob.devices.front().problem.label();
  }
  return prob;
}

CoverResult match_and_choose(const std::vector<CoverSource>& sources, const CoverOptions& opt) {
  if (opt.k < 1) throw UsageError("cover: --max-configs: at least 1 configuration");
  if (opt.families.empty()) throw UsageError("cover: --family: give the kernel's family (repeatable)");
  CoverResult out;
  out.families = opt.families;
  out.k = opt.k;
  out.objective = opt.objective;
  const Collected got = collect_devices(sources, opt, out);
  const std::map<std::string, DeviceRows>& devices = got.devices;
  out.variant_in_key =
      std::any_of(got.variants_of.begin(), got.variants_of.end(), [](const auto& v) { return v.second.size() > 1; });

  // Problems: one per device pairs them all; else by identity (one family) or by size and channels (several, whose
  // problems' attributes are each writer's own).
  const bool one_each =
      std::all_of(devices.begin(), devices.end(), [](const auto& d) { return d.second.problems.size() == 1; });
  const bool several = opt.families.size() > 1;
  out.pairing = one_each  ? "each device holds one problem of the kernel: they are paired as one problem"
                : several ? "problems of different families are paired by size and channels"
                          : "problems are paired by their identity";
  auto problem_key = [&](const Problem& p) {
    if (one_each) return std::string();
    return several ? fmt::format("{} c{}", p.size(), p.channels) : p.canonical();
  };
  // key -> device id -> the device's problem (canonical) of that key
  std::map<std::string, std::map<std::string, std::string>> groups;
  for (const auto& [id, d] : devices)
    for (const auto& [canon, p] : d.problems) {
      auto [it, added] = groups[problem_key(p)].try_emplace(id, canon);
      if (!added)
        throw UsageError(
            fmt::format("cover: {} holds several problems of {} ({} and {}): with several families, "
                        "problems are paired by size and channels; give the families one problem each",
                        device_words(d), problem_key(p), d.problems.at(it->second).label(), p.label()));
    }

  std::size_t family_order = 0;
  std::map<std::string, std::size_t> family_rank;
  for (const std::string& fam : opt.families) family_rank.try_emplace(fam, family_order++);
  for (const auto& [key, members] : groups)
    if (std::optional<CoverProblem> prob = cover_group(key, members, devices, opt, one_each, family_rank, out))
      out.problems.push_back(std::move(*prob));
  if (out.problems.empty())
    throw UsageError(fmt::format("cover: no configuration of {} passed on any device", fmt::join(opt.families, ", ")));
  return out;
}

}  // namespace cover_select

CoverSet select_cover(const std::vector<std::vector<double>>& fraction, const std::vector<std::size_t>& devices,
                      std::size_t k) {
  return cover_select::choose_set(fraction, devices, k);
}

CoverResult cover(const std::vector<CoverSource>& sources, const CoverOptions& options) {
  return cover_select::match_and_choose(sources, options);
}

std::string cover_alias(std::size_t rank) { return fmt::format("cover[{}]", rank); }

}  // namespace pimg
