// `pimg-tune strategies`: every search strategy replayed on stored results (no device): the evaluations each needs
// to reach the optimum, over seeds and budgets, by the objective the results' writer ranked by; or one strategy's
// options meta-tuned over a grid (docs/strategies.md). The store is opened read-only.
#pragma once
#include <CLI/CLI.hpp>
#include <cstddef>
#include <string>
#include <vector>

#include "pimg/registry.hpp"

namespace pimg::cli {

class StrategiesCommand {
 public:
  StrategiesCommand(CLI::App& app, const std::string& default_db, const std::string& device_help);
  bool parsed() const { return cmd_->parsed(); }
  // Prints the tables (or JSON) and writes --report; returns 0. Throws UsageError for bad input.
  int run(const Registry& reg) const;

 private:
  CLI::App* cmd_;
  std::string db_, family_, device_, size_, report_, meta_strategy_, objective_ = "writer";
  std::size_t seeds_ = 50, first_seed_ = 1, max_evals_ = 0;
  std::vector<std::string> names_, options_, meta_grid_;
  bool json_ = false, transfer_ = false;
};

}  // namespace pimg::cli
