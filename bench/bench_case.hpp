// One benchmark case of a family on the CPU: plan, compile and upload once through the registry's
// backends, then time device launches (manual time = the backend's kernel time) and validate the
// output against the family's reference after the timed loop. Used by the families' CPU benches
// (OpenMP configurations against OpenCV in the same run).
#pragma once
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>

#include "pimg/registry.hpp"

namespace pimg::bench {

inline Device& device(const std::string& backend) {
  static std::map<std::string, std::unique_ptr<Device>> open;
  auto& d = open[backend];
  if (!d) {
    const Backend* b = Registry::builtin().backend(backend);
    d = b->open(b->devices().at(0));
  }
  return *d;
}

inline void run_case(benchmark::State& state, const std::string& family, const std::string& variant,
                     std::initializer_list<std::pair<const char*, Value>> knobs, int channels) {
  const Registry& reg = Registry::builtin();
  const Variant* v = reg.variant(family, variant);
  if (!v) {
    state.SkipWithError((variant + " is not registered in this build").c_str());
    return;
  }
  const Family& f = *reg.family(family);
  const int size = static_cast<int>(state.range(0));
  const Problem p = f.make_problem(size, size, channels, {});
  const Workload w = f.make_workload(p);
  Config c;
  for (const auto& [k, value] : knobs) c.set(k, value);
  Device& dev = device(v->backend());
  const LaunchPlan plan = v->plan(p, w, c, dev.info());
  KernelSource builtin{v->source(), "", v->source()};
  const KernelSource* src = v->source().rfind("builtin:", 0) == 0 ? &builtin : kernel_source(v->source());
  CompileResult compiled = dev.compile(*src, plan);
  if (!compiled.program) {
    state.SkipWithError(compiled.log.c_str());
    return;
  }
  auto in = dev.alloc(w.input("in").bytes.size());
  dev.upload(*in, w.input("in").bytes);
  auto out = dev.alloc(w.output_bytes);
  const std::map<std::string, DeviceBuffer*> buffers{{"in", in.get()}, {"out", out.get()}};
  for (auto _ : state) {
    const LaunchResult r = dev.launch(*compiled.program, plan, buffers);
    if (!r.ok) {
      state.SkipWithError(r.error.c_str());
      return;
    }
    state.SetIterationTime(r.kernel_ms / 1e3);
  }
  std::vector<std::uint8_t> got(w.output_bytes);
  dev.download(*out, got);
  if (!f.compare(p, f.reference(p, w), got).ok) state.SkipWithError("output differs from the reference");
}

}  // namespace pimg::bench
