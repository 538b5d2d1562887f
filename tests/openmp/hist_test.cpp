// The hist and histeq families on the CPU: omp_private over every merge x copies x wide x schedule and
// omp_histeq over schedules and every copies x wide x map, on 1 and 3 channels, odd sizes, uniform and
// peaked inputs and a constant image; the serial and OpenCV baselines (calcHist, equalizeHist) compared
// exactly with the references.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "pimg/evaluator.hpp"
#include "pimg/registry.hpp"
#include "pix_eval.hpp"

namespace pimg {
namespace {

const Registry& registry() { return Registry::builtin(); }

EvalResult run(const char* family, const char* backend, const std::string& variant, const Problem& p, const Config& c) {
  const Family& f = *registry().family(family);
  const Workload w = f.make_workload(p);
  const std::vector<std::uint8_t> expected = f.reference(p, w);
  const Variant* v = registry().variant(family, variant);
  EXPECT_NE(v, nullptr) << variant;
  EvalContext ctx{f, p, w, expected, pixtest::open_device(backend), MeasureSpec::fixed(1, 2, 60)};
  return evaluate(ctx, *v, c);
}

Config cfg(std::initializer_list<std::pair<const char*, Value>> values) {
  Config c;
  for (const auto& [name, value] : values) c.set(name, value);
  return c;
}

// A PGM of one grey value: the constant image whose equalisation leaves it unchanged.
std::string constant_pgm(int w, int h, int value) {
  const auto path = std::filesystem::temp_directory_path() / ("pimg-hist-const-" + std::to_string(value) + ".pgm");
  std::ofstream f(path, std::ios::binary);
  f << "P5\n" << w << " " << h << "\n255\n" << std::string(static_cast<std::size_t>(w) * h, static_cast<char>(value));
  return path.string();
}

std::vector<Problem> hist_problems() {
  const Family& f = *registry().family("hist");
  std::vector<Problem> out;
  for (int channels : {1, 3})
    for (const char* dist : {"uniform", "peaked"})
      for (auto [w, h] : {std::pair{1, 1}, std::pair{37, 23}, std::pair{333, 517}})
        out.push_back(f.make_problem(w, h, channels, {{"dist", dist}}));
  out.push_back(f.make_problem(0, 0, 1, {{"input", constant_pgm(61, 17, 200)}}));
  return out;
}

TEST(HistOpenmp, PrivateHistogramsMatchTheReference) {
  for (const Problem& p : hist_problems())
    for (const char* merge : {"atomic", "critical", "reduction"})
      for (std::int64_t copies : {1, 2, 4})
        for (std::int64_t wide : {0, 1}) {
          const Config c = cfg({{"merge", std::string(merge)},
                                {"copies", copies},
                                {"wide", wide},
                                {"threads", std::int64_t{copies == 2 ? 2 : 0}},
                                {"schedule", std::string(copies == 4 ? "dynamic" : "static")},
                                {"chunk", std::int64_t{copies == 1 ? 1 : 3}}});
          const EvalResult r = run("hist", "openmp", "omp_private", p, c);
          EXPECT_EQ(r.status, Status::ok) << p.label() << " " << c.brief() << ": " << r.log;
        }
}

// Planar 3-channel histograms (seed 002): planes that end inside a task, a 64-bit word and a copy's turn.
TEST(HistOpenmp, PlanarHistogramsMatchTheReference) {
  const Family& f = *registry().family("hist");
  for (auto [w, h] : {std::pair{37, 23}, std::pair{333, 517}}) {
    const Problem p = f.make_problem(w, h, 3, {{"dist", "peaked"}, {"layout", "planar"}});
    for (const char* merge : {"atomic", "reduction"})
      for (std::int64_t copies : {1, 4})
        for (std::int64_t wide : {0, 1}) {
          const Config c = cfg({{"merge", std::string(merge)}, {"copies", copies}, {"wide", wide}, {"threads", std::int64_t{2}}});
          const EvalResult r = run("hist", "openmp", "omp_private", p, c);
          EXPECT_EQ(r.status, Status::ok) << p.label() << " " << c.brief() << ": " << r.log;
        }
    EXPECT_EQ(run("hist", "host", "serial", p, Config{}).status, Status::ok);
    if (registry().variant("hist", "opencv_calchist"))
      EXPECT_EQ(run("hist", "host", "opencv_calchist", p, Config{}).status, Status::ok) << p.label();
  }
}

TEST(HistOpenmp, BadKnobsAreLaunchErrors) {
  const Problem p = registry().family("hist")->make_problem(16, 16, 1, {});
  EXPECT_EQ(run("hist", "openmp", "omp_private", p, cfg({{"copies", std::int64_t{3}}})).status, Status::launch_error);
  EXPECT_EQ(run("hist", "openmp", "omp_private", p, cfg({{"merge", std::string("none")}})).status,
            Status::launch_error);
}

// The serial baseline and, where this build has OpenCV, the OpenCV one: ok (so exact) on every problem.
void expect_host_baselines(const char* family, const std::vector<Problem>& problems, const char* opencv) {
  for (const Problem& p : problems) {
    EXPECT_EQ(run(family, "host", "serial", p, Config{}).status, Status::ok) << p.label();
    if (registry().variant(family, opencv)) {
      const EvalResult r = run(family, "host", opencv, p, Config{});
      EXPECT_EQ(r.status, Status::ok) << p.label() << ": " << r.log;
    }
  }
}

TEST(HistHost, SerialAndOpencvMatch) { expect_host_baselines("hist", hist_problems(), "opencv_calchist"); }

std::vector<Problem> histeq_problems() {
  const Family& f = *registry().family("histeq");
  std::vector<Problem> out;
  for (const char* dist : {"uniform", "peaked"})
    for (auto [w, h] : {std::pair{1, 1}, std::pair{2, 1}, std::pair{37, 23}, std::pair{640, 480}})
      out.push_back(f.make_problem(w, h, 1, {{"dist", dist}}));
  for (int seed = 1; seed <= 20; ++seed)
    out.push_back(f.make_problem(97, 89, 1, {{"dist", "peaked"}, {"seed", std::to_string(seed)}}));
  out.push_back(f.make_problem(0, 0, 1, {{"input", constant_pgm(61, 17, 33)}}));
  return out;
}

TEST(HisteqOpenmp, MatchesTheReference) {
  for (const Problem& p : histeq_problems())
    for (const char* schedule : {"static", "dynamic", "guided"}) {
      const Config c = cfg({{"schedule", std::string(schedule)}, {"chunk", std::int64_t{2}}});
      const EvalResult r = run("histeq", "openmp", "omp_histeq", p, c);
      EXPECT_EQ(r.status, Status::ok) << p.label() << " " << schedule << ": " << r.log;
    }
}

// Every copies x wide x map, exact on every problem (odd sizes leave tails to the byte loops); vbmi
// compiles only where the host compiler targets AVX-512 VBMI (-march=native on this CPU), and is a
// compile error elsewhere.
TEST(HisteqOpenmp, EveryCountingAndMapKnobMatchesTheReference) {
  const bool vbmi = __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw");
  int k = 0;
  for (std::int64_t copies : {1, 2, 4})
    for (std::int64_t wide : {0, 1})
      for (const char* map : {"bytes", "words", "vbmi"}) {
        const Config c = cfg({{"copies", copies},
                              {"wide", wide},
                              {"map", std::string(map)},
                              {"threads", std::int64_t{k % 3}},
                              {"schedule", std::string(k % 2 ? "dynamic" : "static")},
                              {"chunk", std::int64_t{1 + k % 2}}});
        ++k;
        const Status want = std::string(map) == "vbmi" && !vbmi ? Status::compile_error : Status::ok;
        for (const Problem& p : histeq_problems()) {
          const EvalResult r = run("histeq", "openmp", "omp_histeq", p, c);
          EXPECT_EQ(r.status, want) << p.label() << " " << c.brief() << ": " << r.log;
        }
      }
}

TEST(HisteqOpenmp, BadKnobsAreLaunchErrors) {
  const Problem p = registry().family("histeq")->make_problem(16, 16, 1, {});
  EXPECT_EQ(run("histeq", "openmp", "omp_histeq", p, cfg({{"copies", std::int64_t{3}}})).status, Status::launch_error);
  EXPECT_EQ(run("histeq", "openmp", "omp_histeq", p, cfg({{"wide", std::int64_t{2}}})).status, Status::launch_error);
  EXPECT_EQ(run("histeq", "openmp", "omp_histeq", p, cfg({{"map", std::string("gather")}})).status,
            Status::launch_error);
}

// OpenCV's equalizeHist is the family's rule: every problem, compared exactly.
TEST(HisteqHost, SerialAndOpencvEqualizeHistMatch) {
  expect_host_baselines("histeq", histeq_problems(), "opencv_equalizehist");
}

}  // namespace
}  // namespace pimg
