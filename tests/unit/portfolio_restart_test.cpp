// The portfolio's restart on stagnation (`basin_stall`): on a made-up space with a deceptive basin it
// fires after `basin_stall` evaluations without a better result, and its walk from the other basin
// finds the optimum that runs without it miss.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "pimg/registry.hpp"
#include "pimg/replay.hpp"

using namespace pimg;

namespace {

// 5,184 points, four parameters of six values and a regime r of four. Regimes 0-2 are basin A, the
// first basin most runs find: 1 + k^2 / 2 where k parameters differ from (1, 1, 1, 1, r 0), so its
// points one or two parameters from its bottom (at most 3) beat every point of basin B but those
// three or more away (at least 5.5). Regime 3 is basin B, deeper (0.5 at (4, 4, 4, 4)) but flat
// above 3 outside a small bowl: its points look worse than A's near ones, so neither the model
// nor a walk restarting at the best point not yet searched around goes there, but they are the best
// points far from A's bottom, where a restart on stagnation walks from.
ReplaySpace deceptive_space() {
  std::vector<SpaceParam> params;
  for (const char* name : {"a", "b", "c", "d", "r"}) {
    params.push_back({name, {}});
    for (std::int64_t i = 0; i < (name[0] == 'r' ? 4 : 6); ++i) params.back().values.emplace_back(i);
  }
  std::vector<std::uint32_t> coords;
  ReplaySpace s;
  for (std::uint32_t a = 0; a < 6; ++a)
    for (std::uint32_t b = 0; b < 6; ++b)
      for (std::uint32_t c = 0; c < 6; ++c)
        for (std::uint32_t d = 0; d < 6; ++d)
          for (std::uint32_t r = 0; r < 4; ++r) {
            coords.insert(coords.end(), {a, b, c, d, r});
            const int k = (a != 1) + (b != 1) + (c != 1) + (d != 1) + (r != 0);
            const int to_b = std::abs(int(a) - 4) + std::abs(int(b) - 4) + std::abs(int(c) - 4) + std::abs(int(d) - 4);
            s.cost.push_back(r < 3 ? 1.0 + 0.5 * k * k : 0.5 + 4 * (1 - std::exp(-to_b / 2.0)));
          }
  s.space = SearchSpace(std::move(params), std::move(coords));
  return s;
}

std::vector<PointId> run(const ReplaySpace& s, const char* basin_stall, std::uint64_t seed) {
  const StrategyInfo* pf = Registry::builtin().strategy("portfolio");
  auto st = pf->make(s.space, resolve_options(*pf, {{"budget", "150"}, {"basin_stall", basin_stall}}), seed);
  std::vector<PointId> asked;
  while (auto p = st->ask()) {
    asked.push_back(*p);
    st->observe(*p, Outcome{Status::ok, s.cost[*p]});
  }
  return asked;
}

}  // namespace

TEST(PortfolioRestart, LeavesADeceptiveBasinAfterAStallAndFindsTheOther) {
  const ReplaySpace s = deceptive_space();
  auto best = [&](const std::vector<PointId>& asked) {
    double b = INFINITY;
    for (PointId p : asked) b = std::min(b, s.cost[p]);
    return b;
  };
  std::size_t missed = 0;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    SCOPED_TRACE(seed);
    const auto without = run(s, "0", seed), with = run(s, "30", seed);
    ASSERT_EQ(with.size(), 150u);
    EXPECT_EQ(best(with), 0.5) << "the restart's walk did not find basin B's bottom";
    if (best(without) == 0.5) continue;
    ++missed;
    // Both runs are the same up to the 30th evaluation in a row without a better result; then the
    // restart's walk asks a point two or more parameters from the best so far.
    double b = INFINITY;
    std::size_t since = 0, i = 0;
    std::optional<PointId> at;
    for (; i < without.size() && since < 30; ++i) {
      since = s.cost[without[i]] < b ? 0 : since + 1;
      if (s.cost[without[i]] < b) b = s.cost[without[i]], at = without[i];
    }
    ASSERT_LT(i, without.size());
    EXPECT_TRUE(std::equal(without.begin(), without.begin() + static_cast<std::ptrdiff_t>(i), with.begin()));
    EXPECT_NE(with[i], without[i]);
    std::size_t differ = 0;
    for (std::size_t d = 0; d < s.space.dims(); ++d) differ += s.space.point(with[i])[d] != s.space.point(*at)[d];
    EXPECT_GE(differ, 2u);
  }
  EXPECT_GE(missed, 2u) << "without the restart too few runs miss basin B for this test to show anything";
}
