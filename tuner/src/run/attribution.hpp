// Attribution of a failure before it is stored: a fault of the machine (env_error, retried by
// resume) or of the configuration (compile_error, crash, ... kept). Used by the runners.
#pragma once
#include <optional>
#include <string>

#include "pimg/result.hpp"

namespace pimg {

// The cause when `r` failed for a reason outside its configuration; nullopt otherwise.
std::optional<std::string> environment_cause(const EvalResult& r);

// `r` as an env_error whose log starts with the cause.
EvalResult as_environment_fault(EvalResult r, const std::string& cause);

}  // namespace pimg
