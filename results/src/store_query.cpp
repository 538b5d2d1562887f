// The SQLite store's queries: the flattened rows reports read (filtered, with samples and metrics), the
// current build's rows, rankings' confirmation rows, ladders, evaluation times, runs and bandwidths.
#include "pimg/store.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "pimg/errors.hpp"
#include "store_impl.hpp"

namespace pimg {

using store_impl::Stmt;

namespace {

// `sql` (its one parameter: an evaluation's id) for each row whose `filled` is still empty; `read` takes each of its
// result rows into the row.
template <class Member, class Read>
void for_each_evaluation(sqlite3* db, const char* sql, std::vector<ResultRow>& rows, Member EvalResult::*filled,
                         Read read) {
  Stmt q(db, sql);
  for (auto& r : rows) {
    if (!(r.result.*filled).empty()) continue;
    q.reset();
    q.bind(1, r.id);
    while (q.step()) read(r, q);
  }
}

// The conditions of a RowFilter on evaluations `e` joined with devices `d` and problems `p`, and their values.
std::string row_filter_sql(const RowFilter& f) {
  std::string sql;
  if (f.family) sql += " AND p.family = ?1";
  if (f.backend) sql += " AND d.backend = ?2";
  if (f.device) sql += " AND (instr(lower(d.name), lower(?3)) > 0 OR d.backend || ':' || d.name = ?3)";
  if (f.size) sql += " AND (p.width || 'x' || p.height) = ?4";
  return sql;
}

void bind_row_filter(Stmt& q, const RowFilter& f) {
  if (f.family) q.bind(1, *f.family);
  if (f.backend) q.bind(2, *f.backend);
  if (f.device) q.bind(3, *f.device);
  if (f.size) q.bind(4, *f.size);
}

// Attributes are stored inside the problem's canonical JSON; parse them back (flat string map).
Problem problem_from_canonical(const std::string& family, int w, int h, int c, const std::string& json) {
  Problem p{family, w, h, c, {}};
  std::size_t i = 0;
  auto read_string = [&](std::string& out) {
    out.clear();
    ++i;  // opening quote
    while (i < json.size() && json[i] != '"') {
      if (json[i] == '\\') ++i;
      if (i < json.size()) out += json[i++];
    }
    ++i;  // closing quote
  };
  while (i < json.size()) {
    if (json[i] != '"') {
      ++i;
      continue;
    }
    std::string key, value;
    read_string(key);
    while (i < json.size() && (json[i] == ':' || json[i] == ' ')) ++i;
    if (i < json.size() && json[i] == '"') {
      read_string(value);
      if (key != "family") p.attrs[key] = value;
    } else {
      while (i < json.size() && json[i] != ',' && json[i] != '}') ++i;
    }
  }
  return p;
}

// The row of a query selecting e.id, e.status, e.median_ms, e.identity (find, find_ladder_step).
std::optional<ResultRow> found_row(Stmt& q, const Config& c) {
  if (!q.step()) return std::nullopt;
  ResultRow r;
  r.id = q.i64(0);
  r.config = c;
  r.result.status = status_from_string(q.text(1));
  r.result.kernel.median = q.real(2);
  r.result.identity = q.text(3);
  return r;
}

}  // namespace

std::optional<ResultRow> Store::find(std::int64_t device, std::int64_t problem, std::int64_t variant,
                                     const Config& c, const std::string& stage) {
  Stmt q(db_,
         "SELECT e.id, e.status, e.median_ms, e.identity FROM evaluations e JOIN configs c ON c.id = e.config_id "
         "WHERE e.device_id=? AND e.problem_id=? AND e.variant_id=? AND c.hash=? AND e.stage = ? "
         "ORDER BY e.id DESC LIMIT 1");
  q.bind(1, device).bind(2, problem).bind(3, variant).bind(4, c.hash()).bind(5, stage);
  return found_row(q, c);
}

std::optional<double> Store::bandwidth(std::int64_t device) {
  Stmt s(db_, "SELECT gbs FROM bandwidth WHERE device_id=? AND kind='copy' ORDER BY id DESC LIMIT 1");
  s.bind(1, device);
  if (!s.step()) return std::nullopt;
  return s.real(0);
}

std::vector<ResultRow> Store::rows(const RowFilter& f) const { return query_rows(f, false); }
std::vector<ResultRow> Store::rows_with_samples(const RowFilter& f) const { return query_rows(f, true); }

std::vector<ResultRow> Store::confirm_rows(const RowFilter& f, bool samples) const {
  return query_rows(f, samples, "latest_confirm");
}

std::vector<ResultRow> Store::ranking_rows(const RowFilter& f, bool samples, std::size_t* older) const {
  std::vector<ResultRow> all = query_rows(f, samples);
  std::vector<ResultRow> confirm = confirm_rows(f, samples);
  add_samples(confirm);  // always: the probability of the answer is drawn from them (pimg/ranking.hpp)
  add_metrics(confirm);  // always: a confirmed row's session spread widens its ties (pimg/ranking.hpp)
  for (auto& r : confirm) all.push_back(std::move(r));
  const std::size_t left = current_build(all, f.all_builds);
  if (older) *older = left;
  return all;
}

std::size_t Store::current_build(std::vector<ResultRow>& rows, bool all_builds) const {
  std::map<std::int64_t, std::string> build;  // run -> build id
  for (const RunRecord& run : runs()) build[run.id] = run.info.build_id;
  auto group = [](const ResultRow& r) { return r.problem.family + '\n' + r.device.backend + '\n' + r.device.name; };
  std::map<std::string, std::int64_t> latest;  // (family, device) -> its latest run
  for (const ResultRow& r : rows) {
    auto& run = latest[group(r)];
    run = std::max(run, r.run_id);
  }
  std::vector<ResultRow> out;
  std::size_t left = 0;
  for (auto& r : rows) {
    r.older_build = build[r.run_id] != build[latest[group(r)]];
    left += r.older_build;
    if (all_builds || !r.older_build) out.push_back(std::move(r));
  }
  rows = std::move(out);
  return left;
}

std::vector<ResultRow> Store::run_rows(std::int64_t run, const RowFilter& f, bool samples) const {
  return query_rows(f, samples,
                    fmt::format("(SELECT * FROM evaluations x WHERE x.run_id = {} AND x.stage != 'cold' AND x.id = (SELECT MAX(x2.id) FROM "
                                "evaluations x2 WHERE x2.run_id = x.run_id AND x2.device_id = x.device_id AND "
                                "x2.problem_id = x.problem_id AND x2.variant_id = x.variant_id AND "
                                "x2.config_id = x.config_id AND x2.stage = x.stage))",
                                run));
}

std::vector<ResultRow> Store::stage_rows(const std::string& stage, const RowFilter& f, bool samples) const {
  std::string quoted;
  for (char c : stage) quoted += c == '\'' ? std::string("''") : std::string(1, c);
  std::vector<ResultRow> out = query_rows(
      f, samples,
      fmt::format("(SELECT * FROM evaluations x WHERE x.stage = '{0}' AND x.id = (SELECT MAX(x2.id) FROM evaluations "
                  "x2 WHERE x2.device_id = x.device_id AND x2.problem_id = x.problem_id AND x2.variant_id = "
                  "x.variant_id AND x2.config_id = x.config_id AND x2.stage = '{0}'))",
                  quoted));
  current_build(out, f.all_builds);  // as rankings: the current build's rows unless f.all_builds (marked)
  add_metrics(out);
  return out;
}

void Store::add_metrics(std::vector<ResultRow>& rows) const {
  const char* sql = "SELECT name, unit, seq, value FROM metrics WHERE evaluation_id=? ORDER BY name, seq";
  for_each_evaluation(db_, sql, rows, &EvalResult::metrics, [](ResultRow& r, Stmt& m) {
    r.result.metrics.push_back({m.text(0), m.text(1), static_cast<int>(m.i64(2)), m.real(3)});
  });
}

std::optional<ResultRow> Store::find_ladder_step(std::int64_t device, std::int64_t problem, std::int64_t variant,
                                                 const Config& c, const std::string& ladder, const std::string& step) {
  Stmt q(db_,
         "SELECT e.id, e.status, e.median_ms, e.identity FROM evaluations e JOIN configs c ON c.id = e.config_id "
         "JOIN ladder_steps l ON l.evaluation_id = e.id WHERE e.device_id=? AND e.problem_id=? AND e.variant_id=? "
         "AND c.hash=? AND l.ladder=? AND l.step=? ORDER BY e.id DESC LIMIT 1");
  q.bind(1, device).bind(2, problem).bind(3, variant).bind(4, c.hash()).bind(5, ladder).bind(6, step);
  return found_row(q, c);
}

std::vector<LadderRow> Store::ladder_rows(const RowFilter& f) const {
  std::map<std::int64_t, LadderRow> steps;  // by evaluation id
  {
    Stmt q(db_, "SELECT evaluation_id, ladder, seq, step FROM ladder_steps");
    while (q.step()) steps[q.i64(0)] = {q.text(1), q.text(3), static_cast<int>(q.i64(2)), {}};
  }
  const std::string latest =
      "(SELECT x.* FROM evaluations x JOIN ladder_steps l ON l.evaluation_id = x.id WHERE x.id = (SELECT MAX(x2.id) "
      "FROM evaluations x2 JOIN ladder_steps l2 ON l2.evaluation_id = x2.id WHERE l2.ladder = l.ladder AND "
      "l2.step = l.step AND x2.device_id = x.device_id AND x2.problem_id = x.problem_id))";
  std::vector<LadderRow> out;
  for (ResultRow& r : query_rows(f, false, latest)) {
    auto it = steps.find(r.id);
    if (it == steps.end()) continue;  // a step stored after the first query (another tuner on the file)
    LadderRow l = it->second;
    l.row = std::move(r);
    out.push_back(std::move(l));
  }
  std::stable_sort(out.begin(), out.end(), [](const LadderRow& a, const LadderRow& b) {
    return std::tie(a.ladder, a.seq) < std::tie(b.ladder, b.seq);
  });
  return out;
}

std::vector<EvaluationTime> Store::evaluation_times(const RowFilter& f) const {
  std::string sql =
      "SELECT e.run_id, d.backend, d.name, d.driver, e.problem_id, e.stage, instr(',' || e.flags || ',', ',raced,') > 0, "
      "e.eval_ms, e.created_at, (SELECT m.value FROM metrics m WHERE m.evaluation_id = e.id AND m.seq = -1 AND "
      "m.name = 'time.session_ms'), (SELECT coalesce(SUM(m.value), 0) FROM metrics m WHERE m.evaluation_id = e.id AND "
      "m.seq = -1 AND m.name IN ('time.compile_wait_ms', 'time.tuner_ms')) "
      "FROM evaluations e JOIN devices d ON d.id = e.device_id JOIN problems p ON p.id = e.problem_id WHERE 1=1";
  Stmt q(db_, (sql + row_filter_sql(f) + " ORDER BY e.id").c_str());
  bind_row_filter(q, f);
  std::vector<EvaluationTime> out;
  while (q.step()) {
    EvaluationTime& t = out.emplace_back();
    t.run_id = q.i64(0);
    t.device.backend = q.text(1);
    t.device.name = q.text(2);
    t.device.driver = q.text(3);
    t.problem_id = q.i64(4);
    t.stage = q.text(5);
    t.raced = q.i64(6) != 0;
    t.eval_ms = q.real(7);
    t.created_at = q.text(8);
    if (!q.is_null(9)) t.wall_ms = q.real(9) + q.real(10);
  }
  return out;
}

std::vector<RunRecord> Store::runs() const {
  Stmt q(db_, "SELECT id, host, started_at, git_commit, command_line, version, build_id FROM runs ORDER BY id");
  std::vector<RunRecord> out;
  while (q.step()) out.push_back({q.i64(0), {q.text(1), q.text(2), q.text(3), q.text(4), q.text(5), q.text(6)}});
  return out;
}

std::vector<ResultRow> Store::query_rows(const RowFilter& f, bool samples, const std::string& source) const {
  std::string sql =
      "SELECT e.id, e.run_id, d.backend, d.name, d.vendor, d.driver, d.platform, d.compute_units, "
      "d.global_mem_bytes, d.local_mem_bytes, d.max_work_group_size, p.family, p.width, p.height, p.channels, "
      "p.canonical, p.work, p.unit, p.min_bytes, p.min_ops, v.name, v.backend, v.source_hash, c.canonical, "
      "e.status, e.log, e.validation, e.compile_ms, e.compile_cached, e.h2d_ms, e.d2h_ms, e.min_ms, e.median_ms, "
      "e.mean_ms, e.stddev_ms, e.eval_ms, e.created_at, v.baseline, e.method, e.ci_low_ms, e.ci_high_ms, e.identity, "
      "e.flags, e.stage, d.caps, d.position, p.min_written "
      "FROM " + source + " e JOIN devices d ON d.id = e.device_id JOIN problems p ON p.id = e.problem_id "
      "JOIN variants v ON v.id = e.variant_id JOIN configs c ON c.id = e.config_id WHERE 1=1";
  sql += row_filter_sql(f) + " ORDER BY e.id";
  Stmt q(db_, sql.c_str());
  bind_row_filter(q, f);
  std::vector<ResultRow> out;
  while (q.step()) {
    ResultRow r;
    r.id = q.i64(0);
    r.run_id = q.i64(1);
    r.device.backend = q.text(2);
    r.device.name = q.text(3);
    r.device.vendor = q.text(4);
    r.device.driver = q.text(5);
    r.device.platform = q.text(6);
    r.device.compute_units = static_cast<int>(q.i64(7));
    r.device.global_mem_bytes = static_cast<std::uint64_t>(q.i64(8));
    r.device.local_mem_bytes = static_cast<std::uint64_t>(q.i64(9));
    r.device.max_work_group_size = q.i64(10);
    r.device.caps = DeviceCaps::from_stored(q.text(44));
    r.device.index = static_cast<int>(q.i64(45));
    r.problem = problem_from_canonical(q.text(11), static_cast<int>(q.i64(12)), static_cast<int>(q.i64(13)),
                                       static_cast<int>(q.i64(14)), q.text(15));
    r.cost.work = q.real(16);
    r.cost.unit = q.text(17);
    r.cost.traffic.bytes = q.real(18);
    r.cost.traffic.ops = q.real(19);
    if (!q.is_null(46)) r.cost.traffic.written = q.real(46);
    r.variant = {r.problem.family, q.text(20), q.text(21), q.text(22)};
    r.config = Config::parse_canonical(q.text(23));
    r.result.status = status_from_string(q.text(24));
    r.result.log = q.text(25);
    r.result.validation = q.text(26);
    r.result.compile_ms = q.real(27);
    r.result.compile_cached = q.i64(28) != 0;
    r.result.h2d_ms = q.real(29);
    r.result.d2h_ms = q.real(30);
    r.result.kernel = {q.real(31), q.real(32), q.real(33), q.real(34)};
    r.result.eval_ms = q.real(35);
    r.created_at = q.text(36);
    r.variant.baseline = q.i64(37) != 0;
    r.result.method = q.text(38);
    r.result.ci_low_ms = q.real(39);
    r.result.ci_high_ms = q.real(40);
    r.result.identity = q.text(41);
    r.result.flags = split_flags(q.text(42));
    r.result.stage = q.text(43);
    out.push_back(std::move(r));
  }
  if (samples) {
    add_samples(out);
    add_metrics(out);
  }
  return out;
}

void Store::add_samples(std::vector<ResultRow>& rows) const {
  const char* sql = "SELECT kernel_ms, wall_ms FROM samples WHERE evaluation_id=? ORDER BY seq";
  for_each_evaluation(db_, sql, rows, &EvalResult::kernel_ms, [](ResultRow& r, Stmt& s) {
    r.result.kernel_ms.push_back(s.real(0));
    r.result.wall_ms.push_back(s.real(1));
  });
}

std::vector<BandwidthRow> Store::bandwidths() const { return query_bandwidths(true); }
std::vector<BandwidthRow> Store::all_bandwidths() const { return query_bandwidths(false); }

std::vector<BandwidthRow> Store::query_bandwidths(bool latest_only) const {
  std::string sql =
      "SELECT d.backend, d.name, d.vendor, d.driver, d.platform, b.gbs, b.bytes, coalesce(b.run_id, 0), b.method, "
      "b.kind FROM bandwidth b JOIN devices d ON d.id = b.device_id";
  sql += latest_only ? " WHERE b.id = (SELECT MAX(id) FROM bandwidth WHERE device_id = b.device_id AND kind = 'copy') "
                       "ORDER BY d.backend, d.name"
                     : " ORDER BY b.id";
  Stmt q(db_, sql.c_str());
  std::vector<BandwidthRow> out;
  while (q.step()) {
    BandwidthRow b;
    b.device.backend = q.text(0);
    b.device.name = q.text(1);
    b.device.vendor = q.text(2);
    b.device.driver = q.text(3);
    b.device.platform = q.text(4);
    b.gbs = q.real(5);
    b.bytes = q.real(6);
    b.run_id = q.i64(7);
    b.method = q.text(8);
    b.kind = q.text(9);
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace pimg
