// What a T1 file's KernelFile brings into the kernel's text (variants/user/t1_load.cpp reads the list,
// t1_source.cpp expands the includes): a list names the kernel first and the files it includes after it, wherever
// they lie (tests/data/t1/split); a listed file that is missing is refused naming its place in the list.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "pimg/errors.hpp"
#include "user/t1.hpp"

namespace fs = std::filesystem;

TEST(T1Files, AListedHeaderInAnotherFolderIsCompiledIn) {
  const pimg::user::T1Spec spec = pimg::user::load_t1(std::string(PIMG_TEST_DATA) + "/t1/split/split.json");
  EXPECT_EQ(fs::path(spec.kernel_path).filename(), "split.cl");
  EXPECT_NE(spec.kernel_text.find("#line 1 \"../include/px.h\""), std::string::npos) << spec.kernel_text;
  EXPECT_NE(spec.kernel_text.find("inline int px("), std::string::npos) << spec.kernel_text;
  EXPECT_EQ(spec.kernel_text.find("#include \"px.h\""), std::string::npos) << spec.kernel_text;
}

TEST(T1Files, AMissingListedFileIsRefusedNamingItsPlace) {
  const fs::path dir = fs::temp_directory_path() / ("pimg-t1-files-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::copy_file(std::string(PIMG_TEST_DATA) + "/t1/split/kernel/split.cl", dir / "split.cl");
  std::string json;
  {
    std::ifstream in(std::string(PIMG_TEST_DATA) + "/t1/split/split.json");
    json.assign(std::istreambuf_iterator<char>(in), {});
  }
  json.replace(json.find("\"kernel/split.cl\""), std::string("\"kernel/split.cl\"").size(), "\"split.cl\"");
  std::ofstream(dir / "split.json") << json;
  try {
    pimg::user::load_t1((dir / "split.json").string());
    ADD_FAILURE() << "a missing listed file was accepted";
  } catch (const pimg::UsageError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("split.json:"), std::string::npos) << what;
    EXPECT_NE(what.find("KernelSpecification.KernelFile[1]: "), std::string::npos) << what;
    EXPECT_NE(what.find("px.h is not a readable file"), std::string::npos) << what;
  }
  fs::remove_all(dir);
}
