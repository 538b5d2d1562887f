// The SQLite store opened: a file checked before anything is written to it, opened read-only or for writing
// (WAL journal), and its schema migrated to this build's, tracked by PRAGMA user_version.
#include "pimg/store.hpp"

#include <fmt/format.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <tuple>

#include "pimg/errors.hpp"
#include "store_impl.hpp"

namespace pimg::detail {
struct EmbeddedKernel {
  const char* path;
  const unsigned char* data;
  std::size_t size;
};
extern const EmbeddedKernel kMigrations[];
}  // namespace pimg::detail

namespace pimg {

using store_impl::exec;
using store_impl::SqliteError;
using store_impl::Stmt;
using store_impl::Transaction;

namespace {

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

int busy_timeout_ms() {
  // PIMG_DB_BUSY_MS shortens (or lengthens) the wait for another process's write lock; tests use it.
  if (const char* env = std::getenv("PIMG_DB_BUSY_MS"); env && *env) {
    const long v = std::strtol(env, nullptr, 10);
    if (v > 0 && v <= 3600000) return static_cast<int>(v);
  }
  return 30000;
}

// The file at `path` (device and inode), or {0, 0} when there is none.
std::pair<std::uint64_t, std::uint64_t> file_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {0, 0};
  return {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
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

}  // namespace pimg
