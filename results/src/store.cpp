// SQLite store: migrations tracked by PRAGMA user_version, WAL journal, one transaction per
// evaluation, and the flattened queries reports read.
#include "pimg/store.hpp"

#include <fmt/format.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <thread>
#include <tuple>

#include "pimg/errors.hpp"

namespace pimg::detail {
struct EmbeddedKernel {
  const char* path;
  const unsigned char* data;
  std::size_t size;
};
extern const EmbeddedKernel kMigrations[];
}  // namespace pimg::detail

namespace pimg {
namespace {

// A failed SQLite call with its result code, so that faults of the machine (a busy database, a full
// disk, an I/O error) can be told from misuse.
class SqliteError : public std::runtime_error {
 public:
  SqliteError(int code, const std::string& what) : std::runtime_error(what), code_(code) {}
  int code() const { return code_ & 0xff; }

 private:
  int code_;
};

// A prepared statement that finalizes itself; errors become SqliteError with the message.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) : db_(db) {
    // Preparing reads the schema, so it meets a full disk or an I/O error as a step does.
    if (sqlite3_prepare_v2(db, sql, -1, &st_, nullptr) != SQLITE_OK)
      throw SqliteError(sqlite3_errcode(db), fmt::format("sqlite: {} in: {}", sqlite3_errmsg(db), sql));
  }
  ~Stmt() { sqlite3_finalize(st_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  Stmt& bind(int i, std::int64_t v) { return check(sqlite3_bind_int64(st_, i, v)); }
  Stmt& bind(int i, int v) { return check(sqlite3_bind_int64(st_, i, v)); }
  Stmt& bind(int i, double v) { return check(sqlite3_bind_double(st_, i, v)); }
  Stmt& bind(int i, const std::string& v) {
    return check(sqlite3_bind_text(st_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
  }
  bool step() {
    int rc = sqlite3_step(st_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw SqliteError(rc, fmt::format("sqlite: {}", sqlite3_errmsg(db_)));
  }
  void reset() {
    sqlite3_reset(st_);
    sqlite3_clear_bindings(st_);
  }
  std::int64_t i64(int c) const { return sqlite3_column_int64(st_, c); }
  double real(int c) const { return sqlite3_column_double(st_, c); }
  bool is_null(int c) const { return sqlite3_column_type(st_, c) == SQLITE_NULL; }
  std::string text(int c) const {
    const unsigned char* t = sqlite3_column_text(st_, c);
    return t ? std::string(reinterpret_cast<const char*>(t), static_cast<std::size_t>(sqlite3_column_bytes(st_, c)))
             : std::string();
  }

 private:
  Stmt& check(int rc) {
    if (rc != SQLITE_OK) throw std::runtime_error(fmt::format("sqlite bind: {}", sqlite3_errmsg(db_)));
    return *this;
  }
  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
};

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

void exec(sqlite3* db, const std::string& sql) {
  char* err = nullptr;
  if (const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err); rc != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    throw SqliteError(sqlite3_extended_errcode(db) ? sqlite3_extended_errcode(db) : rc, "sqlite: " + msg);
  }
}

// BEGIN IMMEDIATE ... COMMIT, rolled back if the scope exits by exception.
class Transaction {
 public:
  explicit Transaction(sqlite3* db) : db_(db) { exec(db_, "BEGIN IMMEDIATE"); }
  ~Transaction() {
    if (!done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  void commit() {
    exec(db_, "COMMIT");
    done_ = true;
  }

 private:
  sqlite3* db_;
  bool done_ = false;
};

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


// What a file holds, read before anything is written to it.
struct Inspection {
  bool exists = false;
  bool empty = false;  // a file of 0 bytes
  int version = 0;     // PRAGMA user_version
};

// SQLite's URI for a path ('?', '#' and '%' escaped). immutable=1 reads without locks and without
// creating -wal or -shm files; it is used when no -wal file exists, so no writer can be active.
std::string read_only_uri(const std::string& path) {
  std::string uri = "file:";
  for (const char ch : path) {
    if (ch == '?' || ch == '#' || ch == '%')
      uri += fmt::format("%{:02X}", static_cast<unsigned char>(ch));
    else
      uri += ch;
  }
  std::error_code ec;
  const bool wal = std::filesystem::file_size(path + "-wal", ec) > 0 && !ec;
  return uri + (wal ? "?mode=ro" : "?mode=ro&immutable=1");
}

sqlite3* open_read_only(const std::string& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(read_only_uri(path).c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw UsageError(fmt::format("{}: cannot open database ({})", path, msg));
  }
  return db;
}

// Checks, reading only, that `path` is missing, empty, or a pimg-tune database of a schema this
// build knows; anything else is refused before a byte of it is written.
Inspection inspect(const std::string& path) {
  namespace fs = std::filesystem;
  Inspection in;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || st.type() == fs::file_type::not_found) return in;
  in.exists = true;
  if (st.type() != fs::file_type::regular)
    throw UsageError(fmt::format("{}: not a regular file (a database must be one)", path));
  in.empty = fs::file_size(path, ec) == 0 && !ec;
  if (in.empty) return in;
  sqlite3* db = open_read_only(path);
  try {
    Stmt v(db, "PRAGMA user_version");
    v.step();
    in.version = static_cast<int>(v.i64(0));
    Stmt t(db, "SELECT count(*), count(CASE WHEN name = 'evaluations' THEN 1 END) FROM sqlite_master");
    t.step();
    const std::int64_t tables = t.i64(0), evaluations = t.i64(1);
    sqlite3_close(db);
    db = nullptr;
    if (in.version > Store::kSchemaVersion)
      throw UsageError(fmt::format("{}: schema version {} is newer than this pimg-tune's {}", path, in.version,
                                   Store::kSchemaVersion));
    if ((in.version == 0 && tables != 0) || (in.version > 0 && evaluations == 0))
      throw UsageError(fmt::format("{}: not a pimg-tune database (has other tables)", path));
    if (in.version < 0) throw UsageError(fmt::format("{}: not a pimg-tune database (user_version {})", path, in.version));
  } catch (const SqliteError& e) {
    sqlite3_close(db);
    throw UsageError(fmt::format("{}: not a pimg-tune database ({})", path, e.what()));
  }
  return in;
}

// A write that meets a fault of the machine is tried again with growing pauses; a busy database has
// already waited the busy timeout inside SQLite. What persists becomes an EnvironmentError.
constexpr int kWriteAttempts = 4;

int busy_timeout_ms() {
  // PIMG_DB_BUSY_MS shortens (or lengthens) the wait for another process's write lock; tests use it.
  if (const char* env = std::getenv("PIMG_DB_BUSY_MS"); env && *env) {
    const long v = std::strtol(env, nullptr, 10);
    if (v > 0 && v <= 3600000) return static_cast<int>(v);
  }
  return 30000;
}

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

// The file at `path` (device and inode), or {0, 0} when there is none.
std::pair<std::uint64_t, std::uint64_t> file_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {0, 0};
  return {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
}

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

Store::Store(const std::string& path, Mode mode) : path_(path) {
  if (path.empty() || path == ":memory:" || path.rfind("file:", 0) == 0)
    throw UsageError(fmt::format("--db '{}': not a file name; SQLite would keep the results in a temporary database "
                                 "and discard them", path));
  const Inspection in = inspect(path);
  if (mode != Mode::create && !in.exists) throw UsageError(fmt::format("{}: no such database", path));
  if (mode == Mode::read_only && (in.empty || in.version == 0))
    throw UsageError(fmt::format("{}: empty, not a pimg-tune database", path));
  if (mode == Mode::read_only && in.version == kSchemaVersion) {
    db_ = open_read_only(path);
    try {
      schema_version();  // fails here when the -wal file cannot be read without write access
    } catch (const SqliteError& e) {
      sqlite3_close(db_);
      db_ = nullptr;
      throw UsageError(fmt::format("{}: cannot read ({})", path, e.what()));
    }
    return;
  }
  if (mode == Mode::read_only) {
    // An older schema: a reading command never writes, so the file is copied into memory and the copy migrated.
    sqlite3* file = open_read_only(path);
    try {
      if (sqlite3_open(":memory:", &db_) != SQLITE_OK) throw SqliteError(SQLITE_NOMEM, "cannot open a database in memory");
      sqlite3_backup* copy = sqlite3_backup_init(db_, "main", file, "main");
      if (!copy) throw SqliteError(sqlite3_errcode(db_), sqlite3_errmsg(db_));
      const int rc = sqlite3_backup_step(copy, -1);
      sqlite3_backup_finish(copy);
      if (rc != SQLITE_DONE) throw SqliteError(rc, sqlite3_errstr(rc));
      sqlite3_close(file);
      file = nullptr;
      migrate();
    } catch (const std::runtime_error& e) {
      sqlite3_close(file);
      sqlite3_close(db_);
      db_ = nullptr;
      if (dynamic_cast<const UsageError*>(&e)) throw;
      throw UsageError(fmt::format("{}: cannot read schema version {} ({})", path, in.version, e.what()));
    }
    return;
  }
  // An older schema is migrated (written) by a writing command.
  int flags = SQLITE_OPEN_READWRITE | (mode == Mode::create ? SQLITE_OPEN_CREATE : 0);
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw UsageError(fmt::format("{}: cannot open database ({})", path, msg));
  }
  sqlite3_busy_timeout(db_, busy_timeout_ms());
  try {
    // A damaged store is refused before a run appends to it (reading only; a writer beside us is fine). An I/O
    // error on the way is the machine's (below), not the store's.
    if (in.exists && !in.empty) {
      Stmt check(db_, "PRAGMA integrity_check(1)");
      if (check.step() && check.text(0) != "ok")
        throw UsageError(fmt::format("{}: fails SQLite's integrity check ({}); nothing is written to it: read what "
                                     "it holds with pimg-tune best or export, or recover it with sqlite3's .recover",
                                     path, check.text(0)));
    }
    // Two processes opening a new database at once: switching it to WAL can answer SQLITE_BUSY
    // without calling the busy handler (it needs an exclusive lock), so the set-up is retried for as
    // long as the busy timeout would have waited. Migrations themselves run under BEGIN IMMEDIATE.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(busy_timeout_ms());
    for (int attempt = 0;; ++attempt) {
      try {
        exec(db_, "PRAGMA foreign_keys = ON");
        exec(db_, "PRAGMA journal_mode = WAL");
        exec(db_, "PRAGMA synchronous = NORMAL");
        migrate();
        break;
      } catch (const SqliteError& e) {
        const int code = e.code();
        if (code != SQLITE_BUSY && code != SQLITE_LOCKED) throw;
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);  // if a migration's transaction was open
        if (std::chrono::steady_clock::now() > deadline)
          throw EnvironmentError(fmt::format("{}: another process holds its write lock ({})", path, e.what()));
        std::this_thread::sleep_for(std::chrono::milliseconds(std::min(5 << std::min(attempt, 6), 200)));
      }
    }
  } catch (const std::runtime_error& e) {
    sqlite3_close(db_);
    db_ = nullptr;
    if (dynamic_cast<const UsageError*>(&e) || dynamic_cast<const EnvironmentError*>(&e)) throw;
    const auto* sq = dynamic_cast<const SqliteError*>(&e);
    if (sq && (sq->code() == SQLITE_FULL || sq->code() == SQLITE_IOERR || sq->code() == SQLITE_READONLY ||
               sq->code() == SQLITE_CANTOPEN))
      throw EnvironmentError(fmt::format("{}: cannot write ({})", path, e.what()));
    throw UsageError(fmt::format("{}: not a usable pimg-tune database ({})", path, e.what()));
  }
  std::tie(file_dev_, file_ino_) = file_identity(path);
}

Store::~Store() { sqlite3_close(db_); }

void Store::check_still_there() const {
  if (file_ino_ == 0) return;
  const auto [dev, ino] = file_identity(path_);
  if (dev != file_dev_ || ino != file_ino_)
    throw UsageError(fmt::format("{}: the database was {} during the run; what this run measured since then went to "
                                 "the old file, and nothing more is written",
                                 path_, ino == 0 ? "deleted" : "replaced by another file"));
}

int Store::schema_version() const {
  Stmt s(db_, "PRAGMA user_version");
  s.step();
  return static_cast<int>(s.i64(0));
}

void Store::migrate() {
  int current = schema_version();
  if (current > kSchemaVersion)
    throw UsageError(fmt::format("{}: schema version {} is newer than this pimg-tune's {}", path_, current,
                                 kSchemaVersion));
  if (current == kSchemaVersion) return;
  // Table rebuilds (003) need foreign keys off; the pragma is a no-op inside a transaction.
  exec(db_, "PRAGMA foreign_keys = OFF");
  for (const auto* m = detail::kMigrations; m->path; ++m) {
    int number = std::atoi(m->path);  // "001_initial.sql" -> 1
    PIMG_CHECK(number >= 1 && number <= kSchemaVersion, std::string("migration out of range: ") + m->path);
    Transaction t(db_);
    // Read again under the write lock: another process may have migrated since (two tuners
    // starting on one new database).
    current = schema_version();
    if (number <= current) continue;
    if (current == 0) {
      // A version-0 file must be empty: refuse to write our schema into someone else's database.
      Stmt s(db_, "SELECT count(*) FROM sqlite_master");
      s.step();
      if (s.i64(0) != 0) throw UsageError(fmt::format("{}: not a pimg-tune database (has other tables)", path_));
    }
    exec(db_, std::string(reinterpret_cast<const char*>(m->data), m->size));
    {
      Stmt fk(db_, "PRAGMA foreign_key_check");
      PIMG_CHECK(!fk.step(), std::string("migration broke a foreign key: ") + m->path);
    }
    exec(db_, fmt::format("PRAGMA user_version = {}", number));
    t.commit();
    current = number;
  }
  exec(db_, "PRAGMA foreign_keys = ON");
  PIMG_CHECK(current == kSchemaVersion, "migrations do not reach the schema version");
}

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
             "min_ops) VALUES (?,?,?,?,?,?,?,?,?)");
    ins.bind(1, p.family).bind(2, canonical).bind(3, p.width).bind(4, p.height).bind(5, p.channels);
    ins.bind(6, cost.work).bind(7, cost.unit).bind(8, cost.traffic.bytes).bind(9, cost.traffic.ops);
    ins.step();
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

namespace {

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

void Store::save_bandwidth(std::int64_t device, double bytes, double gbs, std::int64_t run, const std::string& method) {
  with_retries(db_, path_, [&] {
    Stmt s(db_, "INSERT INTO bandwidth (device_id, bytes, gbs, run_id, method) VALUES (?,?,?,?,?)");
    s.bind(1, device).bind(2, bytes).bind(3, gbs);
    if (run > 0) s.bind(4, run);  // else NULL: no run measured it
    s.bind(5, method);
    s.step();
  });
}

std::optional<double> Store::bandwidth(std::int64_t device) {
  Stmt s(db_, "SELECT gbs FROM bandwidth WHERE device_id=? ORDER BY id DESC LIMIT 1");
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
  Stmt m(db_, "SELECT name, unit, seq, value FROM metrics WHERE evaluation_id=? ORDER BY name, seq");
  for (auto& r : rows) {
    if (!r.result.metrics.empty()) continue;
    m.reset();
    m.bind(1, r.id);
    while (m.step()) r.result.metrics.push_back({m.text(0), m.text(1), static_cast<int>(m.i64(2)), m.real(3)});
  }
}

void Store::save_ladder_step(std::int64_t evaluation, const std::string& ladder, int seq, const std::string& step) {
  with_retries(db_, path_, [&] {
    Stmt s(db_, "INSERT INTO ladder_steps (evaluation_id, ladder, seq, step) VALUES (?,?,?,?)");
    s.bind(1, evaluation).bind(2, ladder).bind(3, static_cast<std::int64_t>(seq)).bind(4, step);
    s.step();
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
      "e.flags, e.stage, d.caps, d.position "
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
  Stmt s(db_, "SELECT kernel_ms, wall_ms FROM samples WHERE evaluation_id=? ORDER BY seq");
  for (auto& r : rows) {
    if (!r.result.kernel_ms.empty()) continue;
    s.reset();
    s.bind(1, r.id);
    while (s.step()) {
      r.result.kernel_ms.push_back(s.real(0));
      r.result.wall_ms.push_back(s.real(1));
    }
  }
}

std::vector<BandwidthRow> Store::bandwidths() const { return query_bandwidths(true); }
std::vector<BandwidthRow> Store::all_bandwidths() const { return query_bandwidths(false); }

std::vector<BandwidthRow> Store::query_bandwidths(bool latest_only) const {
  std::string sql =
      "SELECT d.backend, d.name, d.vendor, d.driver, d.platform, b.gbs, b.bytes, coalesce(b.run_id, 0), b.method "
      "FROM bandwidth b JOIN devices d ON d.id = b.device_id";
  sql += latest_only ? " WHERE b.id = (SELECT MAX(id) FROM bandwidth WHERE device_id = b.device_id) "
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
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace pimg
