// The SQLite store: schema and migrations, round trip of every field, latest-row semantics,
// resume lookups, refusal of foreign or newer databases (byte for byte unchanged), read-only
// opening, leases between tuners.
#include <gtest/gtest.h>

#include <cstdio>
#include <sqlite3.h>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "pimg/errors.hpp"
#include "pimg/store.hpp"

using namespace pimg;
namespace fs = std::filesystem;

namespace {

struct TempDb {
  fs::path path;
  TempDb() {
    path = fs::temp_directory_path() / ("pimg-store-test-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".db");
    fs::remove(path);
  }
  ~TempDb() {
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path.string() + suffix);
  }
};

DeviceInfo device() {
  DeviceInfo d;
  d.backend = "opencl";
  d.name = "pthread-test";
  d.vendor = "PoCL";
  d.driver = "5.0";
  d.platform = "Portable Computing Language";
  d.compute_units = 2;
  d.global_mem_bytes = 1 << 30;
  d.max_work_group_size = 4096;
  return d;
}

EvalResult ok_result(double base) {
  EvalResult r;
  r.kernel_ms = {base + 0.2, base, base + 0.1};
  r.wall_ms = {base + 1, base + 1, base + 1};
  r.metrics = {{"mpi.comm_ms", "ms", 0, 0.5}, {"mpi.comm_ms", "ms", 1, 0.25}, {"mpi.comm_ms", "ms", 2, 0.125}};
  r.kernel = Stats::of(r.kernel_ms);
  r.compile_ms = 12.5;
  r.h2d_ms = 0.5;
  r.d2h_ms = 0.25;
  r.validation = "exact";
  r.log = "build ok";
  return r;
}

}  // namespace

TEST(Store, CreatesSchemaAtCurrentVersion) {
  TempDb db;
  Store s(db.path.string());
  EXPECT_EQ(s.schema_version(), Store::kSchemaVersion);
  EXPECT_EQ(Store::kSchemaVersion, 12);
}

// Schema 11: a backend's per-run measurements are metrics; the communication times an older store kept in the
// samples' column (schema 4) become metrics named mpi.comm_ms, one per timed run, and rows without any get none.
TEST(Store, MovesTheSamplesCommunicationTimesIntoMetrics) {
  TempDb db;
  {
    Store s(db.path.string());
    const std::int64_t run = s.begin_run({"host", "2026-11-23T00:00:00Z", "abc123", "pimg-tune conv", "0.1.0"});
    const std::int64_t dev = s.device_id(device());
    const std::int64_t prob = s.problem_id({"conv", 64, 32, 1, {{"filter", "sharpen3"}}}, {2048, "MPix/s", {12288, 36864}});
    Config a, b;
    a.set("ranks", std::int64_t{2});
    b.set("ranks", std::int64_t{1});
    EvalResult r = ok_result(2.0);
    r.metrics.clear();
    s.save(run, dev, prob, s.variant_id({"conv", "mpi_rows", "mpi", "feed"}), a, r);
    s.save(run, dev, prob, s.variant_id({"conv", "serial", "host", "feed"}), b, r);
  }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db.path.c_str(), &raw), SQLITE_OK);
  // A store of schema 10: without schema 12's columns either.
  const char* older =
      "UPDATE samples SET comm_ms = 0.5 + seq WHERE evaluation_id = 1; ALTER TABLE bandwidth DROP COLUMN kind; "
      "ALTER TABLE problems DROP COLUMN min_written; PRAGMA user_version = 10;";
  ASSERT_EQ(sqlite3_exec(raw, older, nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  Store s(db.path.string(), Store::Mode::existing);
  EXPECT_EQ(s.schema_version(), 12);
  auto rows = s.rows_with_samples();
  s.add_metrics(rows);
  ASSERT_EQ(rows.size(), 2u);
  for (const ResultRow& r : rows) {
    std::vector<std::pair<int, double>> comm;
    for (const Metric& m : r.result.metrics)
      if (m.name == "mpi.comm_ms") comm.emplace_back(m.seq, m.value);
    if (r.variant.name == "mpi_rows")
      EXPECT_EQ(comm, (std::vector<std::pair<int, double>>{{0, 0.5}, {1, 1.5}, {2, 2.5}}));
    else
      EXPECT_TRUE(comm.empty());
  }
}

// Schema 10: where the backend listed a device when a tuner last saw it (what "opencl:0" names); not known for a
// row from before (-1) until a tuner sees the device again.
TEST(Store, KeepsWhereTheBackendListsADevice) {
  TempDb db;
  Store s(db.path.string());
  const std::int64_t run = s.begin_run({"host", "2026-11-29T00:00:00Z", "abc123", "pimg-tune conv", "0.1.0"});
  DeviceInfo d = device();
  d.index = 2;
  const std::int64_t dev = s.device_id(d);
  const std::int64_t prob = s.problem_id({"conv", 64, 32, 1, {{"filter", "box3"}}}, {1, "MPix/s", {1, 1}});
  const std::int64_t var = s.variant_id({"conv", "cl_direct", "opencl", "feed"});
  s.save(run, dev, prob, var, Config{}, ok_result(2.0));
  EXPECT_EQ(s.rows_with_samples()[0].device.index, 2);
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db.path.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "UPDATE devices SET position = -1", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  EXPECT_EQ(s.rows_with_samples()[0].device.index, -1);
  d.index = 1;  // listed elsewhere now (a device added or removed): the latest position
  EXPECT_EQ(s.device_id(d), dev);
  EXPECT_EQ(s.rows_with_samples()[0].device.index, 1);
  d.index = -1;  // a caller that does not know (an import) leaves it as it is
  EXPECT_EQ(s.device_id(d), dev);
  EXPECT_EQ(s.rows_with_samples()[0].device.index, 1);
}

// Schema 9: a device's capabilities are kept, so a report decides by them; a row from before (caps '') reads as
// not known until a tuner sees the device again, and a backend that says more later updates the row.
TEST(Store, KeepsWhatADeviceIs) {
  TempDb db;
  Store s(db.path.string());
  const std::int64_t run = s.begin_run({"host", "2026-11-29T00:00:00Z", "abc123", "pimg-tune conv", "0.1.0"});
  DeviceInfo cpu = device();
  cpu.caps.host_cores = cpu.caps.compiles_at_first_launch = true;
  cpu.caps.check_source = "check/check.cl";  // the backend's business: not kept
  const std::int64_t dev = s.device_id(cpu);
  const std::int64_t prob = s.problem_id({"conv", 64, 32, 1, {{"filter", "box3"}}}, {1, "MPix/s", {1, 1}});
  const std::int64_t var = s.variant_id({"conv", "cl_direct", "opencl", "feed"});
  s.save(run, dev, prob, var, Config{}, ok_result(2.0));
  auto rows = s.rows_with_samples();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(rows[0].device.caps.known);
  EXPECT_TRUE(rows[0].device.caps.host_cores);
  EXPECT_TRUE(rows[0].device.caps.compiles_at_first_launch);
  EXPECT_FALSE(rows[0].device.caps.distributed);
  EXPECT_FALSE(rows[0].device.caps.program_globals);
  EXPECT_EQ(rows[0].device.caps.check_source, "");

  // As a store written before schema 9 has it: not known.
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db.path.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "UPDATE devices SET caps = ''", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  rows = s.rows_with_samples();
  EXPECT_FALSE(rows[0].device.caps.known);
  EXPECT_FALSE(rows[0].device.caps.host_cores);
  // Seen again by a tuner: known, the same row.
  EXPECT_EQ(s.device_id(cpu), dev);
  EXPECT_TRUE(s.rows_with_samples()[0].device.caps.host_cores);
  // A device with no flag set is known too ("none"), not taken for an old row.
  DeviceInfo gpu = device();
  gpu.name = "gpu-test";
  const std::int64_t g = s.device_id(gpu);
  s.save(run, g, prob, var, Config{}, ok_result(1.0));
  for (const ResultRow& r : s.rows_with_samples())
    if (r.device.name == "gpu-test") {
      EXPECT_TRUE(r.device.caps.known);
      EXPECT_FALSE(r.device.caps.host_cores);
    }
  EXPECT_EQ(DeviceCaps::from_stored(DeviceCaps{}.stored()).known, true);
  EXPECT_EQ(DeviceCaps{}.stored(), "none");
}

TEST(Store, RoundTripsEveryField) {
  TempDb db;
  Store s(db.path.string());
  std::int64_t run = s.begin_run({"host", "2026-11-23T00:00:00Z", "abc123", "pimg-tune conv", "0.1.0"});
  std::int64_t dev = s.device_id(device());
  EXPECT_EQ(s.device_id(device()), dev);  // idempotent
  Problem p{"conv", 64, 32, 3, {{"filter", "sharpen3"}, {"border", "zero"}}};
  std::int64_t prob = s.problem_id(p, {2048, "MPix/s", {12288, 36864}});
  std::int64_t var = s.variant_id({"conv", "cl_direct", "opencl", "feed"});
  Config c;
  c.set("block_x", std::int64_t{16});
  c.set("filter_mem", std::string("constant"));
  s.save(run, dev, prob, var, c, ok_result(2.0));

  auto rows = s.rows_with_samples();
  ASSERT_EQ(rows.size(), 1u);
  const ResultRow& r = rows[0];
  EXPECT_EQ(r.device.name, "pthread-test");
  EXPECT_EQ(r.device.compute_units, 2);
  EXPECT_EQ(r.problem, p);
  EXPECT_DOUBLE_EQ(r.cost.work, 2048);
  EXPECT_DOUBLE_EQ(r.cost.traffic.bytes, 12288);
  EXPECT_EQ(r.variant.name, "cl_direct");
  EXPECT_EQ(r.variant.source_hash, "feed");
  EXPECT_EQ(r.config, c);
  EXPECT_EQ(r.result.status, Status::ok);
  EXPECT_DOUBLE_EQ(r.result.kernel.median, 2.1);
  EXPECT_DOUBLE_EQ(r.result.compile_ms, 12.5);
  EXPECT_EQ(r.result.kernel_ms, (std::vector<double>{2.2, 2.0, 2.1}));
  std::vector<ResultRow> with = rows;
  s.add_metrics(with);
  std::vector<double> comm;  // the backend's per-run measurement, a metric per timed run
  for (const Metric& m : with[0].result.metrics)
    if (m.name == "mpi.comm_ms") comm.push_back(m.value);
  EXPECT_EQ(comm, (std::vector<double>{0.5, 0.25, 0.125}));
  EXPECT_EQ(r.result.validation, "exact");
}

// A run, device, problem and variant in `s`, for tests that store a few evaluations.
struct Ids {
  std::int64_t run, dev, prob, var;
};
Ids some_ids(Store& s) {
  const auto run = s.begin_run({"host", "2026-01-01T00:00:00Z", "abc", "cmd", "1"});
  Problem p{"conv", 64, 64, 1, {{"filter", "box3"}}};
  return {run, s.device_id(device()), s.problem_id(p, {4096, "MPix/s", {}}),
          s.variant_id({"conv", "cl_direct", "opencl", "h1"})};
}

// Schema 5: the timing method, the median's interval, identity, flags, stage and observers' metrics
// come back as stored; a new status needs no table change; confirmation rows are not the search's latest.
TEST(Store, RoundTripsMeasurementFieldsAndMetrics) {
  TempDb db;
  Store s(db.path.string());
  const auto [run, dev, prob, var] = some_ids(s);
  EvalResult r = ok_result(2.0);
  r.method = "cuda-events spin cold-l2";
  r.ci_low_ms = 1.9;
  r.ci_high_ms = 2.2;
  r.identity = "0123abcd";
  r.flags = {"throttled", "loaded"};
  r.metrics = {{"nvml.sm_clock_mhz", "MHz", 0, 1980}, {"nvml.energy", "J", -1, 0.25}};
  s.save(run, dev, prob, var, Config{}, r);
  EvalResult confirm = ok_result(3.0);
  confirm.stage = "confirm";
  s.save(run, dev, prob, var, Config{}, confirm);
  EvalResult harness;
  harness.status = Status::harness_error;
  harness.log = "plan threw std::bad_alloc";
  Config other;
  other.set("block_x", std::int64_t{4});
  s.save(run, dev, prob, var, other, harness);

  auto rows = s.rows_with_samples();
  ASSERT_EQ(rows.size(), 2u) << "the confirmation row is not the search's latest";
  EXPECT_EQ(rows[0].result.method, r.method);
  EXPECT_DOUBLE_EQ(rows[0].result.ci_low_ms, 1.9);
  EXPECT_DOUBLE_EQ(rows[0].result.ci_high_ms, 2.2);
  EXPECT_EQ(rows[0].result.identity, "0123abcd");
  EXPECT_EQ(rows[0].result.flags, (std::vector<std::string>{"throttled", "loaded"}));
  EXPECT_EQ(rows[0].result.stage, "search");
  ASSERT_EQ(rows[0].result.metrics.size(), 2u);
  EXPECT_EQ(rows[0].result.metrics[0].name, "nvml.energy");
  EXPECT_EQ(rows[0].result.metrics[0].seq, -1);
  EXPECT_DOUBLE_EQ(rows[0].result.metrics[1].value, 1980);
  EXPECT_EQ(rows[1].result.status, Status::harness_error);
}

TEST(Store, LatestEvaluationWinsAndFindSeesIt) {
  TempDb db;
  Store s(db.path.string());
  const auto [run, dev, prob, var] = some_ids(s);
  Config c;
  c.set("x", std::int64_t{1});
  EXPECT_FALSE(s.find(dev, prob, var, c));
  EvalResult bad;
  bad.status = Status::wrong_result;
  bad.log = "run 1: 3 of 64 bytes differ";
  s.save(run, dev, prob, var, c, bad);
  s.save(run, dev, prob, var, c, ok_result(1.0));
  auto found = s.find(dev, prob, var, c);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->result.status, Status::ok);
  EXPECT_EQ(s.rows().size(), 1u);  // the earlier row is kept but not current
  // A different source hash is a different variant row: nothing found for it.
  std::int64_t var2 = s.variant_id({"conv", "cl_direct", "opencl", "h2"});
  EXPECT_FALSE(s.find(dev, prob, var2, c));
}

TEST(Store, FiltersAndBandwidth) {
  TempDb db;
  Store s(db.path.string());
  std::int64_t run = s.begin_run({"h", "t", "c", "cmd", "v"});
  std::int64_t dev = s.device_id(device());
  EXPECT_FALSE(s.bandwidth(dev));
  s.save_bandwidth(dev, 1 << 26, 10.0);
  s.save_bandwidth(dev, 1 << 26, 12.5);
  EXPECT_DOUBLE_EQ(*s.bandwidth(dev), 12.5);
  ASSERT_EQ(s.bandwidths().size(), 1u);
  EXPECT_DOUBLE_EQ(s.bandwidths()[0].gbs, 12.5);
  std::int64_t p1 = s.problem_id({"conv", 8, 8, 1, {}}, {64, "MPix/s", {128, 1}});
  std::int64_t p2 = s.problem_id({"conv", 16, 8, 1, {}}, {128, "MPix/s", {256, 1}});
  std::int64_t var = s.variant_id({"conv", "v", "opencl", "h"});
  Config c;
  s.save(run, dev, p1, var, c, ok_result(1));
  s.save(run, dev, p2, var, c, ok_result(2));
  RowFilter f;
  f.size = "16x8";
  EXPECT_EQ(s.rows(f).size(), 1u);
  f = {};
  f.device = "PTHREAD";
  EXPECT_EQ(s.rows(f).size(), 2u);
  f.device = "cuda";
  EXPECT_EQ(s.rows(f).size(), 0u);
  f = {};
  f.family = "hist";
  EXPECT_EQ(s.rows(f).size(), 0u);
}

// Schema 12: a bandwidth row says whether it is a copy or a read, and the latest copy stays the device's bandwidth;
// a problem keeps how many of its bytes are written, learnt later by a problem stored without it.
TEST(Store, ReadCeilingsAndWrittenBytes) {
  TempDb db;
  Store s(db.path.string());
  const std::int64_t run = s.begin_run({"h", "t", "c", "cmd", "v"});
  const std::int64_t dev = s.device_id(device());
  s.save_bandwidth(dev, 1 << 25, 40.0, run, "m; copy_vec", "copy");
  s.save_bandwidth(dev, 1 << 26, 30.0, run, "m; read_vec", "read");
  EXPECT_DOUBLE_EQ(*s.bandwidth(dev), 40.0);  // the read, saved later, is not the copy bandwidth
  ASSERT_EQ(s.bandwidths().size(), 1u);
  EXPECT_EQ(s.bandwidths()[0].kind, "copy");
  const auto all = s.all_bandwidths();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].kind, "copy");
  EXPECT_EQ(all[1].kind, "read");
  EXPECT_DOUBLE_EQ(all[1].gbs, 30.0);

  const Problem hist{"hist", 8, 8, 1, {}};
  const std::int64_t p = s.problem_id(hist, {64, "MPix/s", {1088, 64}});  // no split: NULL
  const std::int64_t var = s.variant_id({"hist", "v", "opencl", "h"});
  s.save(run, dev, p, var, Config{}, ok_result(1));
  EXPECT_FALSE(s.rows().at(0).cost.traffic.written);
  Traffic t{1088, 64};
  t.written = 1024;
  EXPECT_EQ(s.problem_id(hist, {64, "MPix/s", t}), p);  // the same problem learns its split
  ASSERT_TRUE(s.rows().at(0).cost.traffic.written);
  EXPECT_DOUBLE_EQ(*s.rows().at(0).cost.traffic.written, 1024);
  EXPECT_DOUBLE_EQ(s.rows().at(0).cost.traffic.read(), 64);
}

TEST(Store, RefusesForeignNewerAndMissingDatabases) {
  TempDb db;
  EXPECT_THROW(Store(db.path.string(), Store::Mode::existing), UsageError);
  EXPECT_FALSE(fs::exists(db.path));
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(db.path.c_str(), &raw), SQLITE_OK);
    sqlite3_exec(raw, "CREATE TABLE other (x)", nullptr, nullptr, nullptr);
    sqlite3_close(raw);
  }
  EXPECT_THROW(Store{db.path.string()}, UsageError);
  fs::remove(db.path);
  {
    Store s(db.path.string());
  }
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(db.path.c_str(), &raw), SQLITE_OK);
    sqlite3_exec(raw, "PRAGMA user_version = 99", nullptr, nullptr, nullptr);
    sqlite3_close(raw);
  }
  try {
    Store s(db.path.string());
    FAIL() << "opened a newer schema";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("newer"), std::string::npos);
  }
  TempDb junk;
  {
    std::FILE* f = std::fopen(junk.path.c_str(), "w");
    std::fputs("this is not a database, just text that is long enough to have a header", f);
    std::fclose(f);
  }
  EXPECT_THROW(Store{junk.path.string()}, UsageError);
}

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

Config config_of(std::int64_t wg) {
  Config c;
  c.set("wg", wg);
  return c;
}

bool side_files(const fs::path& p) { return fs::exists(p.string() + "-wal") || fs::exists(p.string() + "-shm"); }

TEST(Store, RefusedFilesStayByteForByteWithoutSideFiles) {
  TempDb foreign, newer, text;
  for (auto [db, sql] : {std::pair{&foreign, "CREATE TABLE other (x); INSERT INTO other VALUES (1);"},
                         std::pair{&newer, "CREATE TABLE evaluations (x); PRAGMA user_version = 99;"}}) {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(db->path.c_str(), &raw), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(raw, sql, nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(raw);
  }
  std::ofstream(text.path) << std::string(4096, 'x');
  for (const TempDb* db : {&foreign, &newer, &text})
    for (Store::Mode mode : {Store::Mode::create, Store::Mode::existing, Store::Mode::read_only}) {
      const std::string before = bytes_of(db->path);
      EXPECT_THROW(Store(db->path.string(), mode), UsageError) << db->path;
      EXPECT_EQ(bytes_of(db->path), before) << db->path;
      EXPECT_FALSE(side_files(db->path)) << db->path;
    }
}

TEST(Store, RefusesNamesThatDiscardResults) {
  for (const char* name : {"", ":memory:", "file:x.db?mode=memory"}) EXPECT_THROW(Store{name}, UsageError) << name;
}

TEST(Store, ReadOnlyOpeningReadsWithoutWritingOrSideFiles) {
  TempDb db;
  {
    Store s(db.path.string());
    const auto [run, dev, prob, var] = some_ids(s);
    s.save(run, dev, prob, var, config_of(8), ok_result(1));
  }
  ASSERT_FALSE(side_files(db.path));
  const std::string before = bytes_of(db.path);
  {
    Store s(db.path.string(), Store::Mode::read_only);
    EXPECT_EQ(s.rows().size(), 1u);
    EXPECT_ANY_THROW(s.begin_run({"host", "t", "c", "cmd", "1"}));
  }
  EXPECT_EQ(bytes_of(db.path), before);
  EXPECT_FALSE(side_files(db.path));
  TempDb empty;
  std::ofstream(empty.path).close();
  EXPECT_THROW(Store(empty.path.string(), Store::Mode::read_only), UsageError);
  EXPECT_EQ(fs::file_size(empty.path), 0u);
  EXPECT_FALSE(side_files(empty.path));
}

// A store deleted or replaced during a run: SQLite would go on writing to the deleted file, so the next save
// ends the run naming it.
TEST(Store, DeletedOrReplacedDuringARunEndsTheRun) {
  for (const bool replace : {false, true}) {
    TempDb db;
    Store s(db.path.string());
    const auto [run, dev, prob, var] = some_ids(s);
    s.save(run, dev, prob, var, config_of(8), ok_result(1));
    fs::remove(db.path);
    if (replace) std::ofstream(db.path) << "another file";
    try {
      s.save(run, dev, prob, var, config_of(16), ok_result(1));
      ADD_FAILURE() << "a save into a " << (replace ? "replaced" : "deleted") << " store went unnoticed";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(replace ? "replaced by another file" : "was deleted"), std::string::npos)
          << e.what();
    }
  }
}

// A store that fails SQLite's integrity check is refused before anything is written to it; reading it stays
// possible.
TEST(Store, DamagedStoreIsRefusedBeforeWriting) {
  TempDb db;
  {
    Store s(db.path.string());
    const auto [run, dev, prob, var] = some_ids(s);
    for (int i = 1; i <= 200; ++i) s.save(run, dev, prob, var, config_of(i), ok_result(i));
  }
  {  // checkpoint the WAL into the file, then damage the last page (rows, not the schema)
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(db.path.c_str(), &raw), SQLITE_OK);
    sqlite3_exec(raw, "PRAGMA journal_mode = DELETE", nullptr, nullptr, nullptr);
    sqlite3_close(raw);
  }
  ASSERT_FALSE(side_files(db.path));
  const auto size = fs::file_size(db.path);
  ASSERT_GT(size, 8192u);
  {
    std::fstream f(db.path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size - 4096 + 8));
    const std::string junk(512, '\x5a');
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  const std::string before = bytes_of(db.path);
  try {
    Store s(db.path.string(), Store::Mode::existing);
    ADD_FAILURE() << "a damaged store was opened for writing";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("fails SQLite's integrity check"), std::string::npos) << e.what();
  }
  EXPECT_EQ(bytes_of(db.path), before);
}

std::string start_time_of(pid_t pid) {
  std::string stat = bytes_of("/proc/" + std::to_string(pid) + "/stat");
  std::istringstream rest(stat.substr(stat.rfind(')') + 2));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i) {
  }
  return field;
}

TEST(Store, LeasesKeepOutLiveOwnersAndExpireDeadOnes) {
  TempDb db;
  Store s(db.path.string());
  Problem p{"conv", 64, 64, 1, {{"filter", "box3"}}};
  const auto dev = s.device_id(device()), prob = s.problem_id(p, {4096, "MPix/s", {}}),
             var = s.variant_id({"conv", "cl_direct", "opencl", "h1"});
  const Config mine = config_of(1), theirs = config_of(2);
  EXPECT_TRUE(s.claim(dev, prob, var, mine));
  EXPECT_TRUE(s.claim(dev, prob, var, mine));  // again: still ours
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  auto lease_of = [&](pid_t pid, const std::string& start) {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(db.path.c_str(), &raw), SQLITE_OK);
    const std::string sql = "INSERT OR REPLACE INTO leases VALUES (" + std::to_string(dev) + "," + std::to_string(prob) +
                            "," + std::to_string(var) + ",'" + theirs.hash() + "','" + host + "'," +
                            std::to_string(pid) + ",'" + start + "', strftime('%s','now'))";
    ASSERT_EQ(sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(raw);
    sqlite3_close(raw);
  };
  // A live process (our parent) holds it: kept out.
  const pid_t parent = ::getppid();
  lease_of(parent, start_time_of(parent));
  Store::LeaseHolder holder;
  EXPECT_FALSE(s.claim(dev, prob, var, theirs, &holder));
  EXPECT_EQ(holder.who, std::string(host) + " pid " + std::to_string(parent));
  EXPECT_GE(holder.age_s, 0);
  EXPECT_LT(holder.age_s, 60);
  // The same pid but another start time (a reused pid): the owner is gone.
  lease_of(parent, "1");
  EXPECT_TRUE(s.claim(dev, prob, var, theirs));
  // A pid that does not run: taken over.
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  lease_of(child, "12345");
  EXPECT_TRUE(s.claim(dev, prob, var, theirs));
  s.release(dev, prob, var, theirs);
  s.release(dev, prob, var, mine);
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db.path.c_str(), &raw), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(raw, "SELECT count(*) FROM leases", -1, &st, nullptr);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(st, 0), 0);
  sqlite3_finalize(st);
  sqlite3_close(raw);
}

std::string migration_sql(const std::string& name) {
  std::ifstream in(std::string(PIMG_SOURCE_DIR) + "/results/migrations/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// One ok evaluation with one sample as schema `version` (1 or 2) holds it, inserted by SQL: its device on `backend`,
// its variant the variants table's row `variant_row` (002 added a column).
std::string one_evaluation(const std::string& backend, const std::string& variant_row, int version) {
  return "INSERT INTO runs VALUES (1,'h','t','c','cmd','v');"
         "INSERT INTO devices VALUES (1,'" + backend + "','d','v','1','p',2,1,1,1);"
         "INSERT INTO problems VALUES (1,'conv','{}',8,8,1,64,'MPix/s',128,1);"
         "INSERT INTO variants VALUES " + variant_row + ";"
         "INSERT INTO configs VALUES (1,'c1','{}');"
         "INSERT INTO evaluations (id, run_id, device_id, problem_id, variant_id, config_id, status, log, validation, "
         "compile_ms, compile_cached, h2d_ms, d2h_ms, min_ms, median_ms, mean_ms, stddev_ms, eval_ms) "
         "VALUES (1,1,1,1,1,1,'ok','','exact',1,0,0,0,1,2,2,0,3);"
         "INSERT INTO samples VALUES (1,0,2.0,2.5);"
         "PRAGMA user_version = " + std::to_string(version) + ";";
}

// A database as schema 1 wrote it (the real migration file 001, a row inserted by SQL): every later
// migration keeps the row.
TEST(Store, MigratesAVersionOneDatabase) {
  TempDb db;
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(db.path.c_str(), &raw), SQLITE_OK);
    const std::string script =
        migration_sql("001_initial.sql") + one_evaluation("host", "(1,'conv','serial','host','h')", 1);
    char* err = nullptr;
    ASSERT_EQ(sqlite3_exec(raw, script.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
    sqlite3_close(raw);
  }
  {  // A reading command migrates a copy in memory and leaves the file as it was.
    const std::string before = bytes_of(db.path);
    Store r(db.path.string(), Store::Mode::read_only);
    EXPECT_EQ(r.rows().size(), 1u);
    EXPECT_EQ(bytes_of(db.path), before);
    EXPECT_FALSE(side_files(db.path));
  }
  Store s(db.path.string(), Store::Mode::existing);
  EXPECT_EQ(s.schema_version(), Store::kSchemaVersion);
  auto rows = s.rows();
  ASSERT_EQ(rows.size(), 1u);  // nothing lost
  EXPECT_TRUE(rows[0].variant.baseline) << "migration 002 marks host variants as baselines";
  EXPECT_EQ(rows[0].result.stage, "search") << "migration 005: old rows come from the search";
  EXPECT_EQ(rows[0].result.method, "");
}

// A database as schema 2 wrote it (the real migration files 001 and 002, rows inserted by SQL):
// migration 003 rebuilds the evaluations table for the status 'crash' and keeps every row and
// sample; the view and index come back.
TEST(Store, MigratesAVersionTwoDatabaseAndStoresCrashes) {
  TempDb db;
  auto sql_file = migration_sql;
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(db.path.c_str(), &raw), SQLITE_OK);
    const std::string script = sql_file("001_initial.sql") + sql_file("002_variant_baseline.sql") +
                               one_evaluation("opencl", "(1,'conv','cl_direct','opencl','h',0)", 2);
    char* err = nullptr;
    ASSERT_EQ(sqlite3_exec(raw, script.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
    // Schema 2 refuses the new status: this is what 003 changes.
    EXPECT_NE(sqlite3_exec(raw, "UPDATE evaluations SET status='crash'", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(raw);
  }
  Store s(db.path.string(), Store::Mode::existing);
  EXPECT_EQ(s.schema_version(), Store::kSchemaVersion);
  auto rows = s.rows_with_samples();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].result.status, Status::ok);
  EXPECT_EQ(rows[0].result.kernel.median, 2.0);
  ASSERT_EQ(rows[0].result.kernel_ms.size(), 1u);
  EvalResult crashed;
  crashed.status = Status::crash;
  crashed.log = "worker killed by signal 11 (Segmentation fault)";
  Config c;
  c.set("block_x", std::int64_t{8});
  s.save(1, 1, 1, 1, c, crashed);
  auto after = s.rows();
  ASSERT_EQ(after.size(), 2u);
  EXPECT_EQ(after[1].result.status, Status::crash);
  EXPECT_EQ(after[1].result.log, crashed.log);
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db.path.c_str(), &raw), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(raw, "PRAGMA integrity_check", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "ok");
  sqlite3_finalize(st);
  ASSERT_EQ(sqlite3_prepare_v2(raw, "SELECT count(*) FROM sqlite_master WHERE name IN ('latest','evaluations_key')",
                               -1, &st, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(st, 0), 2);
  sqlite3_finalize(st);
  sqlite3_close(raw);
}

// Two stores opening one new database at once both end at the current schema (the version is
// read again under the write lock, so the second does not run 001 a second time).
TEST(Store, ConcurrentOpensOfANewDatabaseMigrateOnce) {
  TempDb db;
  for (int round = 0; round < 5; ++round) {
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(db.path.string() + suffix);
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      try {
        Store s(db.path.string());
        ::_exit(s.schema_version() == Store::kSchemaVersion ? 0 : 3);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "child: %s\n", e.what());
        ::_exit(4);
      }
    }
    Store s(db.path.string());
    EXPECT_EQ(s.schema_version(), Store::kSchemaVersion);
    int status = 0;
    ::waitpid(child, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  }
}

namespace {

// One integer answered by SQL on the file, beside the Store.
std::int64_t sql_int(const fs::path& db, const std::string& sql) {
  sqlite3* raw = nullptr;
  EXPECT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(raw, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(raw) << ": " << sql;
  std::int64_t v = -1;
  if (st && sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(raw);
  return v;
}

}  // namespace

// The views of docs/store.md answer the common questions; confirmation rows are read apart from the
// search rows, and runs are listed with their rows.
TEST(Store, ViewsForPeopleAndConfirmationRows) {
  TempDb db;
  {
    Store s(db.path.string());
    const auto run = s.begin_run({"h", "2026-11-24T00:00:00Z", "c", "cmd", "v"});
    const auto d = s.device_id(device());
    Problem p{"conv", 64, 48, 1, {{"divisor", "16"}, {"filter", "gaussian3"}}};
    const auto prob = s.problem_id(p, {64.0 * 48, "MPix/s", {}});
    const auto var = s.variant_id({"conv", "cl_direct", "opencl", "h"});
    for (std::int64_t x = 1; x <= 3; ++x) {
      Config c;
      c.set("items", x);
      s.save(run, d, prob, var, c, ok_result(static_cast<double>(x)));
    }
    Config c;
    c.set("items", std::int64_t{4});
    EvalResult bad = ok_result(0.1);
    bad.status = Status::compile_error;
    s.save(run, d, prob, var, c, bad);
    EvalResult confirm = ok_result(2.5);
    confirm.stage = "confirm";
    c.set("items", std::int64_t{2});
    s.save(run, d, prob, var, c, confirm);
    EXPECT_EQ(s.rows().size(), 4u);
    ASSERT_EQ(s.confirm_rows().size(), 1u);
    EXPECT_EQ(s.confirm_rows().front().result.stage, "confirm");
    EXPECT_EQ(s.ranking_rows().size(), 5u);
    EXPECT_EQ(s.run_rows(run).size(), 5u);
    EXPECT_TRUE(s.run_rows(run + 1).empty());
    ASSERT_EQ(s.runs().size(), 1u);
    EXPECT_EQ(s.runs().front().info.command_line, "cmd");
  }
  EXPECT_EQ(sql_int(db.path, "SELECT count(*) FROM results"), 5);
  EXPECT_EQ(sql_int(db.path, "SELECT count(*) FROM best_per_problem_device"), 2);  // search and confirm
  EXPECT_EQ(sql_int(db.path, "SELECT json_extract(config, '$.items') FROM best_per_problem_device WHERE stage = 'search'"), 1);
  EXPECT_EQ(sql_int(db.path, "SELECT json_extract(config, '$.items') FROM best_per_problem_device WHERE stage = 'confirm'"), 2);
  EXPECT_EQ(sql_int(db.path, "SELECT count(*) FROM config_samples WHERE json_extract(config, '$.items') = 3"), 3);
  EXPECT_EQ(sql_int(db.path, "SELECT evaluations FROM failures_by_status WHERE status = 'compile_error'"), 1);
  EXPECT_EQ(sql_int(db.path, "SELECT ok FROM run_summary"), 4);
  EXPECT_EQ(sql_int(db.path, "SELECT confirm FROM run_summary"), 1);
  // Numeric problem attributes are numbers in problem_json (strings in the canonical identity).
  EXPECT_EQ(sql_int(db.path, "SELECT count(*) FROM results WHERE json_extract(problem_json, '$.divisor') = 16"), 5);
  EXPECT_EQ(sql_int(db.path, "SELECT count(*) FROM results WHERE json_extract(problem, '$.divisor') = 16"), 0);
}

// Rankings read the rows of each (family, device)'s current build (that of its latest run) only; the
// rows of older builds come back marked with all_builds, and are counted either way.
// One variant of one problem on one device, configuration x=1 saved by a run of build-a and x=2 by a
// later run of build-b.
struct TwoBuilds {
  TempDb db;
  Store s{db.path.string()};
  const std::int64_t dev = s.device_id(device());
  const std::int64_t prob = s.problem_id({"conv", 8, 8, 1, {}}, {64, "MPix/s", {128, 1}});
  const std::int64_t var = s.variant_id({"conv", "v", "opencl", "h1"});
  Config c1, c2;
  std::int64_t old_run = 0, new_run = 0;

  TwoBuilds(const EvalResult& older, const EvalResult& newer) {
    c1.set("x", std::int64_t{1});
    c2.set("x", std::int64_t{2});
    old_run = s.begin_run({"h", "t", "c", "cmd", "v", "build-a"});
    s.save(old_run, dev, prob, var, c1, older);
    new_run = s.begin_run({"h", "t", "c", "cmd", "v", "build-b"});
    s.save(new_run, dev, prob, var, c2, newer);
  }
};

TEST(Store, RankingRowsKeepTheCurrentBuildAndMarkOlderOnes) {
  TwoBuilds b(ok_result(1.0), ok_result(2.0));
  Store& s = b.s;
  const std::int64_t old_run = b.old_run, new_run = b.new_run;
  std::size_t older = 99;
  auto rows = s.ranking_rows({}, false, &older);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].run_id, new_run);
  EXPECT_FALSE(rows[0].older_build);
  EXPECT_EQ(older, 1u);
  RowFilter all;
  all.all_builds = true;
  rows = s.ranking_rows(all, false, &older);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(older, 1u);
  for (const ResultRow& r : rows) EXPECT_EQ(r.older_build, r.run_id == old_run);
  // A later run of the old build makes that build current again for this (family, device).
  const std::int64_t again = s.begin_run({"h", "t", "c", "cmd", "v", "build-a"});
  s.save(again, b.dev, b.prob, b.var, b.c1, ok_result(1.5));
  rows = s.ranking_rows({}, false, &older);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].run_id, again);
  EXPECT_EQ(older, 1u);
}

// Whole-program (cold) rows follow the same rule as rankings, so best --json, the report and the T4 export
// never show an older build's cold runs beside the current build's winners unless asked to.
TEST(Store, StageRowsKeepTheCurrentBuildLikeRankings) {
  EvalResult cold = ok_result(1.0);
  cold.stage = "cold";
  TwoBuilds b(cold, cold);
  Store& s = b.s;
  const std::int64_t old_run = b.old_run, new_run = b.new_run;
  auto rows = s.stage_rows("cold");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].run_id, new_run);
  RowFilter all;
  all.all_builds = true;
  rows = s.stage_rows("cold", all);
  ASSERT_EQ(rows.size(), 2u);
  for (const ResultRow& r : rows) EXPECT_EQ(r.older_build, r.run_id == old_run);
  EXPECT_TRUE(s.ranking_rows().empty());  // cold rows never rank
}
