// `pimg-tune t1 FILE`: tune a kernel described by a T1 file (docs/tune-your-own-kernel.md): its
// space and geometry from the file, its source read now, its reference from the file's reference
// arguments or, without them, the output of its default configuration (computed first, on the first device).
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pimg/registry.hpp"

namespace pimg::cli {

class T1Command {
 public:
  explicit T1Command(CLI::App& app);
  bool parsed() const { return cmd_->parsed(); }
  int run(Registry& reg, const std::string& command_line);

 private:
  CLI::App* cmd_;
  std::string file_, db_ = "pimg-tune.db", problem_size_, strategy_;
  std::optional<std::int64_t> budget_;
  std::optional<std::uint64_t> seed_;
  std::vector<std::string> sets_;
  std::vector<std::string> backends_, devices_;
  std::optional<int> repeats_;
  std::optional<double> timeout_s_;
  bool no_resume_ = false, no_isolation_ = false, quiet_ = false, check_ = false, transfer_ = false;
  int top_ = 5;
};

}  // namespace pimg::cli
