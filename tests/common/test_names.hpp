// Shared by the tests that run once per file of a corpus: each instance named after its file.
#pragma once
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <string>

namespace pimg::testcommon {

// The file's stem, every character GoogleTest does not take in a name (all but letters and digits) as '_'.
inline std::string stem_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = std::filesystem::path(info.param).stem().string();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

}  // namespace pimg::testcommon
