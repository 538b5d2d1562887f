// Progress of a tuning run: a redrawn bar with ETA and best-so-far on a terminal, plain lines
// otherwise (logs, CI). Failures are printed on their own line either way.
#pragma once
#include <chrono>
#include <cstdio>
#include <string>

#include "pimg/runner.hpp"

namespace pimg::cli {

class Progress final : public RunObserver {
 public:
  explicit Progress(std::FILE* out, bool quiet = false);
  void on_start(std::size_t planned) override;
  void on_message(const std::string& line) override;
  void on_result(const RunEvent& e) override;
  void on_finish() override;

 private:
  void draw(bool force);
  std::FILE* out_;
  bool tty_;
  bool quiet_;
  std::size_t planned_ = 0, done_ = 0, skipped_ = 0, failed_ = 0;
  std::size_t last_plain_ = 0;
  double best_ms_ = 0;
  std::string best_label_;
  std::string current_;  // device and problem of the best-so-far
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

std::string format_duration(double seconds);

}  // namespace pimg::cli
