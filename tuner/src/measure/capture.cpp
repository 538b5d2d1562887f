// A reference computed by a configuration (evaluator.hpp's capture_output): the configuration evaluated as any
// other, its output kept instead of compared, then checked for what a reference must not have: elements no run
// wrote, or runs that disagree.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <numeric>

#include "pimg/cache.hpp"
#include "pimg/evaluator.hpp"
#include "pimg/executor.hpp"

namespace pimg {
namespace {

// The family with its comparison replaced by keeping what each run wrote.
class OutputKeeper final : public Family {
 public:
  explicit OutputKeeper(const Family& f) : f_(f) {}
  std::string name() const override { return f_.name(); }
  std::string unit() const override { return f_.unit(); }
  std::vector<AttrSpec> attributes() const override { return f_.attributes(); }
  Problem make_problem(int w, int h, int c, std::map<std::string, std::string> a) const override {
    return f_.make_problem(w, h, c, std::move(a));
  }
  Workload make_workload(const Problem& p) const override { return f_.make_workload(p); }
  std::vector<std::uint8_t> reference(const Problem&, const Workload&, const std::string&) const override { return {}; }
  Validation compare(const Problem&, std::span<const std::uint8_t>, std::span<const std::uint8_t> actual) const override {
    runs.emplace_back(actual.begin(), actual.end());
    return {true, "captured"};
  }
  Traffic traffic(const Problem& p) const override { return f_.traffic(p); }
  double work(const Problem& p) const override { return f_.work(p); }
  mutable std::vector<std::vector<std::uint8_t>> runs;  // each run's output, in order

 private:
  const Family& f_;
};

}  // namespace

EvalResult capture_output(const EvalContext& ctx, const Variant& variant, const Config& config,
                          const std::string& cache_sub, const std::string& cache_key) {
  OutputKeeper capture(ctx.family);
  static const std::vector<std::uint8_t> none;
  EvalContext c{capture, ctx.problem, ctx.workload, none, ctx.device, ctx.measure, ctx.on_run, ctx.observers, nullptr};
  // A warm-up and one timed run: the executor poisons the output with kPoisonValues[0], then [1].
  c.measure.warmups = 1;
  c.measure.repeats = c.measure.max_repeats = 1;
  c.measure.energy_s = 0;
  c.measure.timing.cold = false;
  EvalResult r = evaluate(c, variant, config);
  r.stage = "reference";
  if (r.status != Status::ok) return r;
  if (capture.runs.size() < 2) {
    r.status = Status::harness_error;
    r.log = fmt::format("the output was kept from {} runs, not 2", capture.runs.size());
    return r;
  }
  const auto& a = capture.runs[capture.runs.size() - 2];
  const auto& b = capture.runs.back();
  const auto [x, y] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  if (x != a.end() || y != b.end()) {
    const std::size_t at = static_cast<std::size_t>(x - a.begin());
    const std::size_t differ = static_cast<std::size_t>(
        std::inner_product(x, a.end(), y, std::size_t{0}, std::plus<>(), std::not_equal_to<>()));
    const bool poison = at < a.size() && at < b.size() && *x == kPoisonValues[0] && *y == kPoisonValues[1];
    r.status = Status::wrong_result;
    r.validation.clear();
    r.log = poison ? fmt::format("leaves its output unwritten: byte {} (and {} bytes in all) keeps the poison written "
                                 "before each run ({}, then {})",
                                 at, differ, kPoisonValues[0], kPoisonValues[1])
                   : fmt::format("writes a different output on each run: byte {} (and {} bytes in all) is {} in one "
                                 "run and {} in the next",
                                 at, differ, static_cast<int>(*x), static_cast<int>(*y));
    return r;
  }
  r.validation = "the output of this configuration, kept as the reference (two runs, the same)";
  cache_write(cache_sub, cache_key, {b.begin(), b.end()});
  return r;
}

}  // namespace pimg
