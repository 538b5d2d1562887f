// How close each way of copying gets to a device's memory bandwidth (issue 39, "the real ceiling"): for every
// device of every available backend that has a copy kernel, at each working-set size, every way the tuner's
// ceiling tries (pimg::measure_copies: the API's device-to-device copy and each plan of the backend's copy kernel,
// e.g. 16-byte vectors per thread, whole rows, the bulk-copy engine) with its bandwidth (bytes read plus written per
// second, the best of the runs, cold and launch hidden as the tuner measures), its share of the fastest, and of
// the nominal bandwidth where PIMG_NOMINAL_GBS gives it (a datasheet's number: the H200's 4800). The ceiling the
// tuner stores is the fastest line of each size. Then every way of the read ceiling (kind "read": each plan of the
// backend's read kernel, GB/s of the bytes read once) at the same sizes, where the backend has a read kernel.
// Usage: pimg_ceiling_bench [MiB ...] (default 64 256 1024); PIMG_BACKEND=NAME: that backend only; PIMG_REPEATS (30).
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "pimg/evaluator.hpp"
#include "pimg/registry.hpp"

int main(int argc, char** argv) {
  std::vector<std::size_t> mib;
  for (int i = 1; i < argc; ++i) mib.push_back(std::strtoul(argv[i], nullptr, 10));
  if (mib.empty()) mib = {64, 256, 1024};
  const char* only = std::getenv("PIMG_BACKEND");
  const double nominal = std::getenv("PIMG_NOMINAL_GBS") ? std::atof(std::getenv("PIMG_NOMINAL_GBS")) : 0;
  const int repeats = std::getenv("PIMG_REPEATS") ? std::atoi(std::getenv("PIMG_REPEATS")) : 30;
  fmt::print("backend,device,kind,MiB,way,GB/s,share_of_fastest,share_of_nominal\n");
  int devices = 0;
  for (const pimg::Backend* backend : pimg::Registry::builtin().backends()) {
    if ((only && backend->name() != only) || !backend->status().available) continue;
    for (const pimg::DeviceInfo& info : backend->devices()) {
      if (!backend->copy_kernel(std::size_t{64} << 20)) continue;
      ++devices;
      auto device = backend->open(info);
      for (const pimg::CeilingKind kind : {pimg::CeilingKind::copy, pimg::CeilingKind::read})
        for (std::size_t m : mib) {
          std::vector<pimg::CopyWay> ways = pimg::measure_copies(*backend, *device, m << 20, repeats, {}, kind);
          std::sort(ways.begin(), ways.end(), [](const pimg::CopyWay& a, const pimg::CopyWay& b) { return a.gbs > b.gbs; });
          for (const pimg::CopyWay& w : ways)
            fmt::print("{},{},{},{},{},{:.1f},{:.3f},{}\n", backend->name(), info.name, pimg::ceiling_kind_name(kind), m,
                       w.how, w.gbs, w.gbs / ways[0].gbs, nominal > 0 ? fmt::format("{:.3f}", w.gbs / nominal) : "");
        }
    }
  }
  if (devices == 0) {
    fmt::print(stderr, "pimg_ceiling_bench: no device with a copy kernel{}\n", only ? std::string(" on ") + only : "");
    return 1;
  }
  return 0;
}
