// Row metrics, orders and number formats shared by the markdown report and the `best` outputs.
#include "metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <set>
#include <tuple>

namespace pimg::report_detail {

std::optional<double> iso_epoch(const std::string& iso) {
  std::tm tm{};
  int year = 0, month = 0;
  double sec = 0;
  if (std::sscanf(iso.c_str(), "%d-%d-%dT%d:%d:%lf", &year, &month, &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &sec) != 6)
    return std::nullopt;
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_sec = 0;
  return static_cast<double>(timegm(&tm)) + sec;
}

DeviceKey device_key(const DeviceInfo& d) { return {d.backend, d.name, d.driver}; }

std::string device_label(const DeviceInfo& d) { return d.backend + ":" + d.name; }

bool is_baseline(const VariantKey& v) { return v.baseline; }

bool is_serial(const VariantKey& v) { return is_baseline(v) && v.name == "serial"; }

std::string variant_label(const VariantKey& v) { return is_baseline(v) ? v.name + " (baseline)" : v.name; }

BandwidthTable::BandwidthTable(const std::vector<BandwidthRow>& rows) {
  for (const auto& r : rows) {
    if (!(r.gbs > 0) || !std::isfinite(r.gbs)) continue;
    rows_[device_key(r.device)].push_back(r);
    if (r.kind != "copy") continue;
    auto [it, inserted] = gbs_.emplace(device_key(r.device), r.gbs);
    if (!inserted) it->second = std::max(it->second, r.gbs);
  }
}

// The ceiling of `kind` nearest `want` bytes, from the row's own run where that run measured one of the kind.
const BandwidthRow* BandwidthTable::nearest(const ResultRow& r, const std::string& kind, double want) const {
  auto it = rows_.find(device_key(r.device));
  if (it == rows_.end()) return nullptr;
  const bool own_run = std::any_of(it->second.begin(), it->second.end(), [&](const BandwidthRow& b) {
    return b.kind == kind && b.run_id != 0 && b.run_id == r.run_id;
  });
  const BandwidthRow* best = nullptr;
  for (const BandwidthRow& b : it->second) {
    if (b.kind != kind || (own_run && b.run_id != r.run_id)) continue;
    const auto distance = [&](const BandwidthRow& x) { return std::abs(std::log(x.bytes / std::max(want, 1.0))); };
    if (!best || distance(b) < distance(*best) || (distance(b) == distance(*best) && b.run_id >= best->run_id))
      best = &b;
  }
  return best;
}

std::optional<BandwidthTable::Ceiling> BandwidthTable::ceiling_for(const ResultRow& r) const {
  const Traffic& t = r.cost.traffic;
  const BandwidthRow* copy = nearest(r, "copy", t.bytes / 2);
  if (!copy) return std::nullopt;
  // A kernel that writes next to nothing: its reads at the read ceiling of the bytes it reads, and its few writes
  // at what a copy's byte costs beyond its read (docs/measurement.md, "The bandwidth ceiling"). Only there: between
  // a read and a copy the cost of a byte is no straight line (a 2x2 max-pool, 4 bytes read per byte written, ran
  // 0.5-1.5% faster than such a line on the H200), so every other kernel keeps the copy's.
  if (!t.mostly_read()) return Ceiling{copy->gbs, "copy"};
  const BandwidthRow* read = nearest(r, "read", t.read());
  if (!read) return Ceiling{copy->gbs, "copy"};
  const double per_read = 1 / read->gbs, per_write = std::max(2 / copy->gbs - per_read, 0.0);
  return Ceiling{t.bytes / (t.read() * per_read + *t.written * per_write), "read"};
}

std::vector<BandwidthRow> BandwidthTable::latest(const DeviceInfo& d) const {
  auto it = rows_.find(device_key(d));
  if (it == rows_.end()) return {};
  std::int64_t run = 0;
  for (const BandwidthRow& b : it->second) run = std::max(run, b.run_id);
  std::vector<BandwidthRow> out;
  for (const BandwidthRow& b : it->second)
    if (b.run_id == run) out.push_back(b);
  std::sort(out.begin(), out.end(), [](const BandwidthRow& a, const BandwidthRow& b) { return a.bytes < b.bytes; });
  return out;
}

std::optional<double> BandwidthTable::gbs(const DeviceInfo& d) const {
  auto it = gbs_.find(device_key(d));
  if (it == gbs_.end()) return std::nullopt;
  return it->second;
}

Metrics metrics_of(const ResultRow& r, const BandwidthTable& bw) {
  Metrics m;
  m.median_ms = r.result.kernel.median;
  m.min_ms = r.result.kernel.min;
  m.stddev_ms = r.result.kernel.stddev;
  if (!(m.median_ms > 0) || !std::isfinite(m.median_ms)) return m;
  const double seconds = m.median_ms * 1e-3;
  if (r.cost.work > 0) m.rate = r.cost.work / seconds / 1e6;
  if (r.cost.traffic.bytes > 0) {
    m.gbs = r.cost.traffic.bytes / seconds / 1e9;
    if (const auto c = bw.ceiling_for(r)) {
      m.bandwidth_pct = *m.gbs / c->gbs * 100;
      m.ceiling = c->kind;
    }
  }
  return m;
}

std::string unit_of(const ResultRow& r) { return r.cost.unit.empty() ? "MPix/s" : r.cost.unit; }

std::vector<const ResultRow*> sorted_rows(const std::vector<ResultRow>& rows) {
  std::vector<const ResultRow*> out;
  out.reserve(rows.size());
  for (const auto& r : rows) out.push_back(&r);
  std::stable_sort(out.begin(), out.end(), [](const ResultRow* a, const ResultRow* b) { return row_less(*a, *b); });
  return out;
}

std::vector<RankedGroup> ranked_groups(const std::vector<ResultRow>& rows) {
  std::map<std::pair<Problem, DeviceKey>, RankedGroup, ProblemDeviceLess> groups;
  for (const ResultRow* r : sorted_rows(rows)) {
    if (r->result.status != Status::ok) continue;
    RankedGroup& g = groups[{r->problem, device_key(r->device)}];
    if (g.rows.empty()) {
      g.problem = r->problem;
      g.device = r->device;
    }
    g.rows.push_back(r);
  }
  std::vector<RankedGroup> out;
  for (auto& [key, g] : groups) {
    std::stable_sort(g.rows.begin(), g.rows.end(),
                     [](const ResultRow* a, const ResultRow* b) { return rank_less(*a, *b); });
    out.push_back(std::move(g));
  }
  return out;
}

int images_of(const Problem& p) {
  const auto it = p.attrs.find("batch");
  if (it == p.attrs.end()) return 1;
  int n = 0;
  const auto [ptr, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), n);
  return ec == std::errc() && ptr == it->second.data() + it->second.size() && n > 1 ? n : 1;
}

std::string fmt_ms(double ms) {
  if (!std::isfinite(ms) || ms < 0) return kDash;
  if (ms >= 100) return fmt::format("{:.1f}", ms);
  if (ms >= 1) return fmt::format("{:.3f}", ms);
  if (ms == 0) return "0";
  const int decimals = std::min(9, 3 - static_cast<int>(std::floor(std::log10(ms))));
  return fmt::format("{:.{}f}", ms, decimals);
}

std::string fmt_rate(const std::optional<double>& v) { return v ? fmt::format("{:.1f}", *v) : kDash; }

std::string fmt_gbs(const std::optional<double>& v) { return v ? fmt::format("{:.2f}", *v) : kDash; }

// Above 100% of the copy ceiling: an error for a kernel that writes as much as it reads, possible for one that
// reads more than it writes, whose bytes are cheaper than a copy's (docs/measurement.md, "The bandwidth ceiling";
// the report's "How to read this" says so once).
std::string fmt_pct(const std::optional<double>& v) {
  if (!v) return kDash;
  return *v > 100 ? fmt::format("{:.1f}% (over the copy)", *v) : fmt::format("{:.1f}%", *v);
}

std::string fmt_speedup(double x) {
  if (!std::isfinite(x) || !(x > 0)) return kDash;
  if (x >= 100) return fmt::format("{:.0f}x", x);
  if (x >= 10) return fmt::format("{:.1f}x", x);
  if (x >= 0.1) return fmt::format("{:.2f}x", x);
  return fmt::format("{:.2g}x", x);  // a slower "winner" keeps two significant digits
}

std::string fmt_bytes(std::uint64_t bytes) {
  if (bytes == 0) return kDash;
  return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
}

std::string brief_or_dash(const Config& c) { return c.empty() ? kDash : c.brief(); }

std::string slug(std::string_view s) {
  std::string out;
  for (char c : s) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (alnum)
      out += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::string bounded_stem(const std::string& stem) {
  constexpr std::size_t kMaxStem = 160;  // room for "-N.svg" and a prefix directory's own limits
  if (stem.size() <= kMaxStem) return stem;
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (const char c : stem) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return fmt::format("{}-{:016x}", stem.substr(0, kMaxStem - 17), h);
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          out += fmt::format("\\u{:04x}", static_cast<int>(c));
        else
          out += c;
    }
  }
  return out + "\"";
}

std::string json_value(const Value& v) {
  if (const auto* n = std::get_if<std::int64_t>(&v)) return std::to_string(*n);
  return json_string(std::get<std::string>(v));
}

std::string json_config(const Config& c) {
  std::string out;
  for (const auto& [k, v] : c.values()) out += fmt::format("{}{}:{}", out.empty() ? "" : ",", json_string(k), json_value(v));
  return "{" + out + "}";
}

}  // namespace pimg::report_detail

namespace pimg::report_detail {

ProblemLabels::ProblemLabels(const std::vector<const ResultRow*>& rows) {
  std::optional<int> channels;
  std::map<std::string, std::set<std::string>> values;
  std::map<std::string, std::size_t> present;
  std::set<std::string> families;
  std::size_t n = 0;
  for (const ResultRow* r : rows) {
    ++n;
    families.insert(r->problem.family);
    if (channels && *channels != r->problem.channels) same_channels_ = false;
    channels = r->problem.channels;
    for (const auto& [k, v] : r->problem.attrs) {
      values[k].insert(v);
      ++present[k];
    }
  }
  for (const auto& [k, vs] : values)
    if (vs.size() == 1 && present[k] == n) common_[k] = *vs.begin();
  if (families.size() == 1) shared_ = *families.begin();
  if (channels && same_channels_) shared_ += fmt::format("{}c{}", shared_.empty() ? "" : " ", *channels);
  for (const auto& [k, v] : common_) shared_ += fmt::format("{}{}={}", shared_.empty() ? "" : " ", k, v);
  choose_brief(rows);
}

// The fewest differing attributes that still tell the problems apart (sizes aside), chosen greedily:
// the attribute that splits the most groups first, the shorter text on ties.
void ProblemLabels::choose_brief(const std::vector<const ResultRow*>& rows) {
  std::vector<std::map<std::string, std::string>> kinds;
  for (const ResultRow* r : rows) {
    std::map<std::string, std::string> k;
    if (!same_channels_) k["c"] = std::to_string(r->problem.channels);
    for (const auto& [a, v] : r->problem.attrs)
      if (!common_.count(a)) k[a] = v;
    if (std::find(kinds.begin(), kinds.end(), k) == kinds.end()) kinds.push_back(std::move(k));
  }
  auto classes = [&](const std::set<std::string>& attrs) {
    std::set<std::vector<std::string>> out;
    for (const auto& k : kinds) {
      std::vector<std::string> key;
      for (const auto& a : attrs) key.push_back(k.count(a) ? k.at(a) : "");
      out.insert(key);
    }
    return out.size();
  };
  std::set<std::string> candidates;
  for (const auto& k : kinds)
    for (const auto& [a, v] : k) candidates.insert(a);
  while (classes(brief_) < kinds.size()) {
    std::string pick;
    std::size_t best = 0, best_len = 0;
    for (const auto& a : candidates) {
      if (brief_.count(a)) continue;
      auto with = brief_;
      with.insert(a);
      std::size_t len = 0;
      for (const auto& k : kinds) len += k.count(a) ? k.at(a).size() : 0;
      const std::size_t n = classes(with);
      if (pick.empty() || n > best || (n == best && len < best_len)) {
        pick = a;
        best = n;
        best_len = len;
      }
    }
    if (pick.empty()) break;
    brief_.insert(pick);
  }
}

std::string ProblemLabels::brief(const Problem& p) const {
  std::string out = p.size();
  if (brief_.count("c")) out += fmt::format(" c{}", p.channels);
  for (const auto& [k, v] : p.attrs)
    if (brief_.count(k)) out += fmt::format(" {}={}", k, v);
  return out;
}

std::string ProblemLabels::label(const Problem& p) const {
  std::string out = p.size();
  if (!same_channels_) out += fmt::format(" c{}", p.channels);
  for (const auto& [k, v] : p.attrs)
    if (!common_.count(k)) out += fmt::format(" {}={}", k, v);
  return out;
}

std::string gfm_anchor(std::string_view heading) {
  std::string out;
  for (char c : heading) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x80 || std::isalnum(u) || c == '-' || c == '_')
      out += static_cast<char>(u < 0x80 ? std::tolower(u) : u);
    else if (c == ' ')
      out += '-';
  }
  return out;
}

std::vector<ResultRow> search_rows(const std::vector<ResultRow>& rows) {
  std::vector<ResultRow> out;
  for (const auto& r : rows)
    if (r.result.stage != "confirm") out.push_back(r);
  return out;
}

}  // namespace pimg::report_detail
