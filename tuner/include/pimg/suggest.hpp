// "Did you mean": the closest known name to a misspelled one, for error messages about families,
// variants, parameters, commands and devices.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace pimg {

// The candidate nearest to `word` by edit distance (case-insensitive), when it is close enough to be
// a likely typo: at most a third of the word's length, and at least 1.
std::optional<std::string> closest_name(const std::string& word, const std::vector<std::string>& candidates);

// " (did you mean 'x'?)", or "" when nothing is close.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace pimg
