// pimg/lookup.hpp over pimg/best_config.hpp: the stored row translated into plain C++17 types.
#include "pimg/lookup.hpp"

#include "pimg/best_config.hpp"

namespace pimg {

std::optional<Choice> best_config(const Query& q) {
  std::string why_not;
  return best_config(q, why_not);
}

std::optional<Choice> best_config(const Query& q, std::string& why_not) {
  const auto best = best_config(q.db, q.family, q.device, q.size, q.attrs, &why_not);
  if (!best) return std::nullopt;
  Choice c;
  c.match = to_string(best->match);
  c.how = best->how;
  c.backend = best->row.device.backend;
  c.device = best->row.device.name;
  c.variant = best->row.variant.name;
  c.size = best->row.problem.size();
  for (const auto& [k, v] : best->row.config.values()) c.config[k] = to_string(v);
  c.config_text = best->row.config.brief();
  c.median_ms = best->row.result.kernel.median;
  return c;
}

}  // namespace pimg
