// `pimg-tune compare`: two databases, two runs of one or two devices of one, per configuration (Mann-Whitney U over
// the samples, pimg/compare.hpp). The stores are opened read-only.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "pimg/registry.hpp"

namespace pimg::cli {

class CompareCommand {
 public:
  explicit CompareCommand(CLI::App& app);
  bool parsed() const { return cmd_->parsed(); }
  // Prints the comparison (markdown or JSON); returns 0. Throws UsageError for bad input.
  int run(const Registry& reg) const;

 private:
  CLI::App* cmd_;
  std::vector<std::string> dbs_, devices_;
  std::vector<std::int64_t> runs_;
  std::string family_, size_;
  double alpha_ = 0.05;
  bool json_ = false;
};

}  // namespace pimg::cli
