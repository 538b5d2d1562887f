// The SQLite store: a versioned schema (numbered migrations in results/migrations/), WAL mode,
// one transaction per evaluation. Rows are append-only; queries read the latest evaluation of each
// (device, problem, variant, source, configuration).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pimg/backend.hpp"
#include "pimg/config.hpp"
#include "pimg/family.hpp"
#include "pimg/problem.hpp"
#include "pimg/result.hpp"

struct sqlite3;

namespace pimg {

struct RunInfo {
  std::string host;
  std::string started_at;  // ISO 8601 UTC
  std::string git_commit;
  std::string command_line;
  std::string version;
  std::string build_id;  // of the host-side code (executor.hpp's build_id())
};

// A stored run (the runs table), for provenance and for choosing runs to compare.
struct RunRecord {
  std::int64_t id = 0;
  RunInfo info;
};

// What the family says one problem costs, stored with the problem so reports need only the store.
struct ProblemCost {
  double work = 0;      // in `unit` (pixels for MPix/s)
  std::string unit;     // "MPix/s"
  Traffic traffic;
};

struct VariantKey {
  std::string family, name, backend, source_hash;
  bool baseline = false;  // the serial reference or a library, not a tuned kernel
};

// One stored evaluation, flattened for queries and reports.
struct ResultRow {
  std::int64_t id = 0;
  std::int64_t run_id = 0;
  DeviceInfo device;
  Problem problem;
  ProblemCost cost;
  VariantKey variant;
  Config config;
  EvalResult result;  // kernel_ms/wall_ms filled only by rows_with_samples()
  std::string created_at;
  bool older_build = false;  // ranking_rows() with all_builds: stored by an older build than its group's latest run
};

struct BandwidthRow {
  DeviceInfo device;
  double gbs = 0;       // bytes read + written per second / 1e9
  double bytes = 0;     // buffer size used
  std::int64_t run_id = 0;  // the run that measured it (0 for rows older than schema 5)
  std::string method;       // how it was timed and which copy won
  std::string kind = "copy";  // what was measured (schema 12): "copy" (bytes read + written) or "read" (bytes read)
};

// One measured step of a ladder (schema 8): the step's evaluation (stage "ladder") with its ladder,
// name and place (0-based) in the ladder.
struct LadderRow {
  std::string ladder, step;
  int seq = 0;
  ResultRow row;
};

// What one stored evaluation took, for the report's time per run and device (Store::evaluation_times()).
struct EvaluationTime {
  std::int64_t run_id = 0;
  DeviceInfo device;  // backend, name, driver
  std::int64_t problem_id = 0;
  std::string stage;    // "search", "confirm", "ladder", "cold", ...
  bool raced = false;   // a search evaluation the race stopped early (flag "raced")
  double eval_ms = 0;   // the executor's whole evaluation (confirmation and ladder rows: their stage's, per problem)
  // The runner's wall time of a search evaluation: time.compile_wait_ms + time.session_ms + time.tuner_ms,
  // where stored (docs/design.md, "Where the time goes"); nullopt for other rows and older stores.
  std::optional<double> wall_ms;
  std::string created_at;  // when it was stored, ISO 8601 UTC to the millisecond
};

struct RowFilter {
  std::optional<std::string> family;
  std::optional<std::string> backend;
  std::optional<std::string> device;  // substring of the device name or backend:index id
  std::optional<std::string> size;    // "WxH"
  // ranking_rows(): also the rows of older builds of pimg-tune (marked older_build), not only those of
  // the current build of each (family, device), the build of its latest run.
  bool all_builds = false;
};

class Store {
 public:
  static constexpr int kSchemaVersion = 12;

  // create: tuning (the file is created if missing); existing: must exist; read_only: for commands
  // that only read (best, report, export, strategies): opened read-only, no side files where no
  // writer is active, so another user's file or a read-only mount can be queried.
  enum class Mode { create, existing, read_only };
  // Validates the file reading only (a regular file, empty or a pimg-tune database of a known
  // schema), then opens it (creating it in Mode::create) and migrates an older schema (read_only: a copy in
  // memory, so a reading command never writes the file). Throws
  // UsageError, with the file left byte for byte as it was, when the name would discard results
  // ('', ':memory:'), the file is missing (existing, read_only), empty (read_only), not a pimg-tune
  // database or written by a newer schema; EnvironmentError when a write fails for a fault of the
  // machine (a lock held beyond the busy timeout and the retries, a full disk, an I/O error).
  explicit Store(const std::string& path, Mode mode = Mode::create);
  const std::string& path() const { return path_; }
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  int schema_version() const;

  std::int64_t begin_run(const RunInfo& run);
  std::int64_t device_id(const DeviceInfo& d);
  std::int64_t problem_id(const Problem& p, const ProblemCost& cost);
  std::int64_t variant_id(const VariantKey& v);

  // True when the configuration already has a stored evaluation of this stage for this device,
  // problem and variant source (what a resumed run skips).
  std::optional<ResultRow> find(std::int64_t device, std::int64_t problem, std::int64_t variant,
                                const Config& c, const std::string& stage = "search");
  // Stores the configuration (if new), the evaluation and its raw samples in one transaction.
  // `created_at` (ISO 8601) is the evaluation's time when it was made elsewhere (an import); empty: now.
  // Throws UsageError when the file at the store's path was deleted or replaced since it was opened (SQLite
  // would go on writing to the deleted file); save() checks it after each evaluation it stores.
  void check_still_there() const;
  std::int64_t save(std::int64_t run, std::int64_t device, std::int64_t problem, std::int64_t variant,
                    const Config& c, const EvalResult& r, const std::string& created_at = "");

  // Leases (schema 6): a tuner claims a configuration before measuring it so that another tuner on
  // this database waits for its result instead of measuring it too. True when the claim is now this
  // process's; false while another live process holds it. A claim whose owner is gone (same host and
  // its pid not running, or running since another time) or older than kLeaseS is taken over.
  static constexpr double kLeaseS = 6 * 3600;
  // Who holds a claim this process could not take: "host pid N", and how long ago it was claimed.
  struct LeaseHolder {
    std::string who;
    double age_s = 0;
  };
  bool claim(std::int64_t device, std::int64_t problem, std::int64_t variant, const Config& c,
             LeaseHolder* holder = nullptr);
  // Drops this process's claim (after the evaluation is stored, or when it is not measured).
  void release(std::int64_t device, std::int64_t problem, std::int64_t variant, const Config& c);

  // A bandwidth ceiling measured by run `run` (0: none) with `method` (how it was timed and which copy won).
  void save_bandwidth(std::int64_t device, double bytes, double gbs, std::int64_t run = 0, const std::string& method = "",
                      const std::string& kind = "copy");
  std::optional<double> bandwidth(std::int64_t device);

  std::vector<ResultRow> rows(const RowFilter& f = {}) const;        // latest per key, no samples
  std::vector<ResultRow> rows_with_samples(const RowFilter& f = {}) const;
  std::vector<BandwidthRow> bandwidths() const;      // the latest of each device
  std::vector<BandwidthRow> all_bandwidths() const;  // every ceiling measured, oldest first

  // The latest confirmation-stage row of each key (stage "confirm"), which decides winners.
  std::vector<ResultRow> confirm_rows(const RowFilter& f = {}, bool samples = false) const;
  // rows() and confirm_rows() together: what rankings read, the confirmation rows always with their samples
  // (the probability of the answer is drawn from them). Only the rows of the current build of each
  // (family, device) (the build id of its latest run) unless f.all_builds; `older` (when given) gets
  // the count of rows of older builds left out, or marked when f.all_builds.
  std::vector<ResultRow> ranking_rows(const RowFilter& f = {}, bool samples = false, std::size_t* older = nullptr) const;
  // The latest row of each key of another stage ("cold": the whole-program runs), with its metrics.
  // Like rankings, only the rows of the current build of each (family, device) unless f.all_builds.
  std::vector<ResultRow> stage_rows(const std::string& stage, const RowFilter& f = {}, bool samples = false) const;
  // Fills each row's metrics (EvalResult::metrics) from the store, for rows read without samples.
  void add_metrics(std::vector<ResultRow>& rows) const;
  // The latest row of each key and stage within one run (search and confirmation: no whole-program rows).
  std::vector<ResultRow> run_rows(std::int64_t run, const RowFilter& f = {}, bool samples = false) const;
  std::vector<RunRecord> runs() const;  // by id

  // Ladders (schema 8): marks evaluation `evaluation` (saved with stage "ladder") as step `seq` of `ladder`;
  // ladder_rows() gives the latest evaluation of each (ladder, step, device, problem), by ladder and step.
  void save_ladder_step(std::int64_t evaluation, const std::string& ladder, int seq, const std::string& step);
  // The latest stored evaluation of step `step` of `ladder` for this device, problem, variant source and
  // configuration (what a resumed ladder skips).
  std::optional<ResultRow> find_ladder_step(std::int64_t device, std::int64_t problem, std::int64_t variant,
                                            const Config& c, const std::string& ladder, const std::string& step);
  std::vector<LadderRow> ladder_rows(const RowFilter& f = {}) const;
  // Every stored evaluation of every run (not only the latest of each key), in the order stored; filtered as
  // rows() are.
  std::vector<EvaluationTime> evaluation_times(const RowFilter& f = {}) const;

 private:
  void migrate();
  void add_samples(std::vector<ResultRow>& rows) const;  // each row's samples, where it has none yet
  // Marks each row stored by an older build than its (family, device)'s latest run among `rows`
  // (ResultRow::older_build) and drops those unless all_builds; returns how many were older.
  std::size_t current_build(std::vector<ResultRow>& rows, bool all_builds) const;
  std::vector<ResultRow> query_rows(const RowFilter& f, bool samples, const std::string& source = "latest") const;
  std::vector<BandwidthRow> query_bandwidths(bool latest_only) const;
  sqlite3* db_ = nullptr;
  std::string path_;
  std::uint64_t file_dev_ = 0, file_ino_ = 0;  // the file opened (0: a copy in memory)
};

}  // namespace pimg
