// What every view of the store computes alike: device keys and labels, baselines, the bandwidth
// match, a row's throughput metrics, the order of problems and of ranked rows, the ranked groups
// of `best`, and the fixed number formats all outputs print with.
#pragma once
#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pimg/decision.hpp"
#include "pimg/store.hpp"

namespace pimg::report_detail {

inline constexpr const char* kDash = "\u2013";  // an unknown or absent value

struct DeviceKey {
  std::string backend, name, driver;
  auto operator<=>(const DeviceKey&) const = default;
};
DeviceKey device_key(const DeviceInfo& d);
std::string device_label(const DeviceInfo& d);  // backend:name

// Baselines: the serial reference and library implementations (OpenCV, NPP), as the variant says.
bool is_baseline(const VariantKey& v);
bool is_serial(const VariantKey& v);
std::string variant_label(const VariantKey& v);  // the name, with " (baseline)" for baselines

// Measured bandwidth ceilings of each device, matched by backend, name and driver.
class BandwidthTable {
 public:
  explicit BandwidthTable(const std::vector<BandwidthRow>& rows);
  std::optional<double> gbs(const DeviceInfo& d) const;  // the device's highest copy ceiling
  // A row's ceiling (docs/measurement.md, "The bandwidth ceiling"): from its own run where that run measured one,
  // the copy at the working set closest to half the problem's least traffic (a copy reads and writes), kind "copy";
  // for a problem that writes next to nothing, its reads at the read ceiling of the bytes it reads and its writes at
  // a copy's cost beyond a read, kind "read".
  struct Ceiling {
    double gbs;
    const char* kind;
  };
  std::optional<Ceiling> ceiling_for(const ResultRow& r) const;
  // The ceilings of the device's latest run that measured one, by working-set size: what the report lists with the
  // copy that set each.
  std::vector<BandwidthRow> latest(const DeviceInfo& d) const;

 private:
  const BandwidthRow* nearest(const ResultRow& r, const std::string& kind, double want) const;
  std::map<DeviceKey, double> gbs_;
  std::map<DeviceKey, std::vector<BandwidthRow>> rows_;
};

struct Metrics {
  double median_ms = 0, min_ms = 0, stddev_ms = 0;
  std::optional<double> rate;           // millions of cost.unit items per second (MPix/s)
  std::optional<double> gbs;            // minimum traffic per second / 1e9
  std::optional<double> bandwidth_pct;  // gbs / the row's measured ceiling (BandwidthTable::ceiling_for) * 100
  const char* ceiling = nullptr;        // that ceiling's kind, "copy" or "read"
};
Metrics metrics_of(const ResultRow& r, const BandwidthTable& bw);
std::string unit_of(const ResultRow& r);  // cost.unit, "MPix/s" when none is stored

// problem_less, ProblemLess, row_less and rank_less: pimg/decision.hpp.
// The order of (problem, device) groups: by problem_less, then by device.
struct ProblemDeviceLess {
  bool operator()(const std::pair<Problem, DeviceKey>& a, const std::pair<Problem, DeviceKey>& b) const {
    if (problem_less(a.first, b.first)) return true;
    if (problem_less(b.first, a.first)) return false;
    return a.second < b.second;
  }
};
// A total order of rows (family, problem, device, variant, configuration, id): inputs in any
// order give the same report.
std::vector<const ResultRow*> sorted_rows(const std::vector<ResultRow>& rows);

// The ok rows of one problem on one device, ranked.
struct RankedGroup {
  Problem problem;
  DeviceInfo device;
  std::vector<const ResultRow*> rows;
};
std::vector<RankedGroup> ranked_groups(const std::vector<ResultRow>& rows);

// Seconds since the epoch of an ISO 8601 UTC time ("2026-11-24T12:00:00.123Z"); nullopt if malformed.
std::optional<double> iso_epoch(const std::string& iso);

std::string fmt_ms(double ms);  // 4 significant digits below 1 ms, then 3 and 1 decimals
// Images a problem's run computes: its `batch` attribute (conv's images in one launch), else 1. A report
// gives such a problem's times per image too (time / batch).
int images_of(const Problem& p);
std::string fmt_rate(const std::optional<double>& v);
std::string fmt_gbs(const std::optional<double>& v);
std::string fmt_pct(const std::optional<double>& v);
std::string fmt_speedup(double x);
std::string fmt_bytes(std::uint64_t bytes);
std::string brief_or_dash(const Config& c);
std::string slug(std::string_view s);         // lower-case letters and digits, runs of others as one '-'
// A generated file's name stem kept well inside NAME_MAX (255 bytes): a long one is cut and ends in a
// hash of the whole, so distinct long names stay distinct.
std::string bounded_stem(const std::string& stem);
std::string json_string(std::string_view s);  // a quoted, escaped JSON string
std::string json_value(const Value& v);       // a number, or a quoted string
std::string json_config(const Config& c);     // {"name":value,...}, names in order

}  // namespace pimg::report_detail

namespace pimg::report_detail {

// Short problem labels: what every problem shares (family, channels, attributes) is said once in
// `shared`; each label names only the size and what differs ("1024x1024 filter=box3").
class ProblemLabels {
 public:
  explicit ProblemLabels(const std::vector<const ResultRow*>& rows);
  std::string label(const Problem& p) const;
  // Only the size and the fewest attributes that tell the problems apart ("1024x1024 filter=box3").
  std::string brief(const Problem& p) const;
  const std::string& shared() const { return shared_; }

 private:
  void choose_brief(const std::vector<const ResultRow*>& rows);
  bool same_channels_ = true;
  std::set<std::string> brief_;  // attribute names ("c" for channels) the brief labels show
  std::map<std::string, std::string> common_;
  std::string shared_;
};

// The anchor GitHub gives a heading: lower case, punctuation other than '-' and '_' dropped, spaces
// as '-' (the report's contents link to them; the HTML page uses them as ids).
std::string gfm_anchor(std::string_view heading);

// Rows of the search stage only (the confirmation stage re-measures a few of them).
std::vector<ResultRow> search_rows(const std::vector<ResultRow>& rows);

}  // namespace pimg::report_detail
