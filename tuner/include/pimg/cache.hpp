// The on-disk compile cache: $PIMG_CACHE_DIR, else $XDG_CACHE_HOME/pimg-tune, else
// ~/.cache/pimg-tune. Entries are written to a temporary name and renamed, so readers never see
// half a file, and end in a checksum of what they hold, so that an entry damaged later (a truncated
// file, a flipped bit) is discarded and rebuilt, said on stderr, and never taken for the kernel's fault.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace pimg {

std::string cache_dir(const std::string& sub);  // created if missing
// The entry's bytes (without the checksum), or nothing when there is none or it is damaged (then removed).
std::optional<std::vector<unsigned char>> cache_read(const std::string& sub, const std::string& key);
// True when the cache holds an intact, non-empty entry under `key` (damaged ones are removed).
bool cache_exists(const std::string& sub, const std::string& key);
void cache_write(const std::string& sub, const std::string& key, const std::vector<unsigned char>& bytes);
// The entry's file, for a consumer that opens it itself (dlopen: the checksum trails the library's bytes, where
// the loader does not look); check it with cache_exists first.
std::string cache_path(const std::string& sub, const std::string& key);

}  // namespace pimg
