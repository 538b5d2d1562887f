// End to end: pimg-tune tunes the shipped spaces/semblance-mpi.yaml (every mpi_grid configuration
// under mpirun, oversubscribed on a small machine) into a database; every stored timing comes from
// a run validated at the generating point, with its communication time beside it.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "e2e/e2e_util.hpp"
#include "mpi/mpi_util.hpp"

namespace fs = std::filesystem;

namespace {

TEST(MpiSemblanceTune, EveryConfigurationStoredOkAndValidated) {
  const fs::path dir = e2e::temp_dir("mpi-semblance-e2e");
  setenv("PIMG_CACHE_DIR", (dir / "cache").c_str(), 0);
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

}  // namespace
