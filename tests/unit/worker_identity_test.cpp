// The MPI workers moved from kernels/<family>/ to their families' variants/<family>/mpi/native/ (issue 37). A
// variant's stored identity (the variants row's source_hash, part of every configuration's identity) is the hash
// of its source's text with the embedded files it includes expanded in place; the path is only the key that finds
// the text. The expected values are those of kernels/conv/conv_mpi.cpp and kernels/semblance/semblance_mpi.cpp at
// 02c91b8, before the move, so the stores measured before it keep their rows. Editing a worker (or a rule it
// expands) changes its hash on purpose: update the value here with the reason.
#include <gtest/gtest.h>

#include "pimg/executor.hpp"
#include "pimg/registry.hpp"

namespace pimg {
namespace {

TEST(WorkerIdentity, MovedWorkersKeepTheSourceHashOfTheirStoredRows) {
  const Registry& reg = Registry::builtin();
  EXPECT_EQ(variant_source_hash(*reg.variant("conv", "mpi_rows")), "7399ee644999ea19ade9f1efcd58c66d");
  EXPECT_EQ(variant_source_hash(*reg.variant("semblance", "mpi_grid")), "75916479be50e75900d3d62a6bb99d2e");
  EXPECT_EQ(variant_source_hash(*reg.variant("semblance", "mpi_cuda_grid")), "3ac2736718a8e001de749f121c03bffe");
}

TEST(WorkerIdentity, AnIncludedWorkerHeaderIsExpandedNotLeftAsAnInclude) {
  // semblance_mpi.cpp's parts header moved with it and is expanded from its new path: the text holds its code
  // and no #include line naming it (left as a line, the header's edits would no longer reach the identity).
  const KernelSource* s = kernel_source("semblance/mpi/native/semblance_mpi.cpp");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->text.find("semblance_mpi_parts.h\""), std::string::npos);
  EXPECT_NE(s->text.find("// What the semblance MPI workers share"), std::string::npos);
}

}  // namespace
}  // namespace pimg
