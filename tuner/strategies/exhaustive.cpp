// Exhaustive search: every valid configuration once, in the space's order.
#include "pimg/strategies.hpp"

namespace pimg {
namespace {

class Exhaustive final : public Strategy {
 public:
  explicit Exhaustive(const SearchSpace& space) : Strategy(space) {}
  std::optional<PointId> ask() override {
    if (pos_ >= space_.size()) return std::nullopt;
    return static_cast<PointId>(pos_++);
  }
  void observe(PointId, const Outcome&) override {}
  std::size_t planned() const override { return space_.size(); }
  std::vector<PointId> ahead() const override {
    std::vector<PointId> out;
    for (std::size_t i = pos_; i < space_.size(); ++i) out.push_back(static_cast<PointId>(i));
    return out;
  }

 private:
  std::size_t pos_ = 0;
};

}  // namespace

StrategyInfo exhaustive_strategy() {
  return {"exhaustive", "every valid configuration once, in order", {},
          [](const SearchSpace& space, const OptionValues&, std::uint64_t) {
            return std::make_unique<Exhaustive>(space);
          }};
}

}  // namespace pimg
