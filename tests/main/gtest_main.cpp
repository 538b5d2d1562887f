// The main of every test executable: GoogleTest's, except that a run in which every selected test skipped (a GPU
// test on a machine without one) exits 77, which ctest reports as skipped (SKIP_RETURN_CODE), so a suite run as one
// ctest test (cmake/gtest_suites.cmake) is not reported as passed when none of its tests ran. A failure still
// exits 1, whatever else skipped.
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const int status = RUN_ALL_TESTS();
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  if (status == 0 && unit.successful_test_count() == 0 && unit.skipped_test_count() > 0) return 77;
  return status;
}
