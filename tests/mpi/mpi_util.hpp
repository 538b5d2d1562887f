// What the MPI tests share: the MPI device, a configuration of ranks / threads / scheme, the
// scheme-at-ranks cases, the checks on one evaluation's times and on a tuned database's rows.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "pimg/evaluator.hpp"
#include "pimg/registry.hpp"
#include "pimg/store.hpp"

namespace pimg::mpi_test {

inline Device& mpi_device() {
  static std::unique_ptr<Device> device = [] {
    const Backend* b = Registry::builtin().backend("mpi");
    return b->open(b->devices().at(0));
  }();
  return *device;
}

inline Config mpi_config(std::int64_t ranks, std::int64_t threads, const std::string& scheme) {
  Config c;
  c.set("ranks", ranks);
  c.set("threads", threads);
  c.set("scheme", scheme);
  return c;
}

// A scheme at a rank count, named "halo2" in test names and "halo at 2 ranks" in messages.
struct Case {
  const char* scheme;
  int ranks;
};
inline void PrintTo(const Case& c, std::ostream* os) { *os << c.scheme << " at " << c.ranks << " ranks"; }
// Every scheme at 1, 2 and 3 ranks.
inline std::vector<Case> at_1_2_3_ranks(std::initializer_list<const char*> schemes) {
  std::vector<Case> out;
  for (const char* scheme : schemes)
    for (int ranks = 1; ranks <= 3; ++ranks) out.push_back({scheme, ranks});
  return out;
}
inline std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return std::string(info.param.scheme) + std::to_string(info.param.ranks);
}

// The MPI backend's communication time of each timed run (metric mpi.comm_ms, seq: the run), in run order.
inline std::vector<double> comm_ms(const EvalResult& r) {
  std::vector<std::pair<int, double>> by_run;
  for (const Metric& m : r.metrics)
    if (m.name == "mpi.comm_ms") by_run.emplace_back(m.seq, m.value);
  std::sort(by_run.begin(), by_run.end());
  std::vector<double> out;
  for (std::size_t i = 0; i < by_run.size(); ++i) {
    EXPECT_EQ(by_run[i].first, static_cast<int>(i)) << "mpi.comm_ms not numbered by run";
    out.push_back(by_run[i].second);
  }
  return out;
}

// Every timed run of an evaluation: a kernel time, and a communication time within it.
inline void expect_run_times(const EvalResult& r, std::size_t runs) {
  ASSERT_EQ(r.kernel_ms.size(), runs);
  const std::vector<double> comm = comm_ms(r);
  ASSERT_EQ(comm.size(), runs);
  for (std::size_t i = 0; i < runs; ++i) {
    EXPECT_GT(r.kernel_ms[i], 0);
    EXPECT_GE(comm[i], 0);
    EXPECT_LE(comm[i], r.kernel_ms[i]);
  }
}

// A tuned database: every row ok (so every stored timing is from a validated run, checked further
// by `validated`), `repeats` timings each, the MPI variant's on the mpi backend with a communication
// time above 0 (even one rank talks to itself) within its kernel time, the others' 0. Rows per variant.
inline std::map<std::string, int> check_tuned(const std::string& db, const std::string& mpi_variant,
                                              std::size_t repeats,
                                              const std::function<void(const ResultRow&)>& validated) {
  Store store(db, Store::Mode::existing);
  EXPECT_EQ(store.rows().size(), store.rows_with_samples().size());
  std::map<std::string, int> ok;
  std::vector<ResultRow> rows = store.rows_with_samples();
  store.add_metrics(rows);
  for (const auto& r : rows) {
    EXPECT_EQ(to_string(r.result.status), std::string("ok")) << r.variant.name << ": " << r.result.log;
    validated(r);
    ok[r.variant.name]++;
    EXPECT_EQ(r.result.kernel_ms.size(), repeats);
    const std::vector<double> comm = comm_ms(r.result);
    if (r.variant.name == mpi_variant) {
      EXPECT_EQ(r.device.backend, "mpi");
      EXPECT_EQ(comm.size(), repeats) << r.config.canonical();
      for (std::size_t i = 0; i < std::min(repeats, comm.size()); ++i) {
        EXPECT_GT(comm[i], 0) << r.config.canonical();
        EXPECT_LE(comm[i], r.result.kernel_ms[i]) << r.config.canonical();
      }
    } else {
      EXPECT_TRUE(comm.empty()) << r.variant.name;  // a single-process backend measures no communication
    }
  }
  return ok;
}

// The semblance family of the built-in registry, and its synthetic data with the reflection along grid point `truth`.
inline const Family& semblance_family() { return *Registry::builtin().family("semblance"); }
inline Problem semb_problem(int traces, const std::string& grid, const std::string& truth) {
  return semblance_family().make_problem(traces, 1200, 1, {{"data", "synthetic"}, {"grid", grid}, {"truth", truth}});
}

}  // namespace pimg::mpi_test
