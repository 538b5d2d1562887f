// End to end: pimg-tune tunes the shipped spaces/conv-mpi.yaml (every mpi_rows configuration under
// mpirun, oversubscribed on a small machine) into a database; every row is ok and exact, the
// communication times are stored per run, and a second run resumes without measuring again.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "e2e/e2e_util.hpp"
#include "mpi/mpi_util.hpp"
#include "pimg/store.hpp"

namespace fs = std::filesystem;

namespace {

class MpiTune : public e2e::DirSuite<MpiTune> {
 protected:
  static void SetUpTestSuite() {
    make_dir("mpi-e2e");
    own_cache();
    ran_ = e2e::run("conv --quiet --space " + space() + " --db " + db());
  }
  static std::string db() { return path("mpi.db"); }
  static std::string space() { return std::string(PIMG_SOURCE_DIR) + "/spaces/conv-mpi.yaml"; }
  static inline e2e::Ran ran_;
};

TEST_F(MpiTune, EveryConfigurationStoredOkAndExact) {
  ASSERT_EQ(ran_.code, 0) << ran_.out;
  // Even one rank scatters to and gathers from itself: communication above 0 in every run.
  std::map<std::string, int> ok = pimg::mpi_test::check_tuned(db(), "mpi_rows", 5, [](const pimg::ResultRow& r) {
    EXPECT_EQ(r.result.validation, "exact") << r.variant.name;
  });
  EXPECT_EQ(ok["mpi_rows"], 3 * 2 * 3 * 2);  // ranks x threads x schemes x problems
  EXPECT_EQ(ok["serial"], 2);
}

TEST_F(MpiTune, DevicesListsTheHostAndASecondRunResumes) {
  ASSERT_EQ(ran_.code, 0) << ran_.out;
  const e2e::Ran devices = e2e::run("devices");
  EXPECT_EQ(devices.code, 0) << devices.out;
  EXPECT_NE(devices.out.find("mpi:"), std::string::npos) << devices.out;
  const auto before = e2e::query(db(), "SELECT count(*) FROM evaluations");
  const e2e::Ran again = e2e::run("conv --quiet --space " + space() + " --db " + db());
  EXPECT_EQ(again.code, 0) << again.out;
  EXPECT_EQ(e2e::query(db(), "SELECT count(*) FROM evaluations"), before);
}

}  // namespace
