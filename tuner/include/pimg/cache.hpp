// The on-disk compile cache: $PIMG_CACHE_DIR, else $XDG_CACHE_HOME/pimg-tune, else
// ~/.cache/pimg-tune. Entries are written to a temporary name and renamed, so readers never see
// half a file.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace pimg {

std::string cache_dir(const std::string& sub);  // created if missing
std::optional<std::vector<unsigned char>> cache_read(const std::string& sub, const std::string& key);
// True when the cache holds a non-empty entry under `key`.
bool cache_exists(const std::string& sub, const std::string& key);
void cache_write(const std::string& sub, const std::string& key, const std::vector<unsigned char>& bytes);
std::string cache_path(const std::string& sub, const std::string& key);

}  // namespace pimg
