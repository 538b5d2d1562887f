// Files the commands write: an output path checked before any work (check_output_path), and a file written beside
// and renamed into place (write_file).
#pragma once
#include <filesystem>
#include <string>

namespace pimg::cli {

// An output file named by a flag, checked before any tuning: its folder exists (or can be made
// under a writable one), it is writable, and its name fits NAME_MAX. Nothing is created here.
void check_output_path(const std::string& flag, const std::string& path);

// Written beside and renamed into place: a reader never sees half a file, and a symbolic link at `p` is
// replaced, never written through. Its folder is made where missing (check_output_path said it can be).
void write_file(const std::filesystem::path& p, const std::string& text);

}  // namespace pimg::cli
