// Reading T4 result files and Kernel Tuner cache files (gzip through zlib) into imported spaces, and
// storing them idempotently.
#include "pimg/import.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <algorithm>
#include <fstream>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <set>

#include "pimg/errors.hpp"
#include "pimg/json_document.hpp"

namespace pimg {
namespace {

using T = JsonNode::Type;

// A whole file, decompressed when it is gzip. Only regular files are read (a FIFO would wait for a writer,
// a device such as /dev/zero never ends), and neither the file nor what it expands to may exceed `max_bytes`.
std::string read_file(const std::string& path, std::uint64_t max_bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (st.type() == fs::file_type::not_found) throw UsageError(fmt::format("{}: no such file", path));
  if (st.type() == fs::file_type::directory) throw UsageError(fmt::format("{}: a directory, not a file", path));
  if (ec || st.type() != fs::file_type::regular)
    throw UsageError(fmt::format("{}: not a regular file (a FIFO, device or socket); import reads files only", path));
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) throw UsageError(fmt::format("{}: cannot read ({})", path, ec.message()));
  const auto limit = [&](const std::string& what) {
    return UsageError(fmt::format("{}: {} the import limit of {} MiB (--max-size)", path, what, max_bytes >> 20));
  };
  if (size > max_bytes) throw limit(fmt::format("{} bytes, more than", size));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("{}: cannot read", path));
  std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (raw.size() < 2 || static_cast<unsigned char>(raw[0]) != 0x1f || static_cast<unsigned char>(raw[1]) != 0x8b)
    return raw;
  z_stream z{};
  if (inflateInit2(&z, 15 + 32) != Z_OK) throw UsageError(fmt::format("{}: cannot start gzip decoding", path));
  std::string out;
  char buf[1 << 16];
  z.next_in = reinterpret_cast<Bytef*>(raw.data());
  z.avail_in = static_cast<uInt>(raw.size());
  int rc = Z_OK;
  do {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&z);
      throw UsageError(fmt::format("{}: corrupt gzip data ({})", path, z.msg ? z.msg : "inflate failed"));
    }
    out.append(buf, sizeof buf - z.avail_out);
    if (out.size() > max_bytes) {
      inflateEnd(&z);
      throw limit("expands past");
    }
  } while (rc != Z_STREAM_END && (z.avail_in > 0 || z.avail_out == 0));
  inflateEnd(&z);
  if (rc != Z_STREAM_END) throw UsageError(fmt::format("{}: truncated gzip data", path));
  return out;
}

// Errors name the file, the field path and where it is.
struct Ctx {
  const std::string& path;
  [[noreturn]] void fail(const JsonNode& at, const std::string& field, const std::string& what) const {
    // Field names and quoted values are the file's text: printable() keeps the message one line.
    throw UsageError(fmt::format("{}:{}:{}: {}: {}", path, at.line, at.column, printable(field), printable(what)));
  }
  const JsonNode& need(const JsonNode& obj, const std::string& key, T type, const std::string& where) const {
    const JsonNode* v = obj.find(key);
    const std::string field = where.empty() ? key : where + "." + key;
    if (!v) fail(obj, field, "missing");
    if (!v->is(type)) fail(*v, field, fmt::format("must be {}, is {}", JsonNode::type_name(type), JsonNode::type_name(v->type)));
    return *v;
  }
  double number(const JsonNode& v, const std::string& field) const {
    if (!v.is(T::number) || !std::isfinite(v.number) || v.number < 0)
      fail(v, field, "must be a finite number >= 0");
    return v.number;
  }
  // Typed members of an object `where`: present, of their type, numbers finite and >= 0.
  std::string text(const JsonNode& obj, const std::string& key, const std::string& where) const {
    return need(obj, key, T::string, where).text;
  }
  std::string nonempty_text(const JsonNode& obj, const std::string& key, const std::string& where) const {
    std::string s = text(obj, key, where);
    if (s.empty()) fail(obj, where + "." + key, "must not be empty");
    return s;
  }
  // A member object, and where it is for the messages about its own members.
  std::pair<const JsonNode&, std::string> object(const JsonNode& obj, const std::string& key,
                                                 const std::string& where) const {
    return {need(obj, key, T::object, where), where + "." + key};
  }
  double num(const JsonNode& obj, const std::string& key, const std::string& where) const {
    return number(need(obj, key, T::number, where), where + "." + key);
  }
  std::int64_t count(const JsonNode& obj, const std::string& key, const std::string& where) const {
    const double v = num(obj, key, where);
    if (v != std::floor(v) || v > 9e15) fail(*obj.find(key), where + "." + key, "must be a whole number");
    return static_cast<std::int64_t>(v);
  }
  // A whole number the store keeps in a 32-bit column (problem sizes, channels, compute units).
  int count32(const JsonNode& v, const std::string& field) const {
    const double x = number(v, field);
    if (x != std::floor(x) || x > std::numeric_limits<std::int32_t>::max())
      fail(v, field, fmt::format("must be a whole number from 0 to {}", std::numeric_limits<std::int32_t>::max()));
    return static_cast<int>(x);
  }
  int count32(const JsonNode& obj, const std::string& key, const std::string& where) const {
    return count32(need(obj, key, T::number, where), where + "." + key);
  }
  bool flag(const JsonNode& obj, const std::string& key, const std::string& where) const {
    return need(obj, key, T::boolean, where).boolean;
  }
  std::vector<double> numbers(const JsonNode& obj, const std::string& key, const std::string& where) const {
    std::vector<double> out;
    const JsonNode& a = need(obj, key, T::array, where);
    for (std::size_t i = 0; i < a.items.size(); ++i) out.push_back(number(a.items[i], fmt::format("{}.{}[{}]", where, key, i)));
    return out;
  }
};

// A correct configuration ranks by its times, so it must have been measured: at least one run, every
// run's time positive (an "ok" row of 0 ms with no samples would win every ranking).
void check_measured(const Ctx& c, const JsonNode& at, const std::string& field, const EvalResult& r) {
  if (r.status != Status::ok) return;
  if (r.kernel_ms.empty()) c.fail(at, field, "a correct configuration without a timed run");
  for (const double ms : r.kernel_ms)
    if (!(ms > 0)) c.fail(at, field, fmt::format("a correct configuration with a run of {} ms (times must be positive)", ms));
}

Value parameter_value(const Ctx& c, const JsonNode& v, const std::string& field) {
  if (v.is(T::boolean)) return static_cast<std::int64_t>(v.boolean);
  if (v.is(T::string)) return v.text;
  if (v.is(T::number)) {
    if (std::isfinite(v.number) && v.number == std::floor(v.number) && std::abs(v.number) < 9e15)
      return static_cast<std::int64_t>(v.number);
    return v.text;  // a non-integral value keeps its text
  }
  c.fail(v, field, "must be a number, a string or a boolean");
}

// The parameters `keys` of `obj`. A "variant" key (pimg-tune's export tags each configuration with its
// variant) is no parameter: its text goes to `variant`, and a file without it leaves `variant` as it is.
Config configuration(const Ctx& c, const JsonNode& obj, const std::vector<std::string>& keys, const std::string& where,
                     std::string& variant) {
  Config cfg;
  for (const auto& k : keys) {
    const JsonNode* v = obj.find(k);
    if (!v) c.fail(obj, where + "." + k, "missing");
    if (k == kVariantKey) {
      if (!v->is(T::string) || v->text.empty()) c.fail(*v, where + "." + k, "must be the variant's name (a string)");
      variant = v->text;
      continue;
    }
    cfg.set(k, parameter_value(c, *v, where + "." + k));
  }
  return cfg;
}

// pimg-tune's own fields of an exported result (report/src/export.cpp, pimg_fields): what T4 has no
// place for, read back exactly.
void read_pimg_fields(const Ctx& c, const JsonNode& p, const std::string& where, ImportedEntry& entry) {
  const auto [d, wd] = c.object(p, "device", where);
  entry.device.backend = c.nonempty_text(d, "backend", wd);
  entry.device.name = c.text(d, "name", wd);
  entry.device.vendor = c.text(d, "vendor", wd);
  entry.device.driver = c.text(d, "driver", wd);
  entry.device.platform = c.text(d, "platform", wd);
  entry.device.compute_units = c.count32(d, "compute_units", wd);
  entry.device.global_mem_bytes = static_cast<std::uint64_t>(c.count(d, "global_mem_bytes", wd));
  entry.device.local_mem_bytes = static_cast<std::uint64_t>(c.count(d, "local_mem_bytes", wd));
  entry.device.max_work_group_size = c.count(d, "max_work_group_size", wd);

  const auto [pr, wp] = c.object(p, "problem", where);
  entry.problem.family = c.nonempty_text(pr, "family", wp);
  entry.problem.width = c.count32(pr, "width", wp);
  entry.problem.height = c.count32(pr, "height", wp);
  entry.problem.channels = c.count32(pr, "channels", wp);
  for (const auto& [k, v] : c.need(pr, "attributes", T::object, wp).fields) {
    if (!v.is(T::string)) c.fail(v, wp + ".attributes." + k, "must be a string");
    entry.problem.attrs[k] = v.text;
  }
  entry.cost.work = c.num(pr, "work", wp);
  entry.cost.unit = c.text(pr, "unit", wp);
  entry.cost.traffic.bytes = c.num(pr, "min_bytes", wp);
  entry.cost.traffic.ops = c.num(pr, "min_ops", wp);
  if (pr.find("min_written")) {  // files of schema 12 on, where the family says how many bytes are written
    entry.cost.traffic.written = c.num(pr, "min_written", wp);
    if (*entry.cost.traffic.written < 0 || *entry.cost.traffic.written > entry.cost.traffic.bytes)
      c.fail(*pr.find("min_written"), wp + ".min_written", "must be from 0 to min_bytes");
  }

  const auto [v, wv] = c.object(p, "variant", where);
  const std::string name = c.text(v, "name", wv);
  if (!entry.variant.name.empty() && entry.variant.name != name)
    c.fail(v, wv + ".name", fmt::format("'{}' differs from the configuration's variant '{}'", name, entry.variant.name));
  entry.variant = {entry.problem.family, name, c.text(v, "backend", wv), c.text(v, "source_hash", wv),
                   c.flag(v, "baseline", wv)};

  EvalResult& r = entry.result;
  const JsonNode& status = c.need(p, "status", T::string, where);
  try {
    r.status = status_from_string(status.text);
  } catch (const std::invalid_argument&) {
    c.fail(status, where + ".status", fmt::format("unknown status '{}'", status.text));
  }
  r.log = c.text(p, "log", where);
  r.validation = c.text(p, "validation", where);
  r.compile_cached = c.flag(p, "compile_cached", where);
  r.h2d_ms = c.num(p, "h2d_ms", where);
  r.d2h_ms = c.num(p, "d2h_ms", where);
  r.eval_ms = c.num(p, "eval_ms", where);
  r.kernel_ms = c.numbers(p, "kernel_ms", where);
  r.wall_ms = c.numbers(p, "wall_ms", where);
  if (r.wall_ms.size() != r.kernel_ms.size())
    c.fail(p, where + ".wall_ms", "kernel_ms and wall_ms must have one value per timed run each");
  // Files written before schema 11 carry the MPI backend's communication times as an array of their own: they
  // become the metrics a newer file carries (mpi.comm_ms, seq: the run; a 0 was "not measured").
  std::vector<Metric> legacy;
  if (p.find("comm_ms")) {
    const std::vector<double> comm = c.numbers(p, "comm_ms", where);
    if (comm.size() != r.kernel_ms.size())
      c.fail(p, where + ".comm_ms", "must have one value per timed run");
    for (std::size_t i = 0; i < comm.size(); ++i)
      if (comm[i] != 0) legacy.push_back({"mpi.comm_ms", "ms", static_cast<int>(i), comm[i]});
  }
  r.kernel = {c.num(p, "min_ms", where), c.num(p, "median_ms", where), c.num(p, "mean_ms", where),
              c.num(p, "stddev_ms", where)};
  check_measured(c, p, where + ".kernel_ms", r);
  if (r.status == Status::ok && !(r.kernel.median > 0)) c.fail(p, where + ".median_ms", "must be positive for a correct configuration");
  r.method = c.text(p, "method", where);
  r.ci_low_ms = c.num(p, "ci_low_ms", where);
  r.ci_high_ms = c.num(p, "ci_high_ms", where);
  r.identity = c.text(p, "identity", where);
  const JsonNode& flags = c.need(p, "flags", T::array, where);
  for (std::size_t i = 0; i < flags.items.size(); ++i) {
    if (!flags.items[i].is(T::string)) c.fail(flags.items[i], fmt::format("{}.flags[{}]", where, i), "must be a string");
    r.flags.push_back(flags.items[i].text);
  }
  const JsonNode& stage = c.need(p, "stage", T::string, where);
  if (stage.text != "search" && stage.text != "confirm" && stage.text != "cold")
    c.fail(stage, where + ".stage", "must be search, confirm or cold");
  r.stage = stage.text;
  const JsonNode& metrics = c.need(p, "metrics", T::array, where);
  for (std::size_t i = 0; i < metrics.items.size(); ++i) {
    const JsonNode& m = metrics.items[i];
    const std::string wm = fmt::format("{}.metrics[{}]", where, i);
    if (!m.is(T::object)) c.fail(m, wm, "must be an object");
    const JsonNode& seq = c.need(m, "seq", T::number, wm);
    const JsonNode& value = c.need(m, "value", T::number, wm);
    if (seq.number != std::floor(seq.number) || seq.number < -1 || seq.number > 1e9)
      c.fail(seq, wm + ".seq", "must be a timed run's index or -1");
    if (!std::isfinite(value.number)) c.fail(value, wm + ".value", "must be a finite number");
    r.metrics.push_back({c.text(m, "name", wm), c.text(m, "unit", wm), static_cast<int>(seq.number), value.number});
  }
  for (Metric& m : legacy)
    if (std::none_of(r.metrics.begin(), r.metrics.end(), [&](const Metric& x) { return x.name == m.name && x.seq == m.seq; }))
      r.metrics.push_back(std::move(m));
}

// Completes an imported result from its runs; `objective` is the time its writer ranked it by.
void finish(EvalResult& r, double compile, double framework, double validation, std::optional<double> objective) {
  r.compile_ms = compile;
  r.kernel = Stats::of(r.kernel_ms);
  r.eval_ms = compile + framework + validation + std::accumulate(r.kernel_ms.begin(), r.kernel_ms.end(), 0.0);
  r.method = "imported";
  r.validation = r.status == Status::ok ? "imported" : "";
  r.metrics.push_back({"import.framework_ms", "ms", -1, framework});
  r.metrics.push_back({"import.validation_ms", "ms", -1, validation});
  if (objective) r.metrics.push_back({kWriterObjectiveMetric, "ms", -1, *objective});
}

// Whether a T4 result's objective is its time: no `objectives` list, or one that names "time" first.
bool time_is_objective(const Ctx& c, const JsonNode& e, const std::string& where) {
  const JsonNode* o = e.find("objectives");
  if (!o) return true;
  if (!o->is(T::array)) c.fail(*o, where + ".objectives", "must be an array");
  if (o->items.empty()) return true;
  if (!o->items[0].is(T::string)) c.fail(o->items[0], where + ".objectives[0]", "must be a string");
  return o->items[0].text == "time";
}

// "convolution_A100_T4.json.gz" -> {"convolution", "A100"}; KTT's "FullSearchSpace.t4.json" -> {"FullSearchSpace", ""}
std::pair<std::string, std::string> names_from_file(const std::string& path) {
  std::string stem = std::filesystem::path(path).filename().string();
  for (const char* ext : {".gz", ".json", "_T4", "_t4", ".T4", ".t4"})
    if (stem.size() > std::strlen(ext) && stem.ends_with(ext)) stem = stem.substr(0, stem.size() - std::strlen(ext));
  const auto cut = stem.rfind('_');
  if (cut == std::string::npos || cut == 0 || cut + 1 == stem.size()) return {stem, ""};
  return {stem.substr(0, cut), stem.substr(cut + 1)};
}

// A parameter every result of a file gives as the text of an integer ("32", as KTT writes every value) is that
// integer, so the strategies order its values and other files' results of the kernel match it; a parameter with any
// other text keeps its text. pimg-tune's own export (its entries name their device) is read back as written.
void integers_from_text(std::vector<ImportedEntry>& all) {
  std::vector<ImportedEntry*> entries;
  for (auto& e : all)
    if (e.device.backend.empty()) entries.push_back(&e);
  auto integer_text = [](const Value& v) {
    const std::string* t = std::get_if<std::string>(&v);
    if (!t || t->empty() || t->size() > 15) return false;
    const std::size_t digits = (*t)[0] == '-' ? 1 : 0;
    if (digits == t->size() || ((*t)[digits] == '0' && t->size() > digits + 1)) return false;  // "-", "007"
    return std::all_of(t->begin() + static_cast<std::ptrdiff_t>(digits), t->end(), [](char ch) { return ch >= '0' && ch <= '9'; });
  };
  std::set<std::string> names;
  for (const ImportedEntry* e : entries)
    for (const auto& [k, v] : e->config.values()) names.insert(k);
  for (const std::string& k : names) {
    if (!std::all_of(entries.begin(), entries.end(),
                     [&](const ImportedEntry* e) { return e->config.has(k) && integer_text(e->config.at(k)); }))
      continue;
    for (ImportedEntry* e : entries) e->config.set(k, static_cast<std::int64_t>(std::stoll(std::get<std::string>(e->config.at(k)))));
  }
}

void read_t4(const Ctx& c, const JsonNode& doc, ImportedFile& f, std::string& device) {
  double scale = 1;  // to milliseconds
  if (const JsonNode* meta = doc.find("metadata"); meta && meta->is(T::object)) {
    if (const JsonNode* d = meta->find("device")) {  // KTT names it; the hub's files leave it to the file name
      if (!d->is(T::string) || d->text.empty()) c.fail(*d, "metadata.device", "must be the device's name (a string)");
      device = d->text;
    }
    if (const JsonNode* unit = meta->find("timeunit")) {
      if (!unit->is(T::string)) c.fail(*unit, "metadata.timeunit", "must be a string");
      const std::string u = unit->text;
      if (u == "seconds" || u == "s") scale = 1e3;
      else if (u == "microseconds" || u == "us") scale = 1e-3;
      else if (u != "milliseconds" && u != "miliseconds" && u != "ms")
        c.fail(*unit, "metadata.timeunit", fmt::format("unknown unit '{}' (seconds, milliseconds, microseconds)", u));
    }
  }
  const JsonNode& results = c.need(doc, "results", T::array, "");
  for (std::size_t i = 0; i < results.items.size(); ++i) {
    const JsonNode& e = results.items[i];
    const std::string where = fmt::format("results[{}]", i);
    if (!e.is(T::object)) c.fail(e, where, "must be an object");
    const JsonNode& conf = c.need(e, "configuration", T::object, where);
    std::vector<std::string> keys;
    for (const auto& [k, _] : conf.fields) keys.push_back(k);
    const std::string inv = c.need(e, "invalidity", T::string, where).text;
    if (inv == "constraints") {
      ++f.constraint_violations;
      continue;
    }
    ImportedEntry entry;
    entry.config = configuration(c, conf, keys, where + ".configuration", entry.variant.name);
    if (const JsonNode* ts = e.find("timestamp")) {
      if (!ts->is(T::string)) c.fail(*ts, where + ".timestamp", "must be a string");
      entry.created_at = ts->text;
    }
    EvalResult& r = entry.result;
    if (inv == "correct") r.status = Status::ok;
    else if (inv == "compile") r.status = Status::compile_error;
    else if (inv == "runtime") r.status = Status::launch_error;
    else if (inv == "timeout") r.status = Status::timeout;
    else if (inv == "correctness") r.status = Status::wrong_result;
    else
      c.fail(*e.find("invalidity"), where + ".invalidity",
             fmt::format("unknown value '{}' (correct, compile, runtime, correctness, constraints, timeout)", inv));
    const JsonNode& times = c.need(e, "times", T::object, where);
    auto time = [&](const char* k) {
      const JsonNode* v = times.find(k);
      return v ? c.number(*v, where + ".times." + k) * scale : 0.0;
    };
    if (const JsonNode* own = e.find(kPimgFieldsKey)) {
      if (!own->is(T::object)) c.fail(*own, where + "." + kPimgFieldsKey, "must be an object");
      read_pimg_fields(c, *own, where + "." + kPimgFieldsKey, entry);
      r.compile_ms = time("compilation");
      f.entries.push_back(std::move(entry));
      continue;
    }
    if (r.status != Status::ok) r.log = "imported: invalidity " + inv;
    if (const JsonNode* runs = times.find("runtimes")) {
      if (!runs->is(T::array)) c.fail(*runs, where + ".times.runtimes", "must be an array");
      for (std::size_t k = 0; k < runs->items.size(); ++k)
        r.kernel_ms.push_back(c.number(runs->items[k], fmt::format("{}.times.runtimes[{}]", where, k)) * scale);
    }
    // The writer's objective: the "time" measurement (in the file's unit), unless the result names
    // another objective first.
    std::optional<double> objective;
    if (r.status == Status::ok && time_is_objective(c, e, where))
      if (const JsonNode* ms = e.find("measurements")) {
        if (!ms->is(T::array)) c.fail(*ms, where + ".measurements", "must be an array");
        for (std::size_t k = 0; k < ms->items.size(); ++k)
          if (const JsonNode* n = ms->items[k].find("name"); n && n->is(T::string) && n->text == "time") {
            const std::string wm = fmt::format("{}.measurements[{}]", where, k);
            objective = c.number(c.need(ms->items[k], "value", T::number, wm), wm + ".value") * scale;
          }
      }
    if (r.status == Status::ok && r.kernel_ms.empty()) {
      // No runtimes: the "time" objective stands for the one run.
      if (!objective) c.fail(e, where + ".times.runtimes", "a correct configuration without runtimes or a time measurement");
      r.kernel_ms.push_back(*objective);
    }
    check_measured(c, times, where + ".times.runtimes", r);
    if (r.status == Status::ok && objective && !(*objective > 0))
      c.fail(e, where + ".measurements", "a correct configuration's time must be positive");
    finish(r, time("compilation"), time("framework"), time("validation"), objective);
    f.entries.push_back(std::move(entry));
  }
  integers_from_text(f.entries);
}

void read_cache(const Ctx& c, const JsonNode& doc, ImportedFile& f) {
  const JsonNode& keys_node = c.need(doc, "tune_params_keys", T::array, "");
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < keys_node.items.size(); ++i) {
    if (!keys_node.items[i].is(T::string)) c.fail(keys_node.items[i], fmt::format("tune_params_keys[{}]", i), "must be a string");
    keys.push_back(keys_node.items[i].text);
  }
  const JsonNode& cache = c.need(doc, "cache", T::object, "");
  for (const auto& [key, e] : cache.fields) {
    const std::string where = "cache." + key;
    if (!e.is(T::object)) c.fail(e, where, "must be an object");
    ImportedEntry entry;
    entry.config = configuration(c, e, keys, where, entry.variant.name);
    EvalResult& r = entry.result;
    const JsonNode* t = e.find("time");
    if (!t) c.fail(e, where + ".time", "missing");
    std::optional<double> objective;  // Kernel Tuner's: its `time`, the mean of the runs
    if (t->is(T::string)) {
      if (t->text == "InvalidConfig") {
        ++f.constraint_violations;
        continue;
      }
      if (t->text == "CompilationFailedConfig") r.status = Status::compile_error;
      else if (t->text == "RuntimeFailedConfig") r.status = Status::launch_error;
      else
        c.fail(*t, where + ".time", fmt::format("unknown failure '{}' (InvalidConfig, CompilationFailedConfig, RuntimeFailedConfig)", t->text));
      r.log = "imported: " + t->text;
    } else {
      objective = c.number(*t, where + ".time");
      if (const JsonNode* runs = e.find("times"); runs && runs->is(T::array))
        for (std::size_t k = 0; k < runs->items.size(); ++k)
          r.kernel_ms.push_back(c.number(runs->items[k], fmt::format("{}.times[{}]", where, k)));
      if (r.kernel_ms.empty()) r.kernel_ms.push_back(*objective);
    }
    const JsonNode& node = e;  // clang 14 cannot capture a structured binding
    auto time = [&](const char* k) {
      const JsonNode* v = node.find(k);
      return v ? c.number(*v, where + "." + k) : 0.0;
    };
    check_measured(c, e, where + ".time", r);
    if (r.status == Status::ok && objective && !(*objective > 0))
      c.fail(e, where + ".time", "a correct configuration's time must be positive");
    finish(r, time("compile_time"), time("framework_time"), time("verification_time"), objective);
    f.entries.push_back(std::move(entry));
  }
}

}  // namespace

bool is_imported_family(const std::string& family) {
  return family.size() > std::strlen(kImportedFamilyPrefix) && family.starts_with(kImportedFamilyPrefix);
}

ImportedFile read_import(const std::string& path, const ImportOptions& options) {
  const std::string text = read_file(path, options.max_bytes);
  JsonNode doc;
  try {
    doc = parse_json(text);
  } catch (const std::runtime_error& e) {
    throw UsageError(fmt::format("{}: {}", path, printable(e.what())));
  }
  const Ctx c{path};
  if (!doc.is(T::object)) c.fail(doc, "(document)", "must be an object");
  ImportedFile f;
  f.path = path;
  auto [kernel, device] = names_from_file(path);
  if (doc.find("results")) {
    f.format = "t4";
    read_t4(c, doc, f, device);
  } else if (doc.find("cache")) {
    f.format = "kernel-tuner-cache";
    if (const JsonNode* d = doc.find("device_name"); d && d->is(T::string)) device = d->text;
    if (const JsonNode* k = doc.find("kernel_name"); k && k->is(T::string)) kernel = k->text;
    read_cache(c, doc, f);
    if (const JsonNode* ps = doc.find("problem_size"); ps && ps->is(T::array) && !ps->items.empty()) {
      f.problem.width = c.count32(ps->items[0], "problem_size[0]");
      if (ps->items.size() > 1) f.problem.height = c.count32(ps->items[1], "problem_size[1]");
    }
  } else {
    c.fail(doc, "results", "missing (neither a T4 results file nor a Kernel Tuner cache with 'cache')");
  }
  if (!options.device.empty()) device = options.device;
  if (!options.kernel.empty()) kernel = options.kernel;
  if (f.entries.empty()) c.fail(doc, f.format == "t4" ? "results" : "cache", "no configuration to import");
  // Results without pimg-tune's own fields are one device and one problem named by the file.
  const bool generic = std::any_of(f.entries.begin(), f.entries.end(), [](const ImportedEntry& e) { return e.device.backend.empty(); });
  if (generic) {
    if (device.empty()) c.fail(doc, "device", "cannot be told from the file name: pass --device");
    if (kernel.empty()) c.fail(doc, "kernel", "cannot be told from the file name: pass --kernel");
    f.device.backend = "imported";
    f.device.name = device;
    f.problem.family = kImportedFamilyPrefix + kernel;
    f.problem.attrs["kernel"] = kernel;
    f.variant = {f.problem.family, kernel, "imported", "", false};
    for (auto& e : f.entries) {
      if (!e.device.backend.empty()) continue;
      e.device = f.device;
      e.problem = f.problem;
      e.variant = {f.problem.family, e.variant.name.empty() ? kernel : e.variant.name, "imported", "", false};
    }
  } else {
    f.device = f.entries.front().device;
    f.problem = f.entries.front().problem;
    f.variant = f.entries.front().variant;
  }
  return f;
}

ImportSummary store_import(Store& store, const ImportedFile& f, const RunInfo& run) {
  ImportSummary s;
  std::optional<std::int64_t> run_id;
  std::map<std::string, std::int64_t> devices, problems, variants;
  auto id_of = [](std::map<std::string, std::int64_t>& ids, const std::string& key, auto make) {
    auto it = ids.find(key);
    return it != ids.end() ? it->second : ids.emplace(key, make()).first->second;
  };
  for (const auto& e : f.entries) {
    const std::int64_t dev = id_of(devices, e.device.backend + "\n" + e.device.name + "\n" + e.device.driver + "\n" +
                                                e.device.platform, [&] {
                                                  DeviceInfo d = e.device;
                                                  d.caps.known = false;  // a file says nothing of what it is
                                                  d.index = -1;          // nor where a machine lists it
                                                  return store.device_id(d);
                                                });
    const std::int64_t prob = id_of(problems, e.problem.canonical(), [&] { return store.problem_id(e.problem, e.cost); });
    const std::int64_t var = id_of(variants, e.variant.family + "\n" + e.variant.name + "\n" + e.variant.backend + "\n" +
                                                 e.variant.source_hash, [&] { return store.variant_id(e.variant); });
    if (store.find(dev, prob, var, e.config, e.result.stage)) {
      ++s.already_stored;
      continue;
    }
    if (!run_id) run_id = store.begin_run(run);
    store.save(*run_id, dev, prob, var, e.config, e.result, e.created_at);
    ++s.added;
  }
  return s;
}

}  // namespace pimg
