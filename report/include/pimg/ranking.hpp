// Who wins one (problem, device) (decide(), pimg/decision.hpp), by how much over each baseline, and how likely
// the answer is: what `best`, `best --json`, the exports and the report all print.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "pimg/decision.hpp"
#include "pimg/store.hpp"
#include "pimg/win_probability.hpp"

namespace pimg {

struct BaselineRatio {
  const ResultRow* row = nullptr;  // the baseline's fastest ok row (confirmation stage when it has one)
  double ratio = 0;                // baseline median / winner median: above 1 the winner is faster
  // The ratio as the confirmation's sessions (fresh processes or contexts) saw it: the baseline's fastest session
  // median over the winner's slowest, and its slowest over the winner's fastest. Set where both rows store
  // session medians (session_medians()). A library that runs at several levels by process (NPP's 5x5 filter on
  // three channels at 1024x1024 on the H200: 0.015-0.025 ms by session, bench/results/2026-12-01-h200-wide-conv)
  // gives a ratio no single number reproduces; the range says how far it reaches.
  std::optional<std::pair<double, double>> session_range;
};

// The ratio moved by more than the tool's resolution between the confirmation's sessions (the range's ends more
// than kTieResolution apart): every output gives the range beside the ratio.
bool unsteady(const BaselineRatio& b);
// "2.64x", or "2.64x (2.10-2.75x by session)" where unsteady().
std::string ratio_text(const BaselineRatio& b);

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
  bool loaded = false;  // Decision::loaded: the decision's rows ran while other processes held the CPU
};

// kTieResolution, session_spread() and tied(): pimg/decision.hpp.

// `group`: the rows of one (problem, device), either stage, any status; `problem_baselines`: the rows
// of the problem's baseline variants on every device. Decides by decide(). Returns a Ranking with
// winner == nullptr when nothing is ok.
Ranking rank_group(const std::vector<const ResultRow*>& group, const std::vector<const ResultRow*>& problem_baselines);

// One Ranking per (problem, device) with an ok row, in report order (problem, then device).
std::vector<Ranking> rank_all(const std::vector<ResultRow>& rows);

// What a decision that ran loaded (Ranking::loaded) says beside it, in every output.
inline constexpr const char* kLoadedNote =
    "ran loaded: other processes held the CPU while the deciding rows were measured, and again when they were "
    "measured once more; the order may not hold on an idle machine";

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
