// What this build can tune: backends and devices, families with their attributes, variants with
// their parameters, strategies with their options; as text for people and JSON for scripts.
#include "cli/info.hpp"

#include <fmt/format.h>

#include "pimg/errors.hpp"
#include "pimg/suggest.hpp"

namespace pimg::cli {
namespace {

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::vector<const Family*> chosen(const Registry& reg, const std::string& family) {
  if (family.empty()) return reg.families();
  if (const Family* f = reg.family(family)) return {f};
  std::vector<std::string> names;
  for (const Family* f : reg.families()) names.push_back(f->name());
  throw UsageError(fmt::format("list: unknown family '{}'{} (families: {})", family, did_you_mean(family, names),
                               join(names, ", ")));
}

std::string json_value(const Value& v) {
  if (const auto* n = std::get_if<std::int64_t>(&v)) return std::to_string(*n);
  return json_quote(std::get<std::string>(v));
}

std::string json_list(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ",") + json_quote(s);
  return "[" + out + "]";
}

}  // namespace

std::string json_quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\')
      out += std::string("\\") + c;
    else if (u < 0x20)
      out += fmt::format("\\u{:04x}", u);
    else
      out += c;
  }
  return out + "\"";
}

std::string devices_text(const Registry& reg) {
  std::string out;
  for (const Backend* b : reg.backends()) {
    BackendStatus st = b->status();
    if (!st.available) {
      out += fmt::format("{}: unavailable: {}\n", b->name(), st.reason);
      continue;
    }
    for (const auto& d : b->devices())
      out += fmt::format("{}  {}  [{}] driver {}  {} compute units  {:.1f} GiB  max work-group {}\n", d.id(), d.name,
                         d.platform, d.driver, d.compute_units, static_cast<double>(d.global_mem_bytes) / (1u << 30),
                         d.max_work_group_size);
  }
  return out;
}

std::string devices_json(const Registry& reg) {
  std::string out = "[";
  for (const Backend* b : reg.backends()) {
    BackendStatus st = b->status();
    std::string devices;
    if (st.available)
      for (const auto& d : b->devices())
        devices += fmt::format(
            "{}\n    {{\"id\":{},\"index\":{},\"name\":{},\"vendor\":{},\"platform\":{},\"driver\":{},\"compute_units\":{},"
            "\"global_mem_bytes\":{},\"local_mem_bytes\":{},\"max_work_group_size\":{}}}",
            devices.empty() ? "" : ",", json_quote(d.id()), d.index, json_quote(d.name), json_quote(d.vendor),
            json_quote(d.platform), json_quote(d.driver), d.compute_units, d.global_mem_bytes, d.local_mem_bytes,
            d.max_work_group_size);
    out += fmt::format("{}\n  {{\"backend\":{},\"available\":{},\"reason\":{},\"devices\":[{}{}]}}", out.size() > 1 ? "," : "",
                       json_quote(b->name()), st.available ? "true" : "false", json_quote(st.reason), devices,
                       devices.empty() ? "" : "\n  ");
  }
  return out + "\n]\n";
}

std::string strategies_help(const Registry& reg) {
  std::string out = fmt::format(
      "strategies (a search that names none, or `default`: {}; a space without a strategy: exhaustive):\n",
      reg.default_strategy());
  for (const StrategyInfo* s : reg.strategies()) {
    out += fmt::format("  {:<12} {}\n", s->name, s->help);
    for (const auto& o : s->options) {
      const char* type = o.type == OptionDecl::Type::Int ? "integer" : o.type == OptionDecl::Type::Real ? "number" : "text";
      std::string range;
      if (o.min || o.max)
        range = fmt::format(" [{}..{}]", o.min ? fmt::format("{:g}", *o.min) : "", o.max ? fmt::format("{:g}", *o.max) : "");
      out += fmt::format("    {:<10} {:<7} default {:<6} {}{}\n", o.name, type, o.default_value, o.help, range);
    }
  }
  return out;
}

std::string list_text(const Registry& reg, const std::string& family) {
  std::string out;
  for (const Family* f : chosen(reg, family)) {
    out += fmt::format("family {} (unit {})\n  problem attributes:\n", f->name(), f->unit());
    for (const auto& a : f->attributes())
      out += fmt::format("    {:<10} {:<34} default {:<10} {}\n", a.name, a.allowed.empty() ? "-" : join(a.allowed, "|"),
                         a.default_value.empty() ? "-" : a.default_value, a.help);
    out += "  variants:\n";
    for (const Variant* v : reg.variants(f->name())) {
      out += fmt::format("    {:<26} {:<7} {:<28} {}\n", v->name(), v->backend(), source_label(*v), v->help());
      for (const auto& p : v->parameters())
        out += fmt::format("      {:<12} {:<26} default {:<8} {}\n", p.name, param_values_text(p),
                           to_string(p.default_value), p.help);
    }
  }
  return out + (family.empty() ? strategies_help(reg) : "");
}

std::string list_json(const Registry& reg, const std::string& family) {
  std::string out = "{\"families\":[";
  bool first_family = true;
  for (const Family* f : chosen(reg, family)) {
    std::string attrs, variants;
    for (const auto& a : f->attributes())
      attrs += fmt::format("{}{{\"name\":{},\"allowed\":{},\"default\":{},\"help\":{}}}", attrs.empty() ? "" : ",",
                           json_quote(a.name), json_list(a.allowed), json_quote(a.default_value), json_quote(a.help));
    for (const Variant* v : reg.variants(f->name())) {
      std::string params;
      for (const auto& p : v->parameters())
        params += fmt::format("{}{{\"name\":{},\"type\":{},\"choices\":{},\"values\":{},\"default\":{},\"help\":{}}}",
                              params.empty() ? "" : ",", json_quote(p.name), p.is_text ? "\"text\"" : "\"integer\"",
                              json_list(p.choices), json_quote(param_values_text(p)), json_value(p.default_value),
                              json_quote(p.help));
      variants += fmt::format("{}\n    {{\"name\":{},\"backend\":{},\"source\":{},\"help\":{},\"parameters\":[{}]}}",
                              variants.empty() ? "" : ",", json_quote(v->name()), json_quote(v->backend()),
                              json_quote(source_label(*v)), json_quote(v->help()), params);
    }
    out += fmt::format("{}\n  {{\"name\":{},\"unit\":{},\"attributes\":[{}],\"variants\":[{}\n  ]}}", first_family ? "" : ",",
                       json_quote(f->name()), json_quote(f->unit()), attrs, variants);
    first_family = false;
  }
  out += "\n],\"strategies\":[";
  bool first = true;
  for (const StrategyInfo* s : reg.strategies()) {
    std::string opts;
    for (const auto& o : s->options)
      opts += fmt::format("{}{{\"name\":{},\"default\":{},\"help\":{}}}", opts.empty() ? "" : ",", json_quote(o.name),
                          json_quote(o.default_value), json_quote(o.help));
    out += fmt::format("{}\n  {{\"name\":{},\"help\":{},\"options\":[{}]}}", first ? "" : ",", json_quote(s->name),
                       json_quote(s->help), opts);
    first = false;
  }
  return out + "\n]}\n";
}

std::string run_json(const std::string& db, const TuneSummary& s, int exit_code, const std::string& decisions) {
  std::string trimmed = decisions;
  while (!trimmed.empty() && (trimmed.back() == '\n' || trimmed.back() == ' ')) trimmed.pop_back();
  return fmt::format("{{\"database\":{},\"run\":{},\"measured\":{},\"ok\":{},\"failed\":{},\"already_stored\":{},"
                     "\"exit_code\":{},\"decisions\":{}}}\n",
                     json_quote(db), s.run_id, s.measured, s.ok, s.failed, s.skipped, exit_code,
                     trimmed.empty() ? "[]" : trimmed);
}

}  // namespace pimg::cli
