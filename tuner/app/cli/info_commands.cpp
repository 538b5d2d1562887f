// `pimg-tune devices`, `list`, `completion` and `man` (info_commands.hpp).
#include "cli/info_commands.hpp"

#include <fmt/format.h>

#include "cli/docs.hpp"
#include "cli/info.hpp"

namespace pimg::cli {

InfoCommands::InfoCommands(CLI::App& app) {
  devices_ = app.add_subcommand("devices", "list backends and devices (and why a backend is unavailable)");
  devices_->add_flag("--json", json_, "JSON instead of text");
  list_ = app.add_subcommand("list", "list families, variants with their parameters, and strategies");
  list_->add_option("family", list_family_, "only this family");
  list_->add_flag("--json", json_, "JSON instead of text");
  completion_ = app.add_subcommand("completion", "print the shell completion script");
  completion_->add_option("shell", shell_, "shell")->capture_default_str()->check(CLI::IsMember({"bash", "zsh", "fish"}));
  man_ = app.add_subcommand("man", "print the man page (roff)");
}

int InfoCommands::run(const Registry& reg, const CLI::App& app) const {
  if (devices_->parsed()) {
    fmt::print("{}", json_ ? devices_json(reg) : devices_text(reg));
    return 0;
  }
  if (list_->parsed()) {
    fmt::print("{}", json_ ? list_json(reg, list_family_) : list_text(reg, list_family_));
    return 0;
  }
  if (completion_->parsed()) {
    CompletionValues values;
    for (const Family* f : reg.families()) values["family"].push_back(f->name());
    for (const Backend* b : reg.backends()) values["backend"].push_back(b->name());
    values["device"] = values["backend"];
    for (const StrategyInfo* st : reg.strategies()) values["strategy"].push_back(st->name);
    fmt::print("{}", shell_ == "zsh"    ? zsh_completion(app, values)
                     : shell_ == "fish" ? fish_completion(app, values)
                                        : bash_completion(app, values));
    return 0;
  }
  if (man_->parsed()) {
    fmt::print("{}", man_page(app, PIMG_VERSION));
    return 0;
  }
  return 0;
}

}  // namespace pimg::cli
