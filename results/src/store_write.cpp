// The SQLite store's writes: runs, devices, problems and variants, one transaction per evaluation, leases
// on configurations, bandwidths and ladder steps; a write that meets a fault of the machine is tried again.
#include "pimg/store.hpp"

#include <fmt/format.h>
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include "pimg/errors.hpp"
#include "store_impl.hpp"

namespace pimg {

using store_impl::SqliteError;
using store_impl::Stmt;
using store_impl::Transaction;

namespace {

// A write that meets a fault of the machine is tried again with growing pauses; a busy database has
// already waited the busy timeout inside SQLite. What persists becomes an EnvironmentError.
constexpr int kWriteAttempts = 4;

template <class F>
auto with_retries(sqlite3* db, const std::string& path, F&& write) {
  for (int attempt = 1;; ++attempt) {
    try {
      return write();
    } catch (const SqliteError& e) {
      const int code = e.code();
      const bool machine = code == SQLITE_BUSY || code == SQLITE_LOCKED || code == SQLITE_FULL || code == SQLITE_IOERR;
      if (!machine) throw;
      sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
      if (attempt >= kWriteAttempts) {
        const std::string why = code == SQLITE_FULL    ? "the disk is full"
                                : code == SQLITE_IOERR ? "an I/O error (a full disk or a file size limit)"
                                                       : "another process holds its write lock";
        throw EnvironmentError(fmt::format("{}: cannot write: {} ({} attempts; {})", path, why, attempt, e.what()));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(250 << attempt));
    }
  }
}

// This host's name and a process's start time (field 22 of /proc/PID/stat, in clock ticks since
// boot), which tell a live owner of a lease from a pid reused by another process; empty for a
// process that is gone or a zombie.
std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

std::string process_start(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t paren = text.rfind(')');
  if (paren == std::string::npos || paren + 2 >= text.size() || text[paren + 2] == 'Z') return "";  // gone, or a zombie
  std::istringstream rest(text.substr(paren + 2));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i) {
  }
  return field;
}

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

std::int64_t Store::begin_run(const RunInfo& run) {
  return with_retries(db_, path_, [&] {
    Stmt s(db_,
           "INSERT INTO runs (host, started_at, git_commit, command_line, version, build_id) VALUES (?,?,?,?,?,?)");
    s.bind(1, run.host).bind(2, run.started_at).bind(3, run.git_commit).bind(4, run.command_line).bind(5, run.version);
    s.bind(6, run.build_id);
    s.step();
    return sqlite3_last_insert_rowid(db_);
  });
}

std::int64_t Store::device_id(const DeviceInfo& d) {
  return with_retries(db_, path_, [&] {
    Stmt ins(db_,
             "INSERT OR IGNORE INTO devices (backend, name, vendor, driver, platform, compute_units, "
             "global_mem_bytes, local_mem_bytes, max_work_group_size) VALUES (?,?,?,?,?,?,?,?,?)");
    ins.bind(1, d.backend).bind(2, d.name).bind(3, d.vendor).bind(4, d.driver).bind(5, d.platform);
    ins.bind(6, d.compute_units).bind(7, static_cast<std::int64_t>(d.global_mem_bytes));
    ins.bind(8, static_cast<std::int64_t>(d.local_mem_bytes)).bind(9, d.max_work_group_size);
    ins.step();
    Stmt q(db_, "SELECT id FROM devices WHERE backend=? AND name=? AND driver=? AND platform=?");
    q.bind(1, d.backend).bind(2, d.name).bind(3, d.driver).bind(4, d.platform);
    PIMG_CHECK(q.step(), "device row missing after insert");
    const std::int64_t id = q.i64(0);
    // What the device is, as its backend says now (a row from before schema 9, or a backend that learnt more).
    if (d.caps.known) {
      Stmt caps(db_, "UPDATE devices SET caps=? WHERE id=? AND caps != ?");
      caps.bind(1, d.caps.stored()).bind(2, id).bind(3, d.caps.stored());
      caps.step();
    }
    // Where the backend lists it now (schema 10): what "backend:index" names on this machine.
    if (d.index >= 0) {
      Stmt position(db_, "UPDATE devices SET position=? WHERE id=? AND position != ?");
      position.bind(1, d.index).bind(2, id).bind(3, d.index);
      position.step();
    }
    return id;
  });
}

std::int64_t Store::problem_id(const Problem& p, const ProblemCost& cost) {
  return with_retries(db_, path_, [&] {
    std::string canonical = p.canonical();
    Stmt ins(db_,
             "INSERT OR IGNORE INTO problems (family, canonical, width, height, channels, work, unit, min_bytes, "
             "min_ops, min_written) VALUES (?,?,?,?,?,?,?,?,?,?)");
    ins.bind(1, p.family).bind(2, canonical).bind(3, p.width).bind(4, p.height).bind(5, p.channels);
    ins.bind(6, cost.work).bind(7, cost.unit).bind(8, cost.traffic.bytes).bind(9, cost.traffic.ops);
    if (cost.traffic.written) ins.bind(10, *cost.traffic.written);  // else NULL: the family does not say
    ins.step();
    // A problem stored before schema 12 learns how many of its bytes are written.
    if (cost.traffic.written) {
      Stmt written(db_, "UPDATE problems SET min_written=? WHERE canonical=? AND min_written IS NULL");
      written.bind(1, *cost.traffic.written).bind(2, canonical);
      written.step();
    }
    Stmt q(db_, "SELECT id FROM problems WHERE canonical=?");
    q.bind(1, canonical);
    PIMG_CHECK(q.step(), "problem row missing after insert");
    return q.i64(0);
  });
}

std::int64_t Store::variant_id(const VariantKey& v) {
  return with_retries(db_, path_, [&] {
    Stmt ins(db_,
             "INSERT OR IGNORE INTO variants (family, name, backend, source_hash, baseline) VALUES (?,?,?,?,?)");
    ins.bind(1, v.family).bind(2, v.name).bind(3, v.backend).bind(4, v.source_hash).bind(5, v.baseline ? 1 : 0);
    ins.step();
    Stmt q(db_, "SELECT id FROM variants WHERE family=? AND name=? AND backend=? AND source_hash=?");
    q.bind(1, v.family).bind(2, v.name).bind(3, v.backend).bind(4, v.source_hash);
    PIMG_CHECK(q.step(), "variant row missing after insert");
    return q.i64(0);
  });
}

std::int64_t Store::save(std::int64_t run, std::int64_t device, std::int64_t problem, std::int64_t variant,
                         const Config& c, const EvalResult& r, const std::string& created_at) {
  const std::int64_t id = with_retries(db_, path_, [&] {
    Transaction t(db_);
    {
      Stmt ins(db_, "INSERT OR IGNORE INTO configs (hash, canonical) VALUES (?,?)");
      ins.bind(1, c.hash()).bind(2, c.canonical());
      ins.step();
    }
    std::int64_t config_id = 0;
    {
      Stmt q(db_, "SELECT id FROM configs WHERE hash=?");
      q.bind(1, c.hash());
      PIMG_CHECK(q.step(), "config row missing after insert");
      config_id = q.i64(0);
    }
    Stmt ins(db_,
             "INSERT INTO evaluations (run_id, device_id, problem_id, variant_id, config_id, status, log, validation, "
             "compile_ms, compile_cached, h2d_ms, d2h_ms, min_ms, median_ms, mean_ms, stddev_ms, eval_ms, method, "
             "ci_low_ms, ci_high_ms, identity, flags, stage, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
             "?,?,coalesce(nullif(?,''),strftime('%Y-%m-%dT%H:%M:%fZ','now')))");
    ins.bind(1, run).bind(2, device).bind(3, problem).bind(4, variant).bind(5, config_id);
    ins.bind(6, std::string(to_string(r.status))).bind(7, r.log).bind(8, r.validation);
    ins.bind(9, r.compile_ms).bind(10, r.compile_cached ? 1 : 0).bind(11, r.h2d_ms).bind(12, r.d2h_ms);
    ins.bind(13, r.kernel.min).bind(14, r.kernel.median).bind(15, r.kernel.mean).bind(16, r.kernel.stddev);
    ins.bind(17, r.eval_ms).bind(18, r.method).bind(19, r.ci_low_ms).bind(20, r.ci_high_ms).bind(21, r.identity);
    ins.bind(22, join_flags(r.flags)).bind(23, r.stage).bind(24, created_at);
    ins.step();
    std::int64_t eval_id = sqlite3_last_insert_rowid(db_);
    Stmt sample(db_, "INSERT INTO samples (evaluation_id, seq, kernel_ms, wall_ms) VALUES (?,?,?,?)");
    for (std::size_t i = 0; i < r.kernel_ms.size(); ++i) {
      sample.reset();
      sample.bind(1, eval_id).bind(2, static_cast<std::int64_t>(i)).bind(3, r.kernel_ms[i]);
      sample.bind(4, i < r.wall_ms.size() ? r.wall_ms[i] : 0.0);
      sample.step();
    }
    Stmt metric(db_, "INSERT OR REPLACE INTO metrics (evaluation_id, name, unit, seq, value) VALUES (?,?,?,?,?)");
    for (const Metric& m : r.metrics) {
      metric.reset();
      metric.bind(1, eval_id).bind(2, m.name).bind(3, m.unit).bind(4, static_cast<std::int64_t>(m.seq)).bind(5, m.value);
      metric.step();
    }
    t.commit();
    return eval_id;
  });
  check_still_there();
  return id;
}

bool Store::claim(std::int64_t device, std::int64_t problem, std::int64_t variant, const Config& c,
                  LeaseHolder* holder) {
  static const std::string me_host = host_name();
  const pid_t me_pid = ::getpid();  // not cached: a forked child is another owner
  const std::string me_start = process_start(me_pid);
  return with_retries(db_, path_, [&] {
    Transaction t(db_);
    Stmt q(db_, "SELECT host, pid, pid_start, claimed_at FROM leases WHERE device_id=? AND problem_id=? AND "
                "variant_id=? AND config_hash=?");
    q.bind(1, device).bind(2, problem).bind(3, variant).bind(4, c.hash());
    if (q.step()) {
      const std::string host = q.text(0), start = q.text(2);
      const auto pid = static_cast<pid_t>(q.i64(1));
      const bool mine = host == me_host && pid == me_pid && start == me_start;
      const bool fresh = unix_now() - q.real(3) < kLeaseS;
      const bool owner_runs = host != me_host || (process_start(pid) == start && !start.empty());
      if (!mine && fresh && owner_runs) {
        if (holder) *holder = {fmt::format("{} pid {}", host, pid), unix_now() - q.real(3)};
        return false;
      }
    }
    Stmt ins(db_, "INSERT OR REPLACE INTO leases (device_id, problem_id, variant_id, config_hash, host, pid, "
                  "pid_start, claimed_at) VALUES (?,?,?,?,?,?,?,?)");
    ins.bind(1, device).bind(2, problem).bind(3, variant).bind(4, c.hash()).bind(5, me_host);
    ins.bind(6, static_cast<std::int64_t>(me_pid)).bind(7, me_start).bind(8, unix_now());
    ins.step();
    t.commit();
    return true;
  });
}

void Store::release(std::int64_t device, std::int64_t problem, std::int64_t variant, const Config& c) {
  with_retries(db_, path_, [&] {
    Stmt d(db_, "DELETE FROM leases WHERE device_id=? AND problem_id=? AND variant_id=? AND config_hash=? AND pid=?");
    d.bind(1, device).bind(2, problem).bind(3, variant).bind(4, c.hash()).bind(5, static_cast<std::int64_t>(::getpid()));
    d.step();
  });
}

void Store::save_bandwidth(std::int64_t device, double bytes, double gbs, std::int64_t run, const std::string& method,
                           const std::string& kind) {
  with_retries(db_, path_, [&] {
    Stmt s(db_, "INSERT INTO bandwidth (device_id, bytes, gbs, run_id, method, kind) VALUES (?,?,?,?,?,?)");
    s.bind(1, device).bind(2, bytes).bind(3, gbs);
    if (run > 0) s.bind(4, run);  // else NULL: no run measured it
    s.bind(5, method).bind(6, kind);
    s.step();
  });
}

void Store::save_ladder_step(std::int64_t evaluation, const std::string& ladder, int seq, const std::string& step) {
  with_retries(db_, path_, [&] {
    Stmt s(db_, "INSERT INTO ladder_steps (evaluation_id, ladder, seq, step) VALUES (?,?,?,?)");
    s.bind(1, evaluation).bind(2, ladder).bind(3, static_cast<std::int64_t>(seq)).bind(4, step);
    s.step();
  });
}

}  // namespace pimg
