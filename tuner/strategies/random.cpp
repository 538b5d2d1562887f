// Random sampling without replacement: `budget` configurations (or a `fraction` of the space),
// reproducible from the space file's seed.
#include <algorithm>
#include <numeric>
#include <random>

#include "pimg/strategies.hpp"

namespace pimg {
namespace {

class RandomSampling final : public Strategy {
 public:
  RandomSampling(const std::vector<Config>& space, std::size_t budget, std::uint64_t seed) : space_(space) {
    order_.resize(space.size());
    std::iota(order_.begin(), order_.end(), std::size_t{0});
    std::mt19937_64 rng(seed);
    std::shuffle(order_.begin(), order_.end(), rng);
    order_.resize(std::min(budget, order_.size()));
  }
  std::optional<Config> next() override {
    if (pos_ >= order_.size()) return std::nullopt;
    return space_[order_[pos_++]];
  }
  void tell(const Config&, const Outcome&) override {}
  std::size_t planned() const override { return order_.size(); }

 private:
  const std::vector<Config>& space_;
  std::vector<std::size_t> order_;
  std::size_t pos_ = 0;
};

}  // namespace

StrategyInfo random_strategy() {
  return {"random",
          "uniform random sample of the valid configurations, without replacement",
          {{OptionDecl::Type::Int, "budget", "0", "configurations to evaluate per variant (0: use fraction)"},
           {OptionDecl::Type::Real, "fraction", "0.1", "share of the space to evaluate when budget is 0"}},
          [](const std::vector<Config>& space, const OptionValues& o, std::uint64_t seed) {
            std::size_t budget = std::stoull(o.at("budget"));
            if (budget == 0) {
              double f = std::clamp(std::stod(o.at("fraction")), 0.0, 1.0);
              budget = std::max<std::size_t>(1, static_cast<std::size_t>(f * static_cast<double>(space.size()) + 0.5));
            }
            return std::make_unique<RandomSampling>(space, budget, seed);
          }};
}

}  // namespace pimg
