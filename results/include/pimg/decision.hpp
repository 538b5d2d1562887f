// The one decision of which stored configuration is fastest for one (problem, device), and which are tied with
// it. `best`, `best --json`, the exports, the report, the end of every tuning command (pimg/ranking.hpp) and the
// run-time lookup best_config() (pimg/best_config.hpp, pimg/lookup.hpp) all decide through decide().
#pragma once
#include <vector>

#include "pimg/store.hpp"

namespace pimg {

// The tool's resolution: two medians closer than this (relative) are not told apart, whatever their
// intervals say. A row's interval holds the noise of its own process only; one run's winner measured
// up to 1.1% (one H100) and 2.8% (two H100s) slower than the other run's winner in the other run
// (scripts/reproduce.py on bench/results/2026-11-24-h100-reproduce; docs/measurement.md), so an order
// within 2% does not reproduce from one run to the next.
inline constexpr double kTieResolution = 0.02;

// The row carries a confidence interval of its median (rows stored before schema 5 do not).
bool has_interval(const ResultRow& r);

// How far a confirmed row's median moved between the confirmation stage's sessions (fresh processes or
// contexts): `confirm.session_spread`, largest session median over smallest minus one; 0 where not stored.
double session_spread(const ResultRow& r);
// Each session's own median of a confirmed row (`confirm.session_median_ms`, in session order); empty where the
// row was measured in fewer than two sessions or stores none.
std::vector<double> session_medians(const ResultRow& r);

// Both rows carry a confidence interval and the intervals overlap, or their medians are within
// kTieResolution of each other, or within the session spread of either: an order closer than a row's own median
// moved from one process to the next does not reproduce from one run to the next (on the 2-core CPU OpenMP
// medians moved 6-18% between the stage's two processes, a PoCL one 34%, with intervals of a few percent in each;
// on the H200 past 2% only for kernels of a few microseconds). Rows without an interval (stored before schema 5) are
// never tied.
bool tied(const ResultRow& a, const ResultRow& b);

// Problems order by family, channels, attributes, then pixel count, width and height, so a size
// sweep reads from small to large.
bool problem_less(const Problem& a, const Problem& b);
struct ProblemLess {
  bool operator()(const Problem& a, const Problem& b) const { return problem_less(a, b); }
};
// A total order of rows (family, problem, device, variant, configuration, id): inputs in any order give the
// same answer.
bool row_less(const ResultRow& a, const ResultRow& b);
// Ranking: median time, then row_less, so ties always break the same way.
bool rank_less(const ResultRow& a, const ResultRow& b);

struct Decision {
  bool confirmed = false;                // decided by confirmation-stage rows (stage "confirm")
  std::vector<const ResultRow*> ranked;  // the ok rows it decided from, fastest median first
  const ResultRow* winner = nullptr;     // the fastest tuned row (the fastest baseline where none was tuned)
  std::vector<const ResultRow*> ties;    // ranked rows tied with the winner (tied())
  // The decision ran loaded: the winner, a row tied with it or the closest row it beat carries the flag "loaded"
  // (other processes held the CPU while it was measured, and stayed when it was measured again): an order taken
  // then may not hold on an idle machine, and every output says so.
  bool loaded = false;
};

// `group`: the rows of one (problem, device), either stage, any status, baselines included. The ok rows of the
// confirmation stage of the latest run that stored any decide (one interleaved series; rows of two runs' stages
// were measured apart), else the search rows. winner == nullptr when nothing is ok.
Decision decide(const std::vector<const ResultRow*>& group);

}  // namespace pimg
