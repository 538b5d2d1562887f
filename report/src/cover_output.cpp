// `pimg-tune cover`'s outputs: the table for people, the JSON object, the shortfalls of --min-fraction, and the
// chosen configurations as rows of alias devices that pimg::best_config() answers.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "metrics.hpp"
#include "pimg/cover.hpp"
#include "table.hpp"

namespace pimg {
namespace cover_text {  // named: the target's unity batches put other files' helpers beside these

using namespace report_detail;

std::string fraction_text(double f) { return fmt::format("{:.3f}", f); }
std::string fraction_text(const std::optional<double>& f) { return f ? fraction_text(*f) : std::string(kDash); }
std::string json_fraction(const std::optional<double>& f) { return f ? fmt::format("{:.6f}", *f) : "null"; }
std::string json_ms(double ms) { return std::isfinite(ms) ? fmt::format("{:.6g}", ms) : "null"; }

const char* objective_name(CoverObjective o) { return o == CoverObjective::writer ? "writer" : "median"; }
const char* objective_words(CoverObjective o) {
  return o == CoverObjective::writer ? "the time each result's writer ranked it by (an imported file's own time; the "
                                       "median of the runs for pimg-tune's rows)"
                                     : "the median of the runs";
}

std::string config_text(const CoverConfig& c) {
  return (c.variant.empty() ? "" : c.variant + " ") + brief_or_dash(c.config);
}

std::string json_cover_config(const CoverConfig& c) {
  return fmt::format("{{\"variant\":{},\"config\":{}}}", c.variant.empty() ? "null" : json_string(c.variant),
                     json_config(c.config));
}

bool below(const CoverDevice& d, double min_fraction) { return !d.leave_one_out || *d.leave_one_out < min_fraction; }

std::vector<std::string> shortfalls(const CoverResult& r, double min_fraction) {
  std::vector<std::string> out;
  for (const CoverProblem& p : r.problems)
    for (const CoverDevice& d : p.devices)
      if (below(d, min_fraction))
        out.push_back(d.leave_one_out
                          ? fmt::format("{} {}", device_label(d.device), fraction_text(d.leave_one_out))
                          : fmt::format("{} (its problem's only device: no leave-one-out)", device_label(d.device)));
  return out;
}

std::string table(const CoverResult& r, std::optional<double> min_fraction) {
  std::string out = fmt::format(
      "cover of {} from {}: at most {} configuration{} per problem\nobjective: {}\nproblems: {}\nconfigurations match "
      "by {}\n",
      fmt::join(r.families, ", "), fmt::join(r.stores, ", "), r.k, r.k == 1 ? "" : "s", objective_words(r.objective),
      r.pairing, r.variant_in_key ? "variant and parameter values" : "parameter values (each family holds one kernel)");
  for (const std::string& n : r.notes) out += "note: " + n + "\n";
  for (const CoverProblem& p : r.problems) {
    out += fmt::format("\n{}\n  {} device{}; {} configurations stored on every one, {} passed on at least one\n",
                       p.label, p.devices.size(), p.devices.size() == 1 ? "" : "s", p.shared, p.candidates);
    out += fmt::format(
        "  worst fraction of a device's optimum: {} in-sample ({}), {} leave-one-device-out\n",
        fraction_text(p.worst_in_sample),
        p.exact ? "the largest any " + std::to_string(r.k) + " configurations give" : "greedy and swaps, a heuristic",
        fraction_text(p.worst_leave_one_out));
    std::vector<Table::Column> cols{
        {"#", Table::Align::right}, {"role"}, {"configuration"}, {"best on", Table::Align::right}};
    for (const CoverDevice& d : p.devices) cols.push_back({d.device.name + " ms", Table::Align::right});
    Table chosen(cols);
    std::size_t hedges = 0;
    for (std::size_t i = 0; i < p.chosen.size(); ++i) {
      hedges += p.chosen[i].hedge;
      std::vector<std::string> row{std::to_string(i + 1), p.chosen[i].hedge ? "hedge" : "core",
                                   config_text(p.chosen[i].config), std::to_string(p.chosen[i].best_on)};
      for (const auto& ms : p.chosen[i].ms) row.push_back(ms ? fmt_ms(*ms) : "failed");
      chosen.add(std::move(row));
    }
    out += fmt::format(
               "\n  chosen configurations: {} core (what these devices need), {} hedge{} (the best on every device "
               "besides, for one not seen)\n",
               p.chosen.size() - hedges, hedges, hedges == 1 ? "" : "s") +
           chosen.text("  ");
    Table devices({{"device"},
                   {"family"},
                   {"valid", Table::Align::right},
                   {"optimum ms", Table::Align::right},
                   {"in-sample", Table::Align::right},
                   {"by", Table::Align::right},
                   {"leave-one-out", Table::Align::right},
                   {"ms", Table::Align::right}});
    for (const CoverDevice& d : p.devices)
      devices.add({device_label(d.device), d.family, fmt::format("{}/{}", d.valid, d.stored), fmt_ms(d.optimum_ms),
                   fraction_text(d.in_sample), d.in_sample_via ? "#" + std::to_string(*d.in_sample_via + 1) : kDash,
                   fraction_text(d.leave_one_out) + (min_fraction && below(d, *min_fraction) ? " (below)" : ""),
                   d.leave_one_out ? fmt_ms(d.leave_one_out_ms) : kDash});
    out += "\n  devices (fraction = optimum / the best time of the set there)\n" + devices.text("  ");
  }
  if (min_fraction) {
    const auto short_of = shortfalls(r, *min_fraction);
    out += short_of.empty()
               ? fmt::format("\nevery device reaches {} of its optimum leave-one-device-out\n", *min_fraction)
               : fmt::format("\nbelow {} leave-one-device-out: {}\n", *min_fraction, fmt::join(short_of, ", "));
  }
  return out;
}

std::string json(const CoverResult& r, std::optional<double> min_fraction) {
  std::vector<std::string> families, stores, notes, problems;
  for (const auto& f : r.families) families.push_back(json_string(f));
  for (const auto& s : r.stores) stores.push_back(json_string(s));
  for (const auto& n : r.notes) notes.push_back(json_string(n));
  for (const CoverProblem& p : r.problems) {
    std::vector<std::string> chosen, devices;
    for (std::size_t i = 0; i < p.chosen.size(); ++i) {
      const CoverChoice& c = p.chosen[i];
      std::vector<std::string> ms;
      for (std::size_t d = 0; d < p.devices.size(); ++d)
        ms.push_back(
            fmt::format("{}:{}", json_string(device_label(p.devices[d].device)), c.ms[d] ? json_ms(*c.ms[d]) : "null"));
      chosen.push_back(
          fmt::format("{{\"rank\":{},\"alias\":{},\"role\":{},\"variant\":{},\"config\":{},\"best_on\":{},"
                      "\"ms\":{{{}}}}}",
                      i + 1, json_string(cover_alias(i + 1)), json_string(c.hedge ? "hedge" : "core"),
                      c.config.variant.empty() ? "null" : json_string(c.config.variant), json_config(c.config.config),
                      c.best_on, fmt::join(ms, ",")));
    }
    for (const CoverDevice& d : p.devices) {
      std::vector<std::string> loo;
      for (const CoverConfig& c : d.leave_one_out_set) loo.push_back(json_cover_config(c));
      devices.push_back(fmt::format(
          "{{\"backend\":{},\"device\":{},\"driver\":{},\"family\":{},\"store\":{},\"problem\":{},\"stored\":{},"
          "\"valid\":{},\"optimum_ms\":{},\"optimum\":{},\"in_sample\":{},\"in_sample_ms\":{},\"in_sample_rank\":{},"
          "\"leave_one_out\":{},\"leave_one_out_ms\":{},\"leave_one_out_set\":[{}]}}",
          json_string(d.device.backend), json_string(d.device.name), json_string(d.device.driver),
          json_string(d.family), json_string(d.store), json_string(d.problem.label()), d.stored, d.valid,
          json_ms(d.optimum_ms), json_cover_config(d.optimum), json_fraction(d.in_sample),
          d.in_sample_via ? json_ms(d.in_sample_ms) : "null",
          d.in_sample_via ? std::to_string(*d.in_sample_via + 1) : "null", json_fraction(d.leave_one_out),
          d.leave_one_out ? json_ms(d.leave_one_out_ms) : "null", fmt::join(loo, ",")));
    }
    problems.push_back(
        fmt::format("\n    {{\"problem\":{},\"shared\":{},\"candidates\":{},\"method\":{},\"worst_in_sample\":{},"
                    "\"worst_leave_one_out\":{},\n     \"chosen\":[\n      {}],\n     \"devices\":[\n      {}]}}",
                    json_string(p.label), p.shared, p.candidates, json_string(p.exact ? "exact" : "greedy"),
                    json_fraction(p.worst_in_sample), json_fraction(p.worst_leave_one_out),
                    fmt::join(chosen, ",\n      "), fmt::join(devices, ",\n      ")));
  }
  std::string check = "null";
  if (min_fraction) {
    std::vector<std::string> short_of;
    for (const auto& s : shortfalls(r, *min_fraction)) short_of.push_back(json_string(s));
    check = fmt::format("{{\"min_fraction\":{},\"passed\":{},\"below\":[{}]}}", *min_fraction,
                        short_of.empty() ? "true" : "false", fmt::join(short_of, ","));
  }
  return fmt::format(
      "{{\n  \"families\":[{}],\n  \"stores\":[{}],\n  \"k\":{},\n  \"objective\":{},\n  \"pairing\":{},\n"
      "  \"match\":{},\n  \"notes\":[{}],\n  \"check\":{},\n  \"problems\":[{}]\n}}\n",
      fmt::join(families, ","), fmt::join(stores, ","), r.k, json_string(objective_name(r.objective)),
      json_string(r.pairing), json_string(r.variant_in_key ? "variant and parameters" : "parameters"),
      fmt::join(notes, ","), check, fmt::join(problems, ","));
}

std::vector<ImportedFile> aliases(const CoverResult& r) {
  std::vector<ImportedFile> out;
  for (const CoverProblem& p : r.problems) {
    for (const std::string& family : r.families) {
      // The family's first device gives the problem and variants the alias rows are stored under.
      auto d =
          std::find_if(p.devices.begin(), p.devices.end(), [&](const CoverDevice& x) { return x.family == family; });
      if (d == p.devices.end()) continue;
      ImportedFile f;
      f.path = "cover";
      f.format = "cover";
      for (std::size_t i = 0; i < p.chosen.size(); ++i) {
        const CoverChoice& c = p.chosen[i];
        auto v = std::find_if(d->variants.begin(), d->variants.end(), [&](const VariantKey& k) {
          return c.config.variant.empty() || k.name == c.config.variant;
        });
        if (v == d->variants.end()) continue;  // a variant this family does not tune
        ImportedEntry e;
        e.device.backend = v->backend;
        e.device.name = cover_alias(i + 1);
        e.device.platform = kCoverPlatform;
        e.problem = d->problem;
        e.cost = d->cost;
        e.variant = *v;
        e.config = c.config.config;
        EvalResult& res = e.result;
        res.status = Status::ok;
        for (const auto& ms : c.ms)
          if (ms) res.kernel_ms.push_back(*ms);
        res.kernel = Stats::of(res.kernel_ms);
        res.method = "cover";
        res.validation = "cover: chosen from the stored results of other devices, not measured under this name";
        res.metrics.push_back({"cover.rank", "", -1, static_cast<double>(i + 1)});
        res.metrics.push_back({"cover.best_on", "devices", -1, static_cast<double>(c.best_on)});
        res.metrics.push_back({"cover.worst_in_sample", "fraction", -1, p.worst_in_sample});
        if (p.worst_leave_one_out)
          res.metrics.push_back({"cover.worst_leave_one_out", "fraction", -1, *p.worst_leave_one_out});
        f.entries.push_back(std::move(e));
      }
      if (f.entries.empty()) continue;
      f.device = f.entries.front().device;
      f.problem = f.entries.front().problem;
      f.variant = f.entries.front().variant;
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace cover_text

std::vector<std::string> cover_shortfalls(const CoverResult& r, double min_fraction) {
  return cover_text::shortfalls(r, min_fraction);
}
std::string cover_table(const CoverResult& r, std::optional<double> min_fraction) {
  return cover_text::table(r, min_fraction);
}
std::string cover_json(const CoverResult& r, std::optional<double> min_fraction) {
  return cover_text::json(r, min_fraction);
}
std::vector<ImportedFile> cover_aliases(const CoverResult& r) { return cover_text::aliases(r); }

}  // namespace pimg
