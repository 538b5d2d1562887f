// Shell completion and the man page, generated from the same CLI11 definitions that parse the
// command line, so neither can drift from what the program accepts.
#pragma once
#include <CLI/CLI.hpp>

#include <string>

namespace pimg::cli {

std::string bash_completion(const CLI::App& app);
std::string man_page(const CLI::App& app, const std::string& version);

}  // namespace pimg::cli
