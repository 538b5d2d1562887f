// `pimg-tune cover`: a covering set to ship. From the stored results of several devices (several stores, several
// families that are one kernel under different names), at most k configurations per problem such that every device
// gets as large a fraction of its own optimum as k configurations can give, checked leave-one-device-out: the set
// chosen without a device, scored on it. A pure function of stored rows (docs/strategies.md, "Covering set").
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "pimg/import.hpp"
#include "pimg/store.hpp"

namespace pimg {

// The rows of one store: its path (named in messages and outputs) and what Store::ranking_rows() gives for the
// families asked, with their metrics (Store::add_metrics: the writer's objective of imported rows is one).
struct CoverSource {
  std::string store;
  std::vector<ResultRow> rows;  // rows of other families and of the alias devices cover_aliases() makes are skipped
};

// What a configuration costs on a device: the time its writer ranked it by (an imported file's own time, the
// median of the runs for pimg-tune's own rows), or the median of the runs for every row; as `best --objective
// writer|time` and `strategies --objective writer|median` rank.
enum class CoverObjective { writer, median };

inline constexpr std::size_t kCoverDefaultK = 4;
// Up to this many devices per problem the worst device's fraction is the exact optimum over every set of k
// configurations (a set cover over the devices per threshold); beyond it, greedy choices and swaps.
inline constexpr std::size_t kCoverExactDevices = 12;

struct CoverOptions {
  std::vector<std::string> families;  // one kernel under the names its stores give it
  std::size_t k = kCoverDefaultK;
  CoverObjective objective = CoverObjective::writer;
};

// One configuration as matched across devices: its parameters, and its variant where that is part of the match
// (empty where every family holds one tuned variant, the one kernel under each writer's name).
struct CoverConfig {
  std::string variant;
  Config config;
  std::string key;  // what matches across devices: variant and canonical parameters
};

struct CoverDevice {
  std::string store, family;
  DeviceInfo device;
  Problem problem;
  ProblemCost cost;
  std::vector<VariantKey> variants;   // the tuned variants of its rows
  std::size_t stored = 0, valid = 0;  // configurations stored, and those that passed with a time
  double optimum_ms = 0;
  CoverConfig optimum;
  double in_sample = 0;     // optimum / the best time among the chosen configurations that passed here (0: none)
  double in_sample_ms = 0;  // that best time
  std::optional<std::size_t> in_sample_via;  // the chosen configuration (CoverProblem::chosen) that gives it
  // The set chosen from the other devices alone, scored here; nullopt where the device is its problem's only one.
  std::optional<double> leave_one_out;
  double leave_one_out_ms = 0;
  std::vector<CoverConfig> leave_one_out_set;
};

struct CoverChoice {
  CoverConfig config;
  bool hedge = false;                     // chosen for a device not seen (CoverSet), no device's best
  std::vector<std::optional<double>> ms;  // per device (CoverProblem::devices): its time, nullopt: failed or absent
  std::size_t best_on = 0;                // devices whose best of the set it is
};

struct CoverProblem {
  std::string label;  // the problem in words: its devices' problems, or the size they share
  std::vector<CoverDevice> devices;
  std::vector<CoverChoice> chosen;
  std::size_t shared = 0;      // configurations stored (any status) on every device
  std::size_t candidates = 0;  // configurations that passed on at least one device
  bool exact = true;           // the worst in-sample fraction is the optimum (<= kCoverExactDevices devices)
  double worst_in_sample = 0;
  std::optional<double> worst_leave_one_out;  // nullopt with a single device
};

struct CoverResult {
  std::vector<std::string> families, stores;
  std::size_t k = kCoverDefaultK;
  CoverObjective objective = CoverObjective::writer;
  std::string pairing;          // how devices' problems were paired, in words
  bool variant_in_key = false;  // configurations match by variant and parameters (else parameters alone)
  std::vector<CoverProblem> problems;
  std::vector<std::string> notes;  // devices left out and why
};

// Matches the sources' rows of the families into problems, devices and configurations and chooses each problem's
// set, with every device's leave-one-out set. Throws UsageError naming what is wrong: a family no source holds, a
// device stored in two sources, parameters stored on some devices only, devices that share no configuration.
CoverResult cover(const std::vector<CoverSource>& sources, const CoverOptions& options);

// The selection alone. `fraction[c][d]`: device d's optimum over configuration c's time there, 0 where c failed or
// was not stored; `devices`: the columns to cover (the others are never read).
struct CoverSet {
  // Row indices of `fraction`, at most k. First the core: the worst device's fraction as large as any k rows give
  // (exact with at most kCoverExactDevices devices, else greedy and swaps), then the mean fraction raised by greedy
  // additions and swaps, rows that are no device's best dropped; ordered by the devices each is best on. Then, where
  // the core leaves room, hedges for a device not seen: the rows whose own worst fraction over the devices is
  // largest (then their mean), none of them a device's best.
  std::vector<std::size_t> rows;
  std::size_t core = 0;  // rows[0, core) are the core, the rest hedges
  bool exact = true;     // the core's worst fraction is the optimum
};
CoverSet select_cover(const std::vector<std::vector<double>>& fraction, const std::vector<std::size_t>& devices,
                      std::size_t k);

// The outputs: a table for people and one JSON object (`--json`). With `min_fraction`, each device's leave-one-out
// fraction is checked against it (`passed`, and the shortfalls named).
std::string cover_table(const CoverResult& r, std::optional<double> min_fraction = std::nullopt);
std::string cover_json(const CoverResult& r, std::optional<double> min_fraction = std::nullopt);
// The devices whose leave-one-out fraction is below `min_fraction`, or unknown (a problem's only device), in words.
std::vector<std::string> cover_shortfalls(const CoverResult& r, double min_fraction);

// The chosen configurations as rows of a store that pimg::best_config() answers (`cover --into DB`): per problem
// and family, configuration i of the set on the alias device "cover[i]" (1-based) of the family's backend, with the
// family's problem and variant; its one run is the median over the devices of its time, its metrics the set's
// worst fractions. A deployment on an unseen device asks best_config for "cover[1]", "cover[2]", ... until none is
// found, times each once and keeps the fastest.
std::vector<ImportedFile> cover_aliases(const CoverResult& r);
std::string cover_alias(std::size_t rank);  // "cover[3]"
// The platform of the alias devices: their rows are never read as a device's own.
inline constexpr const char* kCoverPlatform = "pimg-tune cover";

}  // namespace pimg
