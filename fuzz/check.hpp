// What a fuzz target demands of the code under test. A broken demand prints itself and what the code said (the
// error's message, say) before the abort, so the CI log of a finding says which demand broke and why.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>

#define FUZZ_CHECK(expr, said)                                                                    \
  do {                                                                                            \
    if (!(expr)) {                                                                                \
      std::fprintf(stderr, "fuzz: %s:%d: broken: %s; %s\n", __FILE__, __LINE__, #expr,            \
                   std::string(said).c_str());                                                    \
      std::abort();                                                                               \
    }                                                                                             \
  } while (0)
