// Shared by the unit tests of what reads users' files: the message a refusal gives.
#pragma once
#include <string>

#include "pimg/errors.hpp"

namespace pimg::testcommon {

// The message of the UsageError `read` throws; `none` when it throws none.
template <class Read>
std::string usage_error_of(Read read, const std::string& none) {
  try {
    read();
  } catch (const UsageError& e) {
    return e.what();
  }
  return none;
}

}  // namespace pimg::testcommon
