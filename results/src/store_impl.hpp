// Internal to the SQLite store (store_open.cpp, store_write.cpp, store_query.cpp): SQLite's errors with their
// result codes, prepared statements, and transactions.
#pragma once
#include <fmt/format.h>
#include <sqlite3.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace pimg::store_impl {

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

inline void exec(sqlite3* db, const std::string& sql) {
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

}  // namespace pimg::store_impl
