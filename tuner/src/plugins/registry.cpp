// Name-keyed registries. Registering a duplicate name is a programming error.
#include "pimg/registry.hpp"

#include "pimg/errors.hpp"

namespace pimg {

void Registry::add_family(std::unique_ptr<Family> f) {
  std::string name = f->name();
  PIMG_CHECK(!families_.count(name), "family registered twice: " + name);
  families_[name] = std::move(f);
}

void Registry::add_variant(std::unique_ptr<Variant> v) {
  std::string key = v->family() + "/" + v->name();
  PIMG_CHECK(!variants_.count(key), "variant registered twice: " + key);
  variants_[key] = std::move(v);
}

void Registry::add_backend(std::unique_ptr<Backend> b) {
  std::string name = b->name();
  PIMG_CHECK(!backends_.count(name), "backend registered twice: " + name);
  backends_[name] = std::move(b);
}

void Registry::add_strategy(StrategyInfo s) {
  PIMG_CHECK(!strategies_.count(s.name), "strategy registered twice: " + s.name);
  std::string name = s.name;
  strategies_[name] = std::move(s);
}

void Registry::add_observer(ObserverInfo o) {
  PIMG_CHECK(!observers_.count(o.name), "observer registered twice: " + o.name);
  std::string name = o.name;
  observers_[name] = std::move(o);
}

void Registry::add_host_function(const std::string& name, HostKernelFn fn) {
  PIMG_CHECK(!host_functions_.count(name), "host function registered twice: " + name);
  host_functions_[name] = fn;
}

const Family* Registry::family(const std::string& name) const {
  auto it = families_.find(name);
  return it == families_.end() ? nullptr : it->second.get();
}

const Variant* Registry::variant(const std::string& family, const std::string& name) const {
  auto it = variants_.find(family + "/" + name);
  return it == variants_.end() ? nullptr : it->second.get();
}

const Backend* Registry::backend(const std::string& name) const {
  auto it = backends_.find(name);
  return it == backends_.end() ? nullptr : it->second.get();
}

void Registry::set_default_strategy(std::string name) {
  PIMG_CHECK(strategies_.count(name), "default strategy not registered: " + name);
  default_strategy_ = std::move(name);
}

const StrategyInfo* Registry::strategy(const std::string& name) const {
  auto it = strategies_.find(name == "default" ? default_strategy_ : name);
  return it == strategies_.end() ? nullptr : &it->second;
}

const ObserverInfo* Registry::observer(const std::string& name) const {
  auto it = observers_.find(name);
  return it == observers_.end() ? nullptr : &it->second;
}

std::vector<std::string> Registry::host_functions() const {
  std::vector<std::string> out;
  for (const auto& [name, _] : host_functions_) out.push_back(name);
  return out;
}

HostKernelFn Registry::host_function(const std::string& name) const {
  auto it = host_functions_.find(name);
  return it == host_functions_.end() ? nullptr : it->second;
}

std::vector<const Family*> Registry::families() const {
  std::vector<const Family*> out;
  for (const auto& [_, f] : families_) out.push_back(f.get());
  return out;
}

std::vector<const Variant*> Registry::variants(const std::string& family) const {
  std::vector<const Variant*> out;
  for (const auto& [_, v] : variants_)
    if (v->family() == family) out.push_back(v.get());
  return out;
}

std::vector<const Backend*> Registry::backends() const {
  std::vector<const Backend*> out;
  for (const auto& [_, b] : backends_) out.push_back(b.get());
  return out;
}

std::vector<const StrategyInfo*> Registry::strategies() const {
  std::vector<const StrategyInfo*> out;
  for (const auto& [_, s] : strategies_) out.push_back(&s);
  return out;
}

std::vector<const ObserverInfo*> Registry::observers() const {
  std::vector<const ObserverInfo*> out;
  for (const auto& [_, o] : observers_) out.push_back(&o);
  return out;
}

std::vector<std::unique_ptr<Observer>> Registry::make_observers(const DeviceInfo& device) const {
  std::vector<std::unique_ptr<Observer>> out;
  for (const auto& [_, o] : observers_) {
    std::string why;
    if (auto made = o.make(device, why)) out.push_back(std::move(made));
  }
  return out;
}

}  // namespace pimg
