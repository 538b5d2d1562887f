// The distributed runner's layout and the ranks other than 0 (distributed_local.hpp).
#include <fmt/format.h>

#include <map>
#include <stdexcept>
#include <string>

#include "distributed/distributed_local.hpp"
#include "pimg/evaluator.hpp"
#include "stages/cold_jobs.hpp"
#include "stages/confirm_jobs.hpp"
#include "workers/wire.hpp"

namespace pimg {
namespace {

using wire::Message;

// Selected devices the store cannot tell apart (backend, name, driver, platform) are one kind; the
// ranks of a host share out the devices of each kind.
std::string kind_of(const DeviceInfo& d) { return d.backend + "|" + d.name + "|" + d.driver + "|" + d.platform; }

// What a stage says on a rank, kept for rank 0 to say: only rank 0's main thread speaks to the run's observer.
struct Said : RunObserver {
  void on_message(const std::string& line) override { lines.push_back(line); }
  std::vector<std::string> lines;
};

}  // namespace

Layout layout_of(const Tuner::Impl& m) {
  Layout l;
  for (const auto& d : m.devices) {
    std::vector<std::size_t> same;
    for (std::size_t j = 0; j < m.devices.size(); ++j)
      if (kind_of(m.devices[j].info) == kind_of(d.info)) same.push_back(j);
    l.members.push_back(same);
  }
  std::map<std::string, bool> seen;
  for (std::size_t i = 0; i < m.tasks.size(); ++i) {
    const Task& t = m.tasks[i];
    const std::string key = fmt::format("{}/{}/{}/{}", kind_of(m.devices[t.device].info),
                                        m.space.problems[t.problem].canonical(), t.variant->name(), t.space.size());
    if (seen[key]) continue;
    seen[key] = true;
    l.tasks.push_back(i);
    l.fingerprint += key + "\n";
  }
  l.fingerprint = hash128(l.fingerprint);
  return l;
}

std::optional<std::size_t> my_device(const Layout& l, std::size_t d, const DistributedOptions& o) {
  const auto& kind = l.members[d];
  const auto k = static_cast<std::size_t>(o.local_rank);
  if (k < kind.size()) return kind[k];
  if (o.share_devices) return kind[k % kind.size()];
  return std::nullopt;
}

Message job_here(const Tuner::Impl& m, const Layout& l, Sessions& sessions, const DistributedOptions& o,
                 const Message& msg) {
  const bool cold = msg.at(0) == "cold";
  const std::size_t searched = cold ? cold_job_device(msg, 2) : confirm_job_device(msg, 2);
  const auto device = searched < m.devices.size() ? my_device(l, searched, o) : std::nullopt;
  if (!device) throw std::runtime_error("no device of this kind on this rank");
  if (cold) {
    Message reply = {"colded", msg.at(1)};
    for (auto& f : wire::encode_result(cold_job_run(m, *device, msg, 2))) reply.push_back(std::move(f));
    return reply;
  }
  Said said;
  Message reply = {"confirmed", msg.at(1)};
  for (auto& f : confirm_problems(m, msg, 2, *device, sessions.slot(*device), said)) reply.push_back(std::move(f));
  reply.push_back(std::to_string(said.lines.size()));
  reply.insert(reply.end(), said.lines.begin(), said.lines.end());
  return reply;
}

void serve(const Tuner::Impl& m, const Layout& l, Transport& net, const DistributedOptions& o) {
  std::string serves;
  for (std::size_t i : l.tasks) serves += my_device(l, m.tasks[i].device, o) ? '1' : '0';
  net.send(0, wire::encode({"hello", l.fingerprint, hostname(), serves}));
  Sessions sessions(m);
  // The devices this rank drives are opened now, while rank 0 compiles the first programs; one that cannot be
  // opened is reported with the first job sent for it.
  for (std::size_t i : l.tasks)
    if (const auto device = my_device(l, m.tasks[i].device, o)) try {
        sessions.get(*device);
      } catch (const std::exception&) {
      }
  for (;;) {
    const Message msg = wire::decode_whole(net.receive().second);
    if (msg.at(0) == "stop") break;
    if (msg.at(0) == "confirm" || msg.at(0) == "cold") {
      try {
        net.send(0, wire::encode(job_here(m, l, sessions, o, msg)));
      } catch (const std::exception& e) {
        net.send(0, wire::encode({"error", msg.at(1), e.what()}));
      }
      continue;
    }
    if (msg.at(0) != "job" || msg.size() != 4) throw std::runtime_error("distributed runner: unexpected message " + msg[0]);
    const std::string& id = msg[1];
    try {
      const Task& t = m.tasks.at(l.tasks.at(static_cast<std::size_t>(wire::to_long(msg[2]))));
      const auto point = static_cast<std::size_t>(wire::to_long(msg[3]));
      if (point >= t.space.size()) throw std::runtime_error("configuration index out of range");
      const auto device = my_device(l, t.device, o);
      if (!device) throw std::runtime_error("no device of this kind on this rank");
      const EvalResult r = evaluate_point(m, t, sessions.get(*device), t.space.config(static_cast<PointId>(point)));
      Message reply = {"done", id};
      for (auto& f : wire::encode_result(r)) reply.push_back(std::move(f));
      net.send(0, wire::encode(reply));
    } catch (const std::exception& e) {
      net.send(0, wire::encode({"error", id, e.what()}));
    }
  }
}

}  // namespace pimg
