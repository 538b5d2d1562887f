// `pimg-tune compare`: two sets of stored rows (two databases, two runs, or two devices) matched per
// (problem, variant, configuration): both medians, their ratio and whether the difference is
// significant by a two-sided Mann-Whitney U test over the raw samples (as Google Benchmark's
// compare.py decides), with the geometric mean of the ratios as the summary.
#pragma once
#include <string>
#include <vector>

#include "pimg/store.hpp"

namespace pimg {

// Two-sided p-value of the Mann-Whitney U test: exact when both samples have at most 50 values and no
// ties, else the normal approximation with tie and continuity corrections. 1 when either is empty.
double mann_whitney_p(const std::vector<double>& x, const std::vector<double>& y);

struct ComparedPair {
  std::string family, problem, device, variant, config;  // the matching key, as labels
  ResultRow a, b;       // copies: a comparison outlives the rows it was made from
  double ratio = 0;     // b median / a median: below 1 b is faster
  double p_value = 1;   // over the raw kernel samples
  bool significant = false;
};

struct Comparison {
  std::string label_a, label_b;   // what was compared ("run 3", "old.db", "cuda:NVIDIA H100")
  double alpha = 0.05;
  std::vector<ComparedPair> pairs;  // ok on both sides, in key order
  std::size_t only_a = 0, only_b = 0, failed = 0;  // keys on one side only; keys not ok on both sides
  double geomean_ratio = 1;         // over pairs
  std::size_t faster = 0, slower = 0;  // significant pairs with ratio below / above 1
};

// `match_device`: the device is part of the key (databases, runs); false to compare two devices.
Comparison compare_rows(const std::vector<ResultRow>& a, const std::vector<ResultRow>& b, std::string label_a,
                        std::string label_b, bool match_device, double alpha = 0.05);
std::string compare_markdown(const Comparison& c);
std::string compare_json(const Comparison& c);

}  // namespace pimg
