// Reading T4 result files and Kernel Tuner cache files (gzip through zlib) into imported spaces, and
// storing them idempotently.
#include "pimg/import.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>

#include "pimg/errors.hpp"
#include "pimg/json_document.hpp"

namespace pimg {
namespace {

using T = JsonNode::Type;

std::string read_file(const std::string& path) {
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
  } while (rc != Z_STREAM_END && (z.avail_in > 0 || z.avail_out == 0));
  inflateEnd(&z);
  if (rc != Z_STREAM_END) throw UsageError(fmt::format("{}: truncated gzip data", path));
  return out;
}

// Errors name the file, the field path and where it is.
struct Ctx {
  const std::string& path;
  [[noreturn]] void fail(const JsonNode& at, const std::string& field, const std::string& what) const {
    throw UsageError(fmt::format("{}:{}:{}: {}: {}", path, at.line, at.column, field, what));
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
};

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

Config configuration(const Ctx& c, const JsonNode& obj, const std::vector<std::string>& keys, const std::string& where) {
  Config cfg;
  for (const auto& k : keys) {
    const JsonNode* v = obj.find(k);
    if (!v) c.fail(obj, where + "." + k, "missing");
    cfg.set(k, parameter_value(c, *v, where + "." + k));
  }
  if (cfg.has("variant")) c.fail(obj, where + ".variant", "a parameter named 'variant' cannot be imported (it tags variants)");
  return cfg;
}

void finish(EvalResult& r, double compile, double framework, double validation) {
  r.compile_ms = compile;
  r.kernel = Stats::of(r.kernel_ms);
  r.eval_ms = compile + framework + validation + std::accumulate(r.kernel_ms.begin(), r.kernel_ms.end(), 0.0);
  r.method = "imported";
  r.validation = r.status == Status::ok ? "imported" : "";
  r.metrics.push_back({"import.framework_ms", "ms", -1, framework});
  r.metrics.push_back({"import.validation_ms", "ms", -1, validation});
}

// "convolution_A100_T4.json.gz" -> {"convolution", "A100"}
std::pair<std::string, std::string> names_from_file(const std::string& path) {
  std::string stem = std::filesystem::path(path).filename().string();
  for (const char* ext : {".gz", ".json", "_T4", "_t4"})
    if (stem.size() > std::strlen(ext) && stem.ends_with(ext)) stem.resize(stem.size() - std::strlen(ext));
  const auto cut = stem.rfind('_');
  if (cut == std::string::npos || cut == 0 || cut + 1 == stem.size()) return {stem, ""};
  return {stem.substr(0, cut), stem.substr(cut + 1)};
}

void read_t4(const Ctx& c, const JsonNode& doc, ImportedFile& f) {
  double scale = 1;  // to milliseconds
  if (const JsonNode* meta = doc.find("metadata"); meta && meta->is(T::object))
    if (const JsonNode* unit = meta->find("timeunit")) {
      if (!unit->is(T::string)) c.fail(*unit, "metadata.timeunit", "must be a string");
      const std::string u = unit->text;
      if (u == "seconds" || u == "s") scale = 1e3;
      else if (u == "microseconds" || u == "us") scale = 1e-3;
      else if (u != "milliseconds" && u != "miliseconds" && u != "ms")
        c.fail(*unit, "metadata.timeunit", fmt::format("unknown unit '{}' (seconds, milliseconds, microseconds)", u));
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
    entry.config = configuration(c, conf, keys, where + ".configuration");
    EvalResult& r = entry.result;
    if (inv == "correct") r.status = Status::ok;
    else if (inv == "compile") r.status = Status::compile_error;
    else if (inv == "runtime") r.status = Status::launch_error;
    else if (inv == "timeout") r.status = Status::timeout;
    else if (inv == "correctness") r.status = Status::wrong_result;
    else
      c.fail(*e.find("invalidity"), where + ".invalidity",
             fmt::format("unknown value '{}' (correct, compile, runtime, correctness, constraints, timeout)", inv));
    if (r.status != Status::ok) r.log = "imported: invalidity " + inv;
    const JsonNode& times = c.need(e, "times", T::object, where);
    auto time = [&](const char* k) {
      const JsonNode* v = times.find(k);
      return v ? c.number(*v, where + ".times." + k) * scale : 0.0;
    };
    if (const JsonNode* runs = times.find("runtimes")) {
      if (!runs->is(T::array)) c.fail(*runs, where + ".times.runtimes", "must be an array");
      for (std::size_t k = 0; k < runs->items.size(); ++k)
        r.kernel_ms.push_back(c.number(runs->items[k], fmt::format("{}.times.runtimes[{}]", where, k)) * scale);
    }
    if (r.status == Status::ok && r.kernel_ms.empty()) {
      // No runtimes: the "time" objective (in the file's unit) stands for the one run.
      const JsonNode& ms = c.need(e, "measurements", T::array, where);
      for (const auto& m : ms.items)
        if (const JsonNode* n = m.find("name"); n && n->is(T::string) && n->text == "time")
          r.kernel_ms.push_back(c.number(c.need(m, "value", T::number, where + ".measurements"), where + ".measurements.value") * scale);
      if (r.kernel_ms.empty()) c.fail(e, where + ".times.runtimes", "a correct configuration without runtimes or a time measurement");
    }
    finish(r, time("compilation"), time("framework"), time("validation"));
    f.entries.push_back(std::move(entry));
  }
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
    entry.config = configuration(c, e, keys, where);
    EvalResult& r = entry.result;
    const JsonNode* t = e.find("time");
    if (!t) c.fail(e, where + ".time", "missing");
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
      const double ms = c.number(*t, where + ".time");
      if (const JsonNode* runs = e.find("times"); runs && runs->is(T::array))
        for (std::size_t k = 0; k < runs->items.size(); ++k)
          r.kernel_ms.push_back(c.number(runs->items[k], fmt::format("{}.times[{}]", where, k)));
      if (r.kernel_ms.empty()) r.kernel_ms.push_back(ms);
    }
    const JsonNode& node = e;  // clang 14 cannot capture a structured binding
    auto time = [&](const char* k) {
      const JsonNode* v = node.find(k);
      return v ? c.number(*v, where + "." + k) : 0.0;
    };
    finish(r, time("compile_time"), time("framework_time"), time("verification_time"));
    f.entries.push_back(std::move(entry));
  }
}

}  // namespace

bool is_imported_family(const std::string& family) {
  return family.size() > std::strlen(kImportedFamilyPrefix) && family.starts_with(kImportedFamilyPrefix);
}

ImportedFile read_import(const std::string& path, const ImportOptions& options) {
  const std::string text = read_file(path);
  JsonNode doc;
  try {
    doc = parse_json(text);
  } catch (const std::runtime_error& e) {
    throw UsageError(fmt::format("{}: {}", path, e.what()));
  }
  const Ctx c{path};
  if (!doc.is(T::object)) c.fail(doc, "(document)", "must be an object");
  ImportedFile f;
  f.path = path;
  auto [kernel, device] = names_from_file(path);
  if (doc.find("results")) {
    f.format = "t4";
    read_t4(c, doc, f);
  } else if (doc.find("cache")) {
    f.format = "kernel-tuner-cache";
    if (const JsonNode* d = doc.find("device_name"); d && d->is(T::string)) device = d->text;
    if (const JsonNode* k = doc.find("kernel_name"); k && k->is(T::string)) kernel = k->text;
    read_cache(c, doc, f);
    if (const JsonNode* ps = doc.find("problem_size"); ps && ps->is(T::array) && !ps->items.empty()) {
      f.problem.width = static_cast<int>(c.number(ps->items[0], "problem_size[0]"));
      if (ps->items.size() > 1) f.problem.height = static_cast<int>(c.number(ps->items[1], "problem_size[1]"));
    }
  } else {
    c.fail(doc, "results", "missing (neither a T4 results file nor a Kernel Tuner cache with 'cache')");
  }
  if (!options.device.empty()) device = options.device;
  if (!options.kernel.empty()) kernel = options.kernel;
  if (device.empty()) c.fail(doc, "device", "cannot be told from the file name: pass --device");
  if (kernel.empty()) c.fail(doc, "kernel", "cannot be told from the file name: pass --kernel");
  if (f.entries.empty()) c.fail(doc, f.format == "t4" ? "results" : "cache", "no configuration to import");
  f.device.backend = "imported";
  f.device.name = device;
  f.problem.family = kImportedFamilyPrefix + kernel;
  f.problem.attrs["kernel"] = kernel;
  f.variant = {f.problem.family, kernel, "imported", "", false};
  return f;
}

ImportSummary store_import(Store& store, const ImportedFile& f, const RunInfo& run) {
  const std::int64_t dev = store.device_id(f.device);
  const std::int64_t prob = store.problem_id(f.problem, ProblemCost{});
  const std::int64_t var = store.variant_id(f.variant);
  ImportSummary s;
  std::optional<std::int64_t> run_id;
  for (const auto& e : f.entries) {
    if (store.find(dev, prob, var, e.config)) {
      ++s.already_stored;
      continue;
    }
    if (!run_id) run_id = store.begin_run(run);
    store.save(*run_id, dev, prob, var, e.config, e.result);
    ++s.added;
  }
  return s;
}

}  // namespace pimg
