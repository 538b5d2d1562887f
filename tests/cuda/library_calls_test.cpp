// The CUDA backend's table of native calls, generated from the families' files
// (variants/<family>/cuda/native/<call>.cpp): every CUDA variant's native call has its row and every row is
// some variant's call, so a library baseline's file and its variant cannot part. Needs no GPU.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "cuda_library.hpp"
#include "pimg/registry.hpp"

namespace pimg {
namespace {

TEST(CudaLibraryCalls, TableHasARowForEveryCudaVariantsCallAndNoOther) {
  std::set<std::string> named;
  for (const Family* f : Registry::builtin().families())
    for (const Variant* v : Registry::builtin().variants(f->name()))
      if (const auto call = v->native(); call && v->backend() == "cuda") named.insert(call->name);
  std::set<std::string> rows;
  for (const auto& [name, factory] : cuda::library_calls()) {
    EXPECT_NE(factory, nullptr) << name;
    rows.insert(name);
  }
  EXPECT_EQ(rows, named);
  // One baseline of each library at least: the table is not empty by accident of a glob.
  EXPECT_TRUE(rows.count("npp_filter_border") && rows.count("cub_histogram_even")) << rows.size() << " rows";
}

}  // namespace
}  // namespace pimg
