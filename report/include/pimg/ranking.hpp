// Who wins one (problem, device), by how much over each baseline, and which configurations are tied
// with the winner: the one decision `best`, `best --json`, the exports and the report all print.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "pimg/store.hpp"
#include "pimg/win_probability.hpp"

namespace pimg {

struct BaselineRatio {
  const ResultRow* row = nullptr;  // the baseline's fastest ok row (confirmation stage when it has one)
  double ratio = 0;                // baseline median / winner median: above 1 the winner is faster
};

struct Ranking {
  Problem problem;
  DeviceInfo device;
  bool confirmed = false;                // decided by confirmation-stage rows (stage "confirm")
  std::vector<const ResultRow*> ranked;  // the ok rows it decided from, fastest median first
  const ResultRow* winner = nullptr;     // the fastest tuned row (the fastest baseline where none was tuned)
  std::vector<const ResultRow*> ties;    // ranked rows tied with the winner (tied())
  std::vector<BaselineRatio> baselines;  // every baseline of the problem, on any device
  std::string method;                    // the winner's timing method ("" for old rows)
  // The probability of the answer (pimg/win_probability.hpp): the winner's among the confirmed rows it was
  // chosen from (the tuned ones; every one where none is tuned), its ties among them. nullopt where the
  // ranking is the search's or a candidate's samples were not read (Store::ranking_rows reads them).
  std::optional<WinProbability> probability;
};

// The tool's resolution: two medians closer than this (relative) are not told apart, whatever their
// intervals say. A row's interval holds the noise of its own process only; one run's winner measured
// up to 1.1% (one H100) and 2.8% (two H100s) slower than the other run's winner in the other run
// (scripts/reproduce.py on bench/results/2026-11-24-h100-reproduce; docs/measurement.md), so an order
// within 2% does not reproduce from one run to the next.
inline constexpr double kTieResolution = 0.02;

// Both rows carry a confidence interval and the intervals overlap, or their medians are within
// kTieResolution of each other. Rows without an interval (stored before schema 5) are never tied.
bool tied(const ResultRow& a, const ResultRow& b);

// `group`: the rows of one (problem, device), either stage, any status; `problem_baselines`: the rows
// of the problem's baseline variants on every device. Prefers confirmation rows when the group has
// an ok one. Returns a Ranking with winner == nullptr when nothing is ok.
Ranking rank_group(const std::vector<const ResultRow*>& group, const std::vector<const ResultRow*>& problem_baselines);

// One Ranking per (problem, device) with an ok row, in report order (problem, then device).
std::vector<Ranking> rank_all(const std::vector<ResultRow>& rows);

// The probability in words: "P(fastest) 0.97, with ties 1.00 (bootstrap of 480 samples of 5 confirmed
// configurations)", or "P(fastest) n/a (...)" saying why there is none.
std::string probability_text(const Ranking& k);
// The same in a table cell: "0.97 [1.00]", a dash where there is none.
std::string probability_cell(const Ranking& k);
// The same as JSON members (`best --json`, `export`): "p_fastest":0.9735,"p_fastest_or_tied":1.0000,
// "p_bootstrap":{"candidates":5,"samples":480,"resamples":2000}; each null where there is none.
std::string probability_json(const Ranking& k);

// "0.0753 ms [0.0749, 0.0757]": the median with its interval when stored.
std::string time_with_interval(const ResultRow& r);

}  // namespace pimg
