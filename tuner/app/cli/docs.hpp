// Shell completion and the man page, generated from the same CLI11 definitions that parse the
// command line, so neither can drift from what the program accepts.
#pragma once
#include <CLI/CLI.hpp>

#include <map>
#include <string>
#include <vector>

namespace pimg::cli {

// What a completion offers as an option's value beyond the parser's own choices (CLI::IsMember): the names the
// registry knows, keyed by the option's name without dashes ("family", "device", "backend", "strategy"); the
// positional `family` of the store's commands takes the "family" list too.
using CompletionValues = std::map<std::string, std::vector<std::string>>;

// Completion scripts for bash, zsh and fish: every subcommand, its options (flags apart from options that take a
// value) and the values each value takes where they are known.
std::string bash_completion(const CLI::App& app, const CompletionValues& values = {});
std::string zsh_completion(const CLI::App& app, const CompletionValues& values = {});
std::string fish_completion(const CLI::App& app, const CompletionValues& values = {});
std::string man_page(const CLI::App& app, const std::string& version);

// The help of every command opens with one example, on the line under its description (set on the app before its
// subcommands are added, which take their parent's formatter; the examples may come later).
class ExampleFormatter : public CLI::Formatter {
 public:
  void set_example(const std::string& command, const std::string& example) { examples_[command] = example; }
  std::string make_description(const CLI::App* app) const override;

 private:
  std::map<std::string, std::string> examples_;
};

}  // namespace pimg::cli
