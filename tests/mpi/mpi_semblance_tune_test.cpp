// End to end: pimg-tune tunes the shipped spaces/semblance-mpi.yaml (every mpi_grid configuration
// under mpirun, oversubscribed on a small machine) into a database; every stored timing comes from
// a run validated at the generating point, with its communication time beside it. A scheme outside
// its choices is a bad-input error: exit code 2, one line naming file, line, column and field, and no
// database. (Here rather than in tests/data/spaces/bad/: only a build with MPI knows backend mpi.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "e2e/e2e_util.hpp"
#include "mpi/mpi_util.hpp"

namespace fs = std::filesystem;

namespace {

TEST(MpiSemblanceTune, EveryConfigurationStoredOkAndValidated) {
  const fs::path dir = e2e::temp_dir_with_cache("mpi-semblance-e2e");
  const std::string db = (dir / "mpi.db").string();
  const e2e::Ran ran =
      e2e::run("semblance --quiet --space " + std::string(PIMG_SOURCE_DIR) + "/spaces/semblance-mpi.yaml --db " + db);
  ASSERT_EQ(ran.code, 0) << ran.out;
  // The family's rule passed at the point the synthetic reflection follows; every run reduced the
  // best point (communication above 0 even at one rank).
  std::map<std::string, int> ok = pimg::mpi_test::check_tuned(db, "mpi_grid", 5, [](const pimg::ResultRow& r) {
    EXPECT_NE(r.result.validation.find("best (3,1,2,4,5)"), std::string::npos)
        << r.config.canonical() << ": " << r.result.validation;
  });
  EXPECT_EQ(ok["mpi_grid"], 3 * 2 * 3);  // ranks x threads x schemes
  EXPECT_EQ(ok["serial"], 1);
  fs::remove_all(dir);
}

TEST(MpiSemblanceTune, SchemeOutsideItsChoicesExitsTwo) {
  const fs::path dir = e2e::temp_dir("mpi-semblance-bad");
  const std::string space = std::string(PIMG_TEST_DATA) + "/mpi/semblance-bad-scheme.yaml";
  const std::string db = (dir / "mpi.db").string();
  const e2e::Ran r = e2e::run("semblance --quiet --space " + space + " --db " + db);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find(space +
                       ":7:31: variants.mpi_grid.scheme: 'diagonal' is not a choice (choices: blocks, cyclic, best)"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(db));
  fs::remove_all(dir);
}

}  // namespace
