// End to end: pimg-tune tunes the shipped spaces/conv-mpi.yaml (every mpi_rows configuration under
// mpirun, oversubscribed on a small machine) into a database; every row is ok and exact, the
// communication times are stored per run, and a second run resumes without measuring again.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "e2e/e2e_util.hpp"
#include "pimg/store.hpp"

namespace fs = std::filesystem;

namespace {

class MpiTune : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = e2e::temp_dir("mpi-e2e");
    setenv("PIMG_CACHE_DIR", (dir_ / "cache").c_str(), 0);
    ran_ = e2e::run("conv --quiet --space " + space() + " --db " + db());
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static std::string db() { return (dir_ / "mpi.db").string(); }
  static std::string space() { return std::string(PIMG_SOURCE_DIR) + "/spaces/conv-mpi.yaml"; }
  static inline fs::path dir_;
  static inline e2e::Ran ran_;
};

TEST_F(MpiTune, EveryConfigurationStoredOkAndExact) {
  ASSERT_EQ(ran_.code, 0) << ran_.out;
  pimg::Store store(db(), pimg::Store::Mode::existing);
  std::map<std::string, int> ok;
  for (const auto& r : store.rows_with_samples()) {
    EXPECT_EQ(pimg::to_string(r.result.status), std::string("ok")) << r.variant.name << ": " << r.result.log;
    EXPECT_EQ(r.result.validation, "exact") << r.variant.name;
    ok[r.variant.name]++;
    ASSERT_EQ(r.result.kernel_ms.size(), 5u);
    ASSERT_EQ(r.result.comm_ms.size(), 5u);
    for (std::size_t i = 0; i < 5; ++i) {
      if (r.variant.name == "mpi_rows") {
        EXPECT_EQ(r.device.backend, "mpi");
        // Even one rank scatters to and gathers from itself.
        EXPECT_GT(r.result.comm_ms[i], 0) << r.config.canonical();
        EXPECT_LE(r.result.comm_ms[i], r.result.kernel_ms[i]) << r.config.canonical();
      } else {
        EXPECT_EQ(r.result.comm_ms[i], 0) << r.variant.name;
      }
    }
  }
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
