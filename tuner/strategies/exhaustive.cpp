// Exhaustive search: every valid configuration once, in the space's order.
#include "pimg/strategies.hpp"

namespace pimg {
namespace {

class Exhaustive final : public Strategy {
 public:
  explicit Exhaustive(const std::vector<Config>& space) : space_(space) {}
  std::optional<Config> next() override {
    if (pos_ >= space_.size()) return std::nullopt;
    return space_[pos_++];
  }
  void tell(const Config&, const Outcome&) override {}
  std::size_t planned() const override { return space_.size(); }

 private:
  const std::vector<Config>& space_;
  std::size_t pos_ = 0;
};

}  // namespace

StrategyInfo exhaustive_strategy() {
  return {"exhaustive", "every valid configuration once, in order", {},
          [](const std::vector<Config>& space, const OptionValues&, std::uint64_t) {
            return std::make_unique<Exhaustive>(space);
          }};
}

}  // namespace pimg
