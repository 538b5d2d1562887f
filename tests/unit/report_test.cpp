// Reports from hand-built rows (2 OpenCL devices and the host, 3 sizes, 2 tuned variants and 2
// baselines, failures of every status): markdown, one SVG, `best` table and JSON against expected
// files in tests/data/report/ (PIMG_UPDATE_EXPECTED=1 rewrites them), plus targeted checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include "json.hpp"
#include "pimg/report.hpp"

namespace pimg {
namespace {

constexpr double kGpuCopyGbs = 400;
constexpr double kCpuCopyGbs = 40;

DeviceInfo device(std::string backend, int index, std::string name, std::string vendor, std::string driver,
                  int units, std::uint64_t gib, bool host_cores = false) {
  DeviceInfo d;
  d.caps.host_cores = host_cores;
  d.backend = std::move(backend);
  d.index = index;
  d.name = std::move(name);
  d.vendor = std::move(vendor);
  d.driver = std::move(driver);
  d.compute_units = units;
  d.global_mem_bytes = gib << 30;
  return d;
}

const DeviceInfo kGpu = device("opencl", 0, "Test GPU", "Acme", "3.1", 40, 8);
const DeviceInfo kCpu = device("opencl", 1, "Test CPU", "pocl", "5.0", 8, 16, true);
const DeviceInfo kHost = device("host", 0, "Test CPU", "GenuineTest", "gcc 12", 8, 16, true);

Problem problem(int size) {
  Problem p;
  p.family = "conv";
  p.width = p.height = size;
  p.attrs = {{"border", "zero"}, {"filter", "sharpen3"}};
  return p;
}

double megapixels(int size) { return static_cast<double>(size) * size / 1e6; }

// One evaluation: ok rows get five samples around median = megapixels * factor.
ResultRow row(const DeviceInfo& d, int size, const std::string& variant, const std::string& backend,
              std::map<std::string, Value> params, double factor, Status status = Status::ok,
              std::string log = "") {
  ResultRow r;
  r.run_id = 1;
  r.device = d;
  r.problem = problem(size);
  r.cost.work = static_cast<double>(size) * size;
  r.cost.unit = "MPix/s";
  r.cost.traffic.bytes = 2.0 * size * size;
  r.cost.traffic.ops = 18.0 * size * size;
  r.variant = {"conv", variant, backend, "src-" + variant, backend == "host"};
  for (auto& [k, v] : params) r.config.set(k, v);
  const double m = megapixels(size) * factor;
  r.result.status = status;
  r.result.log = std::move(log);
  if (status == Status::ok || status == Status::wrong_result) {
    r.result.kernel_ms = {0.95 * m, 0.99 * m, m, 1.01 * m, 1.2 * m};
    r.result.kernel = Stats::of(r.result.kernel_ms);
  }
  r.result.validation = status == Status::ok ? "exact" : "";
  r.created_at = "2024-01-01T00:00:00Z";
  return r;
}

std::vector<ResultRow> fixture_rows() {
  std::vector<ResultRow> rows;
  for (int size : {256, 1024, 4096}) {
    const std::map<std::pair<int, int>, double> naive_gpu = {{{8, 4}, 0.020}, {{8, 8}, 0.016}, {{16, 4}, 0.018},
                                                             {{16, 8}, 0.014}};
    for (const auto& [wg, f] : naive_gpu) {
      rows.push_back(row(kGpu, size, "cl_naive", "opencl", {{"wg_x", wg.first}, {"wg_y", wg.second}}, f));
      const bool launch_fails = wg == std::pair{16, 8};
      const bool times_out = size == 4096 && wg == std::pair{8, 4};
      rows.push_back(row(kCpu, size, "cl_naive", "opencl", {{"wg_x", wg.first}, {"wg_y", wg.second}}, 10 * f,
                         launch_fails ? Status::launch_error : times_out ? Status::timeout : Status::ok,
                         launch_fails ? "clEnqueueNDRangeKernel: CL_INVALID_WORK_GROUP_SIZE | local 16x8 > 64\n"
                                        "second line"
                                      : times_out ? "\n  timed out after 2000 ms  \n" : ""));
    }
    const std::map<std::pair<int, std::string>, double> tiled_gpu = {
        {{8, "private"}, 0.010}, {{8, "constant"}, 0.009}, {{16, "private"}, 0.008}};
    for (const auto& [cfg, f] : tiled_gpu) {
      rows.push_back(row(kGpu, size, "cl_tiled", "opencl", {{"tile", cfg.first}, {"filter", cfg.second}}, f));
      rows.push_back(row(kCpu, size, "cl_tiled", "opencl", {{"tile", cfg.first}, {"filter", cfg.second}}, 12 * f));
    }
    // tile=16 filter=constant never works on the GPU; its wrong result is faster than any ok row.
    const std::map<std::string, Value> bad = {{"tile", 16}, {"filter", std::string("constant")}};
    if (size == 256)
      rows.push_back(row(kGpu, size, "cl_tiled", "opencl", bad, 0, Status::compile_error,
                         "<kernel>:12:5: error: use of undeclared identifier 'filt' *" + std::string(200, 'x') +
                             "\n  filt[i] = 0;\n"));
    if (size == 1024) rows.push_back(row(kGpu, size, "cl_tiled", "opencl", bad, 0, Status::timeout, "timed out"));
    if (size == 4096)
      rows.push_back(row(kGpu, size, "cl_tiled", "opencl", bad, 0.0001, Status::wrong_result,
                         "first mismatch at (0, 0): expected 17, got 0"));
    rows.push_back(row(kCpu, size, "cl_tiled", "opencl", bad, 0.13));
    rows.push_back(row(kHost, size, "serial", "host", {}, 4.0));
    rows.push_back(row(kHost, size, "opencv", "host", {}, 0.5));
  }
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i].id = static_cast<std::int64_t>(i + 1);
  return rows;
}

std::vector<BandwidthRow> fixture_bandwidths() {
  BandwidthRow gpu{kGpu, kGpuCopyGbs, 256e6};
  BandwidthRow cpu{kCpu, kCpuCopyGbs, 256e6};
  BandwidthRow old_driver{kGpu, 100, 256e6};  // same GPU, another driver: must not match
  old_driver.device.driver = "2.0";
  return {gpu, cpu, old_driver};
}

ReportOptions options() {
  ReportOptions o;
  o.top = 5;
  o.plot_prefix = "report";
  return o;
}

std::string expected_path(const std::string& name) { return std::string(PIMG_TEST_DATA) + "/report/" + name; }

// Compares with the expected file, or rewrites it when PIMG_UPDATE_EXPECTED=1.
void expect_matches_file(const std::string& actual, const std::string& name) {
  const char* update = std::getenv("PIMG_UPDATE_EXPECTED");
  if (update && std::string(update) == "1") {
    std::ofstream(expected_path(name), std::ios::binary) << actual;
    return;
  }
  std::ifstream in(expected_path(name), std::ios::binary);
  ASSERT_TRUE(in) << "missing expected file " << expected_path(name) << " (run with PIMG_UPDATE_EXPECTED=1)";
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str()) << "differs from " << expected_path(name);
}


// Well-formedness of the SVG files: one root <svg> with its namespace and size, balanced tags,
// only the five predefined entities.
void expect_well_formed_svg(const std::string& name, const std::string& svg) {
  SCOPED_TRACE(name);
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\""), std::string::npos);
  EXPECT_NE(svg.find(" viewBox=\"0 0 "), std::string::npos);
  std::vector<std::string> open;
  int roots = 0;
  for (std::size_t i = 0; i < svg.size(); ++i) {
    if (svg[i] == '&') {
      const auto end = svg.find(';', i);
      ASSERT_NE(end, std::string::npos);
      const std::string entity = svg.substr(i, end - i + 1);
      EXPECT_TRUE(entity == "&amp;" || entity == "&lt;" || entity == "&gt;" || entity == "&quot;" ||
                  entity == "&apos;")
          << entity;
    }
    if (svg[i] != '<' || svg.compare(i, 2, "<?") == 0) continue;
    const auto end = svg.find('>', i);
    ASSERT_NE(end, std::string::npos);
    const std::string tag = svg.substr(i + 1, end - i - 1);
    EXPECT_EQ(tag.find('<'), std::string::npos) << tag;
    if (tag.front() == '/') {
      ASSERT_FALSE(open.empty()) << tag;
      EXPECT_EQ(open.back(), tag.substr(1));
      open.pop_back();
    } else if (tag.back() != '/') {
      const std::string element = tag.substr(0, tag.find(' '));
      if (open.empty()) ++roots;
      open.push_back(element);
    }
    i = end;
  }
  EXPECT_TRUE(open.empty());
  EXPECT_EQ(roots, 1);
}

// The markdown table row whose first cell is `first`, split into trimmed cells.
std::vector<std::string> table_row(const std::string& markdown, const std::string& first) {
  std::istringstream in(markdown);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| " + first + " |", 0) != 0) continue;
    std::vector<std::string> cells;
    std::size_t start = 1;
    for (std::size_t i = 1; i < line.size(); ++i) {
      if (line[i] != '|' || line[i - 1] == '\\') continue;
      std::string cell = line.substr(start, i - start);
      cell = cell.substr(cell.find_first_not_of(' '));
      cell = cell.substr(0, cell.find_last_not_of(' ') + 1);
      cells.push_back(cell);
      start = i + 1;
    }
    return cells;
  }
  return {};
}

// Every markdown table row whose first cell is `first`, in order.
std::vector<std::vector<std::string>> table_rows(const std::string& markdown, const std::string& first) {
  std::vector<std::vector<std::string>> out;
  for (std::size_t at = markdown.find("| " + first + " |"); at != std::string::npos;
       at = markdown.find("| " + first + " |", at + 1))
    if (at == 0 || markdown[at - 1] == '\n') out.push_back(table_row(markdown.substr(at), first));
  return out;
}

std::string section(const std::string& markdown, const std::string& heading) {
  const auto start = markdown.find(heading);
  if (start == std::string::npos) return "";
  const auto end = markdown.find("\n## ", start + heading.size());
  return markdown.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// The report's time format: 4 significant digits below 1 ms, then 3 and 1 decimals.
std::string ms(double v) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(v >= 100 ? 1 : v >= 1 ? 3 : 3 - static_cast<int>(std::floor(std::log10(v))));
  s << v;
  return s.str();
}

TEST(Report, MatchesExpectedFiles) {
  const auto rows = fixture_rows();
  const auto bw = fixture_bandwidths();
  const Report r = make_report(rows, bw, options());
  expect_matches_file(r.markdown, "report.md");
  ASSERT_TRUE(r.files.count("report-conv-sweep.svg"));
  expect_matches_file(r.files.at("report-conv-sweep.svg"), "report-conv-sweep.svg");
  expect_matches_file(best_table(rows, bw, 3), "best.txt");
  expect_matches_file(best_json(rows, bw, 3), "best.json");
}

TEST(Report, ProducesEachKindOfPlotAndLinksIt) {
  const Report r = make_report(fixture_rows(), fixture_bandwidths(), options());
  std::vector<std::string> names;
  for (const auto& [name, svg] : r.files) {
    names.push_back(name);
    expect_well_formed_svg(name, svg);
    EXPECT_NE(r.markdown.find("](" + name + ")"), std::string::npos) << name << " is not linked";
  }
  const std::vector<std::string> expected = {"report-conv-params-cl-naive-opencl-test-cpu.svg",
                                             "report-conv-params-cl-naive-opencl-test-gpu.svg",
                                             "report-conv-params-cl-tiled-opencl-test-cpu.svg",
                                             "report-conv-params-cl-tiled-opencl-test-gpu.svg",
                                             "report-conv-sweep.svg",
                                             "report-conv-top-host-test-cpu.svg",
                                             "report-conv-top-opencl-test-cpu.svg",
                                             "report-conv-top-opencl-test-gpu.svg"};
  EXPECT_EQ(names, expected);
}

TEST(Report, IsAPureFunctionOfTheRowsNotTheirOrder) {
  auto rows = fixture_rows();
  const Report a = make_report(rows, fixture_bandwidths(), options());
  std::mt19937 rng(1107);
  std::shuffle(rows.begin(), rows.end(), rng);
  auto bw = fixture_bandwidths();
  std::reverse(bw.begin(), bw.end());
  const Report b = make_report(rows, bw, options());
  EXPECT_EQ(a.markdown, b.markdown);
  EXPECT_EQ(a.files, b.files);
  EXPECT_EQ(best_json(fixture_rows(), fixture_bandwidths(), 3), best_json(rows, bw, 3));
  EXPECT_EQ(best_table(fixture_rows(), fixture_bandwidths(), 3), best_table(rows, bw, 3));
}

TEST(Report, SweepTakesTheBestOkTimeOfEachColumn) {
  const Report r = make_report(fixture_rows(), fixture_bandwidths(), options());
  // Times and speed-ups are two tables, so each fits the page.
  const auto headers = table_rows(r.markdown, "size");
  ASSERT_EQ(headers.size(), 2u);
  EXPECT_EQ(headers[0], std::vector<std::string>({"size", "opencl:Test CPU", "opencl:Test GPU", "serial (baseline)",
                                                  "opencv (baseline)"}));
  // The CPU device computes on the host's cores and a GPU is tuned beside it: the GPU's gain over it is a column.
  EXPECT_EQ(headers[1], std::vector<std::string>({"size", "best speed-up over serial", "over opencl:Test CPU",
                                                  "over opencv (baseline)"}));
  const double mp = megapixels(4096);
  // GPU: the wrong_result at 0.0001 is faster but failed; the best ok is cl_tiled at 0.008.
  // CPU: cl_tiled at 12 * 0.008 beats cl_naive (timeout and launch error left out).
  auto rows = table_rows(r.markdown, "4096x4096");
  ASSERT_EQ(rows.size(), 3u);  // the summary's first row of the problem, then the two sweep tables
  rows.erase(rows.begin());
  const auto& cells = rows[0];
  ASSERT_EQ(cells.size(), 5u);
  EXPECT_EQ(cells[1], ms(mp * 12 * 0.008));
  EXPECT_EQ(cells[2], ms(mp * 0.008));
  EXPECT_EQ(cells[3], ms(mp * 4.0));
  EXPECT_EQ(cells[4], ms(mp * 0.5));
  ASSERT_EQ(rows[1].size(), 4u);
  EXPECT_EQ(rows[1][1], "500x (opencl:Test GPU)");
  EXPECT_EQ(rows[1][2], "12.0x (opencl:Test GPU)");
  // The library baseline against the fastest tuned column: 0.5 / 0.008.
  EXPECT_EQ(rows[1][3], "62.5x (opencl:Test GPU)");
}

TEST(Report, FailuresNeverRanked) {
  const auto rows = fixture_rows();
  const std::string json = best_json(rows, fixture_bandwidths(), 100);
  const Json doc = JsonParser(json).document();
  ASSERT_EQ(doc.type, Json::Type::array);
  EXPECT_EQ(doc.items.size(), 9u);  // 3 sizes x (GPU, CPU, host)
  for (const Json& g : doc.items) {
    std::size_t ok = 0;
    for (const auto& r : rows)
      ok += r.result.status == Status::ok && r.device.backend == g["backend"].text &&
            r.device.name == g["device"].text && r.problem.width == g["width"].number;
    EXPECT_EQ(g["results"].items.size(), ok);
    double previous = 0;
    for (const Json& res : g["results"].items) {
      EXPECT_GE(res["median_ms"].number, previous);
      previous = res["median_ms"].number;
      const bool failing_config = res["variant"].text == "cl_tiled" && res["config"]["tile"].number == 16 &&
                                  res["config"]["filter"].text == "constant";
      EXPECT_FALSE(failing_config && g["device"].text == "Test GPU");
    }
  }
  const std::string table = best_table(rows, fixture_bandwidths(), 100);
  EXPECT_EQ(table.find(ms(megapixels(4096) * 0.0001)), std::string::npos);
  const Report r = make_report(rows, fixture_bandwidths(), options());
  const std::string ranked = section(r.markdown, "## Results per problem and device");
  ASSERT_FALSE(ranked.empty());
  EXPECT_EQ(ranked.find(ms(megapixels(4096) * 0.0001)), std::string::npos);
  EXPECT_NE(ranked.find("Top 5 of 6 ok configurations (2 failed)"), std::string::npos);
}

TEST(Report, EnvironmentFailuresListedApartFromTheKernels) {
  auto rows = fixture_rows();
  const std::size_t naive = std::count_if(rows.begin(), rows.end(), [](const ResultRow& r) { return r.variant.name == "cl_naive"; });
  ResultRow env = rows.front();
  env.variant.name = "cl_naive";
  env.result.status = Status::env_error;
  env.result.log = "environment: only 0.1 MiB free in /tmp (it would have been compile_error); build log";
  rows.push_back(env);
  ResultRow harness = env;
  harness.result.status = Status::harness_error;
  harness.result.log = "unexpected exception in plan()";
  rows.push_back(harness);
  const Report r = make_report(rows, fixture_bandwidths(), options());
  const std::string failures = section(r.markdown, "## Failures");
  // The kernels' table is as without them: the fixture's cl_naive counts, no column for either status.
  EXPECT_EQ(table_row(failures, "cl_naive"), std::vector<std::string>({"cl_naive", "20", "0", "3", "1", "0", "0"}));
  EXPECT_EQ(naive, 24u);
  EXPECT_NE(failures.find("### Not the kernels' failures (2)"), std::string::npos);
  EXPECT_NE(failures.find("| env_error | cl_naive"), std::string::npos);
  EXPECT_NE(failures.find("only 0.1 MiB free in /tmp"), std::string::npos);
  EXPECT_NE(failures.find("| harness_error | cl_naive"), std::string::npos);
}

TEST(Report, BestJsonFieldsAndBandwidthOfTheMatchingDevice) {
  const Json doc = JsonParser(best_json(fixture_rows(), fixture_bandwidths(), 2)).document();
  std::map<std::string, const Json*> largest;
  for (const Json& g : doc.items) {
    for (const char* key : {"family", "backend", "device", "driver", "size", "width", "height", "channels", "problem",
                            "results"})
      EXPECT_TRUE(g.has(key)) << key;
    EXPECT_LE(g["results"].items.size(), 2u);
    if (g["size"].text == "4096x4096") largest[g["backend"].text + ":" + g["device"].text] = &g;
  }
  ASSERT_EQ(largest.size(), 3u);
  const Json& gpu = *largest.at("opencl:Test GPU");
  EXPECT_EQ(gpu["driver"].text, "3.1");
  EXPECT_EQ(gpu["problem"]["filter"].text, "sharpen3");
  const Json& first = gpu["results"].items.at(0);
  EXPECT_EQ(first["rank"].number, 1);
  EXPECT_EQ(first["variant"].text, "cl_tiled");
  EXPECT_EQ(first["config"]["tile"].type, Json::Type::number);
  EXPECT_EQ(first["config"]["filter"].text, "private");
  EXPECT_EQ(first["source_hash"].text, "src-cl_tiled");
  EXPECT_NEAR(first["mpix_s"].number, 1 / 0.008 * 1e3, 0.01);
  EXPECT_NEAR(first["gb_s"].number, 2 / 0.008, 0.01);  // two bytes per pixel
  EXPECT_NEAR(first["bandwidth_pct"].number, 2 / 0.008 / kGpuCopyGbs * 100, 0.01);  // not the 2.0 driver's 100
  const Json& cpu = largest.at("opencl:Test CPU")->operator[]("results").items.at(0);
  EXPECT_NEAR(cpu["bandwidth_pct"].number, 2 / (12 * 0.008) / kCpuCopyGbs * 100, 0.01);
  const Json& host = largest.at("host:Test CPU")->operator[]("results").items.at(0);
  EXPECT_EQ(host["variant"].text, "opencv");
  EXPECT_EQ(host["bandwidth_pct"].type, Json::Type::null);

  const Json none = JsonParser(best_json(fixture_rows(), {}, 1)).document();
  for (const Json& g : none.items) EXPECT_EQ(g["results"].items.at(0)["bandwidth_pct"].type, Json::Type::null);
}

// A problem that writes next to nothing (at most 1/64 of what it reads: a histogram) is compared with the read
// ceiling at the bytes it reads, its few writes at what a copy's byte costs beyond its read (docs/measurement.md,
// "The bandwidth ceiling"; here a read at 300 GB/s and a copy at 400: 1/300 ns a byte read, 2/400 - 1/300 a byte
// written); one that writes more (a 2x2 max-pool writes 1/4), or does not say, or has no read ceiling, with the copy.
TEST(Report, AProblemThatWritesNextToNothingIsComparedWithTheReadCeiling) {
  const double copy = 400, read = 300;
  BandwidthRow c{kGpu, copy, 32e6};
  BandwidthRow r{kGpu, read, 64e6};
  r.kind = "read";
  BandwidthRow far{kGpu, 1000, 1e3};  // a read far from every working set below is never the nearest
  far.kind = "read";
  const auto entry = [&](std::optional<double> written, std::vector<BandwidthRow> bw) {
    ResultRow row;
    row.run_id = 1;
    row.id = 1;
    row.device = kGpu;
    row.problem = problem(1024);
    row.variant = {"conv", "v", "opencl", "h"};
    row.cost.work = 1e6;
    row.cost.traffic.bytes = 64e6;
    row.cost.traffic.written = written;
    row.result.status = Status::ok;
    row.result.kernel_ms = {1, 1, 1};  // 1 ms: 64 GB/s
    row.result.kernel = Stats::of(row.result.kernel_ms);
    const Json doc = JsonParser(best_json({row}, bw, 1)).document();
    return doc.items.at(0)["results"].items.at(0);
  };
  const auto pct = [&](std::optional<double> written, std::vector<BandwidthRow> bw) {
    return entry(written, std::move(bw))["bandwidth_pct"].number;
  };
  const double gbs = 64e6 / 1e-3 / 1e9;  // best_json rounds the shares to 2 decimals
  EXPECT_NEAR(pct(0, {c, r, far}), gbs / read * 100, 0.006);            // reads only: the read ceiling
  EXPECT_NEAR(pct(64e6 / 5, {c, r, far}), gbs / copy * 100, 0.006);     // a max-pool's 1/4: the copy
  EXPECT_NEAR(pct(32e6, {c, r, far}), gbs / copy * 100, 0.006);         // as much written as read
  EXPECT_NEAR(pct(std::nullopt, {c, r, far}), gbs / copy * 100, 0.006);  // the family does not say
  EXPECT_NEAR(pct(0, {c}), gbs / copy * 100, 0.006);                    // no read ceiling measured
  const double writes = 64e6 / 65, reads = 64e6 - writes;               // 1/64 of the reads: still a read
  const double per_read = 1 / read, per_write = 2 / copy - per_read;
  EXPECT_NEAR(pct(writes, {c, r, far}), gbs / (64e6 / (reads * per_read + writes * per_write)) * 100, 0.006);
  EXPECT_GT(pct(writes, {c, r, far}), gbs / copy * 100);
  EXPECT_LT(pct(writes, {c, r, far}), gbs / read * 100);
  // best --json names the ceiling each share is against.
  EXPECT_EQ(entry(0, {c, r, far})["ceiling"].text, "read");
  EXPECT_EQ(entry(writes, {c, r, far})["ceiling"].text, "read");
  EXPECT_EQ(entry(64e6 / 5, {c, r, far})["ceiling"].text, "copy");
  EXPECT_EQ(entry(0, {c})["ceiling"].text, "copy");
  EXPECT_EQ(entry(0, {})["ceiling"].type, Json::Type::null);
}

TEST(Report, FailureSummaryCountsAndEscapesLogs) {
  const Report r = make_report(fixture_rows(), fixture_bandwidths(), options());
  const std::string failures = section(r.markdown, "## Failures");
  EXPECT_EQ(table_row(failures, "cl_naive"), std::vector<std::string>({"cl_naive", "20", "0", "3", "1", "0", "0"}));
  EXPECT_EQ(table_row(failures, "cl_tiled"), std::vector<std::string>({"cl_tiled", "21", "1", "0", "1", "1", "0"}));
  EXPECT_EQ(table_row(failures, "serial (baseline)"),
            std::vector<std::string>({"serial (baseline)", "3", "0", "0", "0", "0", "0"}));
  EXPECT_NE(failures.find("CL_INVALID_WORK_GROUP_SIZE \\| local 16x8 \\> 64 |"), std::string::npos);
  EXPECT_EQ(failures.find("second line"), std::string::npos);
  EXPECT_NE(failures.find("| timed out after 2000 ms |"), std::string::npos);
  EXPECT_NE(failures.find("\\<kernel\\>:12:5: error: use of undeclared identifier 'filt' \\*xxx"), std::string::npos);
  EXPECT_NE(failures.find(std::string(100, 'x') + "\u2026 |"), std::string::npos);
  EXPECT_EQ(failures.find(std::string(101, 'x')), std::string::npos);
}

// Wrong results that wrote one and the same output (their output hash) are said together, with the parameter values
// all of them have and no passing configuration has: KTT's nbody read through its T1 file gives its structure-of-arrays
// layout other random inputs than its array-of-structures one, and every such configuration "fails" alike.
TEST(Report, WrongResultsWithOneOutputAreSaidTogether) {
  auto rows = fixture_rows();
  auto wrong = [&](int tile, const std::string& filter, double hash) {
    ResultRow r = row(kCpu, 1024, "cl_tiled", "opencl", {{"tile", tile}, {"filter", filter}, {"layout", std::string("soa")}}, 0.2,
                      Status::wrong_result, "run 1: element 0 is 17.68, the reference has 17.67");
    r.result.metrics.push_back({kOutputHashMetric, "hash", -1, hash});
    r.id = static_cast<std::int64_t>(rows.size() + 1);
    rows.push_back(r);
  };
  for (auto& r : rows)
    if (r.variant.name == "cl_tiled") r.config.set("layout", std::string("aos"));
  wrong(8, "private", 4242);
  wrong(16, "private", 4242);
  wrong(8, "constant", 4242);
  wrong(16, "constant", 99);  // another output: alone, not said
  const std::string failures = section(make_report(rows, fixture_bandwidths(), options()).markdown, "## Failures");
  EXPECT_NE(failures.find("- 3 wrong results of cl_tiled on "), std::string::npos) << failures;
  EXPECT_NE(failures.find("wrote one and the same output: they agree with one another, not with the reference, so the "
                          "reference or the inputs may be what differs, not the kernel. All of them have layout=soa, "
                          "which no passing configuration has."),
            std::string::npos) << failures;
  EXPECT_EQ(failures.find("- 1 wrong results"), std::string::npos) << failures;
  EXPECT_EQ(failures.find("tile=8, layout"), std::string::npos) << failures;  // tile 8 passes elsewhere
}

TEST(Report, EscapesNamesInMarkdownAndSvg) {
  auto rows = fixture_rows();
  for (auto& r : rows)
    if (r.device.name == kGpu.name) r.device.name = "A&B <GPU> | 2";
  const Report r = make_report(rows, fixture_bandwidths(), options());
  EXPECT_NE(r.markdown.find("| opencl | A&B \\<GPU\\> \\| 2 | Acme |"), std::string::npos);
  ASSERT_TRUE(r.files.count("report-conv-top-opencl-a-b-gpu-2.svg"));
  for (const auto& [name, svg] : r.files) expect_well_formed_svg(name, svg);
  EXPECT_NE(r.files.at("report-conv-sweep.svg").find(">opencl:A&amp;B &lt;GPU&gt; | 2</text>"), std::string::npos);
  EXPECT_NO_THROW(JsonParser(best_json(rows, {}, 3)).document());
}

TEST(Report, FamilyFilterAndEmptyStore) {
  ReportOptions o = options();
  o.family = "hist";
  const Report r = make_report(fixture_rows(), fixture_bandwidths(), o);
  EXPECT_EQ(r.markdown, "# pimg-tune report: hist\n\nThe store holds no results for this family.\n");
  EXPECT_TRUE(r.files.empty());
  o.family = "conv";
  EXPECT_EQ(make_report(fixture_rows(), fixture_bandwidths(), o).markdown,
            make_report(fixture_rows(), fixture_bandwidths(), options()).markdown);
  EXPECT_EQ(make_report({}, {}, options()).markdown, "# pimg-tune report\n\nThe store holds no results.\n");
  EXPECT_EQ(JsonParser(best_json({}, {}, 3)).document().items.size(), 0u);
  EXPECT_EQ(best_table({}, {}, 3), "No ok results stored.\n");
}

EvaluationTime spent(const DeviceInfo& d, std::int64_t problem, const std::string& stage, double eval_ms,
                     std::optional<double> wall_ms, const std::string& at, bool raced = false, std::int64_t run = 1) {
  EvaluationTime t;
  t.run_id = run;
  t.device = d;
  t.problem_id = problem;
  t.stage = stage;
  t.raced = raced;
  t.eval_ms = eval_ms;
  t.wall_ms = wall_ms;
  t.created_at = "2024-01-01T00:00:" + at + "Z";
  return t;
}

// Provenance's time per run and device: search contenders and raced configurations by their wall time, the
// confirmation stage by each problem's series, whole programs, and the rest of each device's span as set-up.
TEST(Report, TimePerRunAndDevice) {
  ReportOptions o = options();
  o.runs = {{1, {"host", "2024-01-01T00:00:00Z", "abc", "pimg-tune conv", "0.1", "b"}}};
  for (const char* at : {"01.000", "02.000", "03.000"}) o.times.push_back(spent(kGpu, 1, "search", 900, 1000, at));
  for (const char* at : {"03.500", "04.000"}) o.times.push_back(spent(kGpu, 1, "search", 90, 100, at, true));
  o.times.push_back(spent(kGpu, 1, "confirm", 5000, std::nullopt, "15.000"));  // both rows of one series
  o.times.push_back(spent(kGpu, 1, "confirm", 5010, std::nullopt, "15.000"));
  o.times.push_back(spent(kGpu, 2, "confirm", 3000, std::nullopt, "15.001"));
  o.times.push_back(spent(kGpu, 1, "cold", 2000, std::nullopt, "20.000"));
  o.times.push_back(spent(kCpu, 1, "search", 500, std::nullopt, "25.000"));  // an older row: its evaluation time
  o.times.push_back(spent(kCpu, 1, "search", 500, 700, "26.000", false, 2));  // run 2 stored no row shown here
  const std::string md = section(make_report(fixture_rows(), fixture_bandwidths(), o).markdown, "### Time per run");
  ASSERT_FALSE(md.empty());
  const auto rows = table_rows(md, "1");
  ASSERT_EQ(rows.size(), 2u) << md;
  // Span 20 s; 3 + 0.2 + (5.01 + 3) + 2 s measured, the rest 6.79 s.
  EXPECT_EQ(rows[0], (std::vector<std::string>{"1", "opencl:Test GPU", "20.0 s", "3 · 3.0 s · 15%", "2 · 0.2 s · 1%",
                                               "2 · 8.0 s · 40%", "1 · 2.0 s · 10%", "6.8 s · 34%"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"1", "opencl:Test CPU", "5.0 s", "1 · 0.5 s · 10%", "\u2013", "\u2013",
                                               "\u2013", "4.5 s · 90%"}));
  EXPECT_NE(md.find("the race stopped 2 of 5 search configurations after 0.10 s each on average, where a contender "
                    "took 1.00 s; measured as long, they would have cost about 1.8 s more"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("evaluations overlapped"), std::string::npos);
  // Parts that add up to more than the span (processes storing into one run at once): no set-up, and said so.
  o.times.push_back(spent(kCpu, 1, "search", 9000, 9000, "25.500"));
  const std::string over = section(make_report(fixture_rows(), fixture_bandwidths(), o).markdown, "### Time per run");
  const auto cpu = table_row(over.substr(over.find("| 1 | opencl:Test CPU")), "1");
  ASSERT_EQ(cpu.size(), 8u) << over;
  EXPECT_EQ(cpu[7], "\u2013");
  EXPECT_EQ(cpu[3], "2 · 9.5 s · 100%");  // shares of the parts together
  EXPECT_NE(over.find("evaluations overlapped"), std::string::npos);
  // No times given (an imported family, an old caller): no such section.
  EXPECT_EQ(make_report(fixture_rows(), fixture_bandwidths(), options()).markdown.find("### Time per run"),
            std::string::npos);
}

TEST(Report, SweepComparesTheFastestTunedColumnWithTheHostCores) {
  // The CPU device computes on the host's cores and a GPU is tuned too: the GPU's gain over it is a column of its
  // own (12x here), decided by the device's capabilities, whatever its backend.
  auto rows = fixture_rows();
  for (auto& r : rows)
    if (r.device.name == "Test CPU" && r.device.backend == "opencl") r.device.backend = "openmp";
  auto bw = fixture_bandwidths();
  for (auto& b : bw)
    if (b.device.name == "Test CPU" && b.device.backend == "opencl") b.device.backend = "openmp";
  const Report r = make_report(rows, bw, options());
  const auto headers = table_rows(r.markdown, "size");
  ASSERT_EQ(headers.size(), 2u);
  ASSERT_EQ(headers[1].size(), 4u);
  EXPECT_EQ(headers[1][2], "over openmp:Test CPU");
  EXPECT_EQ(headers[1][3], "over opencv (baseline)");
  const auto cells = table_rows(r.markdown, "4096x4096");
  ASSERT_EQ(cells.size(), 3u);
  ASSERT_EQ(cells[2].size(), 4u);
  EXPECT_EQ(cells[2][2], "12.0x (opencl:Test GPU)");
  // No device off the host's cores: no such column; nor for devices whose capabilities a store before schema 9
  // did not keep.
  for (const bool old_store : {false, true}) {
    auto some = rows;
    if (old_store) {
      for (auto& x : some) x.device.caps = DeviceCaps::from_stored("");
    } else {
      some.erase(std::remove_if(some.begin(), some.end(), [](const ResultRow& x) { return x.device.name == "Test GPU"; }),
                 some.end());
    }
    const auto h = table_rows(make_report(some, bw, options()).markdown, "size");
    ASSERT_EQ(h.size(), 2u);
    EXPECT_EQ(std::count(h[1].begin(), h[1].end(), "over openmp:Test CPU"), 0) << (old_store ? "old store" : "no GPU");
  }
}

}  // namespace
}  // namespace pimg

namespace pimg {
namespace {

// Every contents link of a two-family report points at a heading id of its HTML page, the second
// family's at GitHub's "-1" anchors; the page inlines its plots and has unique ids.
TEST(ReportHtml, ContentsLinksResolveAndPlotsAreInlined) {
  auto rows = fixture_rows();
  const std::size_t n = rows.size();
  for (std::size_t i = 0; i < n; ++i) {
    ResultRow r = rows[i];
    r.problem.family = "flip";
    r.variant.family = "flip";
    r.id += 1000;
    rows.push_back(r);
  }
  const Report r = make_report(rows, fixture_bandwidths(), options());
  EXPECT_NE(r.markdown.find("- [Devices](#devices-1)"), std::string::npos);
  const std::string html = report_html(r, "two families");
  std::set<std::string> ids;
  const std::regex id("id=\"([^\"]+)\"");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), id); it != std::sregex_iterator(); ++it)
    EXPECT_TRUE(ids.insert((*it)[1]).second || (*it)[1].str().rfind("svg", 0) == 0) << "duplicate id " << (*it)[1];
  const std::regex href("href=\"#([^\"]+)\"");
  std::size_t links = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), href); it != std::sregex_iterator(); ++it, ++links)
    EXPECT_TRUE(ids.count((*it)[1])) << "link to a missing heading: " << (*it)[1];
  EXPECT_GT(links, 20u);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<?xml"), std::string::npos);
  std::size_t svgs = 0;
  for (auto p = html.find("<svg xmlns"); p != std::string::npos; p = html.find("<svg xmlns", p + 1)) ++svgs;
  EXPECT_EQ(svgs, r.files.size());
}

}  // namespace
}  // namespace pimg

namespace pimg {
namespace {

// A `code` span of the markdown is <code> in the page, its text escaped and free of link syntax; a lone
// backquote stays a character.
TEST(ReportHtml, CodeSpansAreCode) {
  Report r;
  r.markdown = "# T\n\nRank with `best --objective energy` or `a < [b](c)`; a lone ` stays.\n";
  const std::string html = report_html(r, "code");
  EXPECT_NE(html.find("<code>best --objective energy</code>"), std::string::npos) << html;
  EXPECT_NE(html.find("<code>a &lt; [b](c)</code>"), std::string::npos) << html;
  EXPECT_NE(html.find("a lone ` stays."), std::string::npos) << html;
}

}  // namespace
}  // namespace pimg
