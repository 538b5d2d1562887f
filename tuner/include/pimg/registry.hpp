// Name-keyed registries of families, variants, backends and strategies, filled by explicit
// register_*() calls in tuner/app/registry_builtin.cpp (no self-registering statics: the linker drops them).
#pragma once
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pimg/backend.hpp"
#include "pimg/family.hpp"
#include "pimg/observer.hpp"
#include "pimg/strategy.hpp"
#include "pimg/variant.hpp"

namespace pimg {

class Registry {
 public:
  void add_family(std::unique_ptr<Family> f);
  void add_variant(std::unique_ptr<Variant> v);
  void add_backend(std::unique_ptr<Backend> b);
  void add_strategy(StrategyInfo s);
  // The strategy of a search that names none (a space file's strategy with options but no name, the
  // name `default`); `exhaustive` stays the strategy of a space that asks for no search at all.
  void set_default_strategy(std::string name);
  const std::string& default_strategy() const { return default_strategy_; }
  void add_observer(ObserverInfo o);
  // Native functions the host backend runs (serial reference, library baselines).
  void add_host_function(const std::string& name, HostKernelFn fn);
  // The language of the kernel sources `backend` compiles ("OpenCL", "CUDA", "C++" with OpenMP), declared for a
  // backend built or not: a user's kernel (a T1 file's language, a space's user variant) finds its backends by
  // it, so that none of them names a backend.
  void add_source_language(std::string backend, std::string language) {
    source_languages_.emplace_back(std::move(backend), std::move(language));
  }
  // The backends compiling sources in `language` (every backend that compiles sources when it is empty), by name
  // in the order they were declared.
  std::vector<std::string> backends_compiling(const std::string& language = "") const {
    std::vector<std::string> out;
    for (const auto& [backend, lang] : source_languages_)
      if (language.empty() || lang == language) out.push_back(backend);
    return out;
  }

  const Family* family(const std::string& name) const;      // null if unknown
  const Variant* variant(const std::string& family, const std::string& name) const;
  const Backend* backend(const std::string& name) const;
  const StrategyInfo* strategy(const std::string& name) const;  // `default`: the default strategy
  const ObserverInfo* observer(const std::string& name) const;  // null if unknown
  HostKernelFn host_function(const std::string& name) const;  // null if unknown
  std::vector<std::string> host_functions() const;             // their names

  std::vector<const Family*> families() const;
  std::vector<const Variant*> variants(const std::string& family) const;
  std::vector<const Backend*> backends() const;
  std::vector<const StrategyInfo*> strategies() const;
  std::vector<const ObserverInfo*> observers() const;
  // One of each registered observer that applies to `device` (ObserverInfo::make not null), for the
  // evaluations of one device session.
  std::vector<std::unique_ptr<Observer>> make_observers(const DeviceInfo& device) const;

  // The registry with everything this build was configured with.
  static const Registry& builtin();
  // A fresh registry filled like builtin(), for a program that adds user kernels to it.
  static std::unique_ptr<Registry> make_builtin();

 private:
  std::map<std::string, std::unique_ptr<Family>> families_;
  std::map<std::string, std::unique_ptr<Variant>> variants_;  // key "family/name"
  std::map<std::string, std::unique_ptr<Backend>> backends_;
  std::map<std::string, StrategyInfo> strategies_;
  std::map<std::string, ObserverInfo> observers_;
  std::map<std::string, HostKernelFn> host_functions_;
  std::vector<std::pair<std::string, std::string>> source_languages_;  // backend, language
  std::string default_strategy_ = "exhaustive";
};

// Kernel sources compiled into the binary (kernels/**), by path relative to kernels/, with
// `#include "path"` lines naming other embedded files expanded in place; hash covers the result.
const KernelSource* kernel_source(const std::string& path);
std::vector<std::string> kernel_source_paths();
// A kernel source read at run time (a user kernel), found by kernel_source(path) from then on; its
// hash covers its text, so the stored identity changes with the file. Throws if `path` is taken by
// another text.
const KernelSource* add_kernel_source(const std::string& path, std::string text);

}  // namespace pimg
