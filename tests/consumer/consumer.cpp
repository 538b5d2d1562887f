// A C++17 program of another project: prints the best stored configuration for a device and size.
// Usage: consumer DB FAMILY DEVICE WxH
#include <pimg/lookup.hpp>

#include <cstdio>
#include <exception>
#include <string>

int main(int argc, char** argv) {
  if (argc != 5) return 2;
  try {
    std::string why_not;
    const std::optional<pimg::Choice> c = pimg::best_config({argv[1], argv[2], argv[3], argv[4]}, why_not);
    if (!c) {
      std::printf("no stored configuration: %s\n", why_not.c_str());
      return 1;
    }
    std::printf("%s %s on %s (%s): %s, %.5f ms\n", c->variant.c_str(), c->config_text.c_str(), c->device.c_str(),
                c->match.c_str(), c->how.c_str(), c->median_ms);
    return 0;
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
}
