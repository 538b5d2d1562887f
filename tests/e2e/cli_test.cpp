// The command line without sharp edges, on synthetic databases (no tuning): usage for a bare or
// unknown command, --version, the defaults --help states, one device selector grammar, "no rows match"
// apart from an empty database, --size checked, JSON of devices and list, list FAMILY, did you mean,
// completion and man page, compare, watch, and the report's HTML with its summary on the first screen.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "e2e/e2e_util.hpp"
#include "json.hpp"
#include "pimg/registry.hpp"
#include "pimg/store.hpp"
#include "synthetic_db.hpp"

namespace fs = std::filesystem;

namespace {

using e2e::Ran;
using e2e::run;

// Rows stored for a device of this machine (the host backend's first device), so backend:index
// selectors resolve, beside the synthetic GPUs.
void fill_host(pimg::Store& s, double speed, const std::string& command = "synthetic") {
  const pimg::Backend* host = pimg::Registry::builtin().backend("host");
  ASSERT_NE(host, nullptr);
  const pimg::DeviceInfo d = host->devices().at(0);
  const auto run = s.begin_run({"test", "2026-11-24T00:00:00Z", "abc", command, "0"});
  const auto dev = s.device_id(d);
  const auto variant = s.variant_id({"conv", "cl_tiled", "opencl", "t1"});
  pimg::Problem p{"conv", 256, 256, 1, {{"filter", "sharpen3"}, {"border", "zero"}}};
  const auto prob = s.problem_id(p, {256.0 * 256, "MPix/s", {2.0 * 256 * 256, 9.0 * 256 * 256}});
  for (int a = 1; a <= 4; ++a) {
    pimg::Config c;
    c.set("a", std::int64_t{a});
    pimg::EvalResult r = synthetic::result(speed * a);
    r.kernel_ms.clear();
    for (int i = 0; i < 12; ++i) r.kernel_ms.push_back(speed * a * (1 + 0.002 * i));
    r.kernel = pimg::Stats::of(r.kernel_ms);
    s.save(run, dev, prob, variant, c, r);
  }
}

class CliEdges : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("pimg-cli-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    pimg::Store s(db());
    synthetic::fill(s, synthetic::gpu("Test GPU 16GB", 16), 1.0, {256, 1024});
    fill_host(s, 1.0);
    fill_host(s, 0.5, "second run");  // a second run, twice as fast
    pimg::Store empty(empty_db());
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static std::string db() { return (dir_ / "cli.db").string(); }
  static std::string empty_db() { return (dir_ / "empty.db").string(); }
  static inline fs::path dir_;
};

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST_F(CliEdges, BareAndUnknownCommandsPrintUsage) {
  const Ran bare = run("");
  EXPECT_EQ(bare.code, 2);
  EXPECT_NE(bare.out.find("a command is required"), std::string::npos) << bare.out;
  EXPECT_NE(bare.out.find("Subcommands:"), std::string::npos) << bare.out;
  const Ran typo = run("compre");
  EXPECT_EQ(typo.code, 2);
  EXPECT_NE(typo.out.find("unknown command 'compre' (did you mean 'compare'?)"), std::string::npos) << typo.out;
  EXPECT_NE(typo.out.find("Subcommands:"), std::string::npos);
  const Ran version = run("--version");
  EXPECT_EQ(version.code, 0);
  EXPECT_TRUE(std::regex_search(version.out, std::regex("^pimg-tune [0-9]+\\.[0-9]+\\.[0-9]+\n$"))) << version.out;
}

TEST_F(CliEdges, HelpStatesTheDefaultsUsed) {
  const Ran help = run("best --help");
  EXPECT_EQ(help.code, 0);
  EXPECT_TRUE(std::regex_search(help.out, std::regex("--top [^\n]*=5"))) << help.out;
  const Ran best = run("best conv --db " + db());
  ASSERT_EQ(best.code, 0) << best.out;
  // 171 configurations of the 1024x1024 problem on the GPU: five rows, as --help says.
  EXPECT_EQ(count(best.out, "\n     6  "), 0u) << best.out;
  EXPECT_GT(count(best.out, "\n     5  "), 0u) << best.out;
  const Ran report_help = run("report --help");
  EXPECT_TRUE(std::regex_search(report_help.out, std::regex("--top [^\n]*=10"))) << report_help.out;
}

TEST_F(CliEdges, OneDeviceSelectorGrammar) {
  // host:0 and 0 name this machine's host device; "host" every host device stored (the synthetic
  // serial baseline's "Test CPU" too).
  const std::string live = pimg::Registry::builtin().backend("host")->devices().at(0).name;
  for (const std::string sel : {"host", "host:0", "0"}) {
    const Ran r = run("best conv --db " + db() + " --device " + sel + " --json");
    ASSERT_EQ(r.code, 0) << sel << ": " << r.out;
    const Json j = JsonParser(r.out).document();
    ASSERT_EQ(j.items.size(), sel == "host" ? 3u : 1u) << sel;
    for (const Json& g : j.items) EXPECT_EQ(g["backend"].text, "host") << sel;
    if (sel != "host") EXPECT_EQ(j.items[0]["device"].text, live);
  }
  for (const std::string sel : {"opencl", "opencl:Test GPU 16GB", "16gb"}) {
    const Ran r = run("best conv --db " + db() + " --device '" + sel + "' --json");
    ASSERT_EQ(r.code, 0) << sel << ": " << r.out;
    const Json j = JsonParser(r.out).document();
    EXPECT_EQ(j.items.size(), 2u) << sel;  // two sizes on the GPU
    for (const Json& g : j.items) EXPECT_EQ(g["device"].text, "Test GPU 16GB");
  }
  const Ran exported = run("export --db " + db() + " --family conv --device host:0");
  EXPECT_EQ(exported.code, 0) << exported.out;
  EXPECT_NE(exported.out.find("\"backend\":\"host\""), std::string::npos);
}

TEST_F(CliEdges, NoRowsMatchIsNotAnEmptyDatabase) {
  const Ran none = run("best conv --db " + db() + " --device no-such-card");
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.out.find("no rows match these filters (--device no-such-card)"), std::string::npos) << none.out;
  EXPECT_NE(none.out.find("opencl:Test GPU 16GB"), std::string::npos) << "the devices that exist: " << none.out;
  const Ran size = run("best conv --db " + db() + " --size 640x480");
  EXPECT_EQ(size.code, 2);
  EXPECT_NE(size.out.find("sizes: 1024x1024, 256x256"), std::string::npos) << size.out;
  const Ran empty = run("best conv --db " + empty_db());
  EXPECT_EQ(empty.code, 0) << empty.out;
  EXPECT_NE(empty.out.find("no results stored for family conv"), std::string::npos) << empty.out;
  for (const std::string bad : {"banana", "0x10", "10x", "-5x5", "1024X1024"}) {
    const Ran r = run("best conv --db " + db() + " --size " + bad);
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_NE(r.out.find("expected WIDTHxHEIGHT"), std::string::npos) << r.out;
  }
  const Ran family = run("best cnov --db " + db());
  EXPECT_EQ(family.code, 2);
  EXPECT_NE(family.out.find("unknown family 'cnov' (did you mean 'conv'?)"), std::string::npos) << family.out;
}

TEST_F(CliEdges, DevicesAndListAsJsonAndOneFamily) {
  const Ran devices = run("devices --json");
  ASSERT_EQ(devices.code, 0);
  const Json d = JsonParser(devices.out).document();
  bool host = false;
  for (const Json& b : d.items) host = host || (b["backend"].text == "host" && !b["devices"].items.empty());
  EXPECT_TRUE(host) << devices.out;
  const Ran list = run("list --json");
  ASSERT_EQ(list.code, 0);
  const Json l = JsonParser(list.out).document();
  EXPECT_GT(l["families"].items.size(), 5u);
  EXPECT_GT(l["strategies"].items.size(), 3u);
  const Ran conv = run("list conv");
  ASSERT_EQ(conv.code, 0);
  EXPECT_EQ(count(conv.out, "family "), 1u);
  EXPECT_LT(count(conv.out, "\n"), count(run("list").out, "\n") / 2);
  const Ran one = run("list maxpool --json");
  EXPECT_EQ(JsonParser(one.out).document()["families"].items.size(), 1u);
  const Ran typo = run("list maxpol");
  EXPECT_EQ(typo.code, 2);
  EXPECT_NE(typo.out.find("did you mean 'maxpool'?"), std::string::npos) << typo.out;
}

TEST_F(CliEdges, CompletionAndManPageComeFromTheParser) {
  const Ran bash = run("completion bash");
  ASSERT_EQ(bash.code, 0);
  EXPECT_NE(bash.out.find("complete -F _pimg_tune pimg-tune"), std::string::npos);
  EXPECT_NE(bash.out.find("compare) opts=\"--help --runs --devices --family --size --alpha --json\""), std::string::npos) << bash.out;
  // Values where they are known: the parser's own choices, the registry's families, backends and strategies.
  EXPECT_NE(bash.out.find("export:--format) COMPREPLY=($(compgen -W \"json header t4 t4-all\""), std::string::npos) << bash.out;
  EXPECT_NE(bash.out.find("strategies:--strategy) COMPREPLY=($(compgen -W \""), std::string::npos) << bash.out;
  // zsh and fish: each command, its options with their values, and a script its shell reads without an error.
  const Ran zsh = run("completion zsh");
  ASSERT_EQ(zsh.code, 0) << zsh.out;
  EXPECT_EQ(zsh.out.rfind("#compdef pimg-tune\n", 0), 0u);
  const auto best_line = zsh.out.find("    best) _arguments ");
  ASSERT_NE(best_line, std::string::npos) << zsh.out;
  EXPECT_LT(zsh.out.find("'1:family:(", best_line), zsh.out.find('\n', best_line)) << zsh.out;  // the families
  EXPECT_NE(zsh.out.find("'--format[json | header | t4 | t4-all]:format:(json header t4 t4-all)'"), std::string::npos) << zsh.out;
  const Ran fish = run("completion fish");
  ASSERT_EQ(fish.code, 0) << fish.out;
  EXPECT_NE(fish.out.find("complete -c pimg-tune -n '__fish_seen_subcommand_from export' -l format -d 'json | header | t4 | t4-all' -x "
                          "-a 'json header t4 t4-all'"),
            std::string::npos)
      << fish.out;
  EXPECT_NE(fish.out.find("-l strategy -d "), std::string::npos) << fish.out;
  const fs::path scripts = fs::temp_directory_path() / ("pimg-completion-" + std::to_string(::getpid()));
  fs::create_directories(scripts);
  for (const auto& [shell, text] : {std::pair{std::string("zsh"), zsh.out}, std::pair{std::string("fish"), fish.out},
                                    std::pair{std::string("bash"), bash.out}}) {
    if (std::system(("command -v " + shell + " >/dev/null 2>&1").c_str()) != 0) continue;  // scripts/install-deps.sh
    std::ofstream(scripts / shell) << text;
    const int code = std::system((shell + " -n " + (scripts / shell).string() + " 2>&1").c_str());
    EXPECT_EQ(code, 0) << shell << " cannot read its completion script";
  }
  fs::remove_all(scripts);
  const Ran man = run("man");
  ASSERT_EQ(man.code, 0);
  EXPECT_EQ(man.out.rfind(".TH PIMG-TUNE 1", 0), 0u);
  EXPECT_NE(man.out.find(".SS watch"), std::string::npos);
  EXPECT_NE(man.out.find(".B \\-\\-json\nJSON instead of a table"), std::string::npos) << man.out;  // a flag: no VALUE
  EXPECT_NE(man.out.find(".B \\-\\-db VALUE\n"), std::string::npos);
  for (const char* section : {".SH ENVIRONMENT\n", ".SH EXAMPLES\n", ".SH EXIT STATUS\n"})
    EXPECT_NE(man.out.find(section), std::string::npos) << section;
  EXPECT_NE(man.out.find("(default: 5)"), std::string::npos);
}

// Every command's help opens with one example of it, on the line under its description.
TEST_F(CliEdges, EveryHelpOpensWithAnExample) {
  const Ran bash = run("completion bash");
  ASSERT_EQ(bash.code, 0);
  const std::string marker = "COMPREPLY=($(compgen -W \"";
  const auto at = bash.out.find(marker);
  ASSERT_NE(at, std::string::npos) << bash.out;
  std::istringstream names(bash.out.substr(at + marker.size(), bash.out.find(" --help", at) - at - marker.size()));
  int commands = 0;
  for (std::string name; names >> name; ++commands) {
    const Ran help = run(name + " --help");
    EXPECT_EQ(help.code, 0) << name;
    std::istringstream lines(help.out);
    std::string description, example;
    std::getline(lines, description);
    std::getline(lines, example);
    EXPECT_EQ(example.rfind("Example: pimg-tune " + name + " ", 0), 0u) << name << ":\n" << help.out;
  }
  EXPECT_GE(commands, 20);
}

TEST_F(CliEdges, ComparesTwoRunsTwoDatabasesAndTwoDevices) {
  // The database's last two runs: the second host run is twice as fast, every configuration.
  const Ran runs = run("compare " + db() + " --json");
  ASSERT_EQ(runs.code, 0) << runs.out;
  const Json j = JsonParser(runs.out).document();
  EXPECT_EQ(j["a"].text, "run 2");
  EXPECT_EQ(j["b"].text, "run 3");
  EXPECT_EQ(j["pairs_compared"].number, 4);
  EXPECT_NEAR(j["geomean_ratio"].number, 0.5, 1e-6);
  EXPECT_EQ(j["faster"].number, 4);
  const Ran md = run("compare " + db() + " --runs 2 3");
  ASSERT_EQ(md.code, 0) << md.out;
  EXPECT_NE(md.out.find("# Comparison: run 2 (A) against run 3 (B)"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("| faster |"), std::string::npos) << md.out;
  const Ran bad = run("compare " + db() + " --runs 2 99");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.out.find("no such run"), std::string::npos) << bad.out;
  // The same database twice: every pair equal, none significant.
  const Ran same = run("compare " + db() + " " + db() + " --json");
  ASSERT_EQ(same.code, 0) << same.out;
  const Json s = JsonParser(same.out).document();
  EXPECT_NEAR(s["geomean_ratio"].number, 1.0, 1e-12);
  EXPECT_EQ(s["faster"].number + s["slower"].number, 0);
  const Ran devices = run("compare " + db() + " --devices host 'Test GPU'");
  EXPECT_EQ(devices.code, 0) << devices.out;
  EXPECT_NE(devices.out.find("# Comparison: host (A) against Test GPU (B)"), std::string::npos) << devices.out;
}

TEST_F(CliEdges, WatchShowsTheLatestRunFromTheStore) {
  const Ran w = run("watch --db " + db() + " --once");
  ASSERT_EQ(w.code, 0) << w.out;
  EXPECT_NE(w.out.find("run 3 on test"), std::string::npos) << w.out;
  EXPECT_NE(w.out.find("4 evaluations stored: 4 ok, 0 failed"), std::string::npos) << w.out;
  EXPECT_NE(w.out.find("Best so far:"), std::string::npos);
  const Ran first = run("watch --db " + db() + " --once --run 1");
  EXPECT_NE(first.out.find("Failures: "), std::string::npos) << first.out;  // the synthetic compile errors
  EXPECT_EQ(run("watch --db " + empty_db() + " --once").code, 2);
  const Ran j = run("watch --db " + db() + " --json --run 1");
  ASSERT_EQ(j.code, 0) << j.out;
  const Json doc = JsonParser(j.out).document();
  EXPECT_EQ(doc["run"].number, 1);
  EXPECT_GT(doc["by_status"]["compile_error"].number, 0) << j.out;
  EXPECT_FALSE(doc["best"].items.empty()) << j.out;
  ASSERT_FALSE(doc["latest_failures"].items.empty()) << j.out;
  EXPECT_EQ(doc["latest_failures"].items[0]["status"].text, "compile_error");
}

// What a person sees: the report rendered by headless Chromium at 1400x900; the summary's first row
// must end within the first screen.
TEST_F(CliEdges, ReportHtmlShowsTheSummaryOnTheFirstScreen) {
  const std::string out = (dir_ / "report" / "conv.md").string();
  const Ran r = run("report --db " + db() + " --family conv --out " + out);
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string html = e2e::slurp((dir_ / "report" / "conv.html").string());
  EXPECT_NE(html.find("<h2 id=\"summary\">Summary</h2>"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos) << "plots are inlined";
  EXPECT_NE(html.find("<svg xmlns"), std::string::npos);
  const char* chrome = std::getenv("CHROMIUM");
  std::string exe = chrome ? chrome : "chromium";
  if (std::system(("command -v " + exe + " >/dev/null 2>&1").c_str()) != 0)
    GTEST_SKIP() << "chromium is not installed: the first-screen check needs it (apt-get install chromium)";
  const std::string profile = (dir_ / "chrome-profile").string();
  const std::string cmd = exe +
                          " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
                          "--disable-background-networking --disable-component-update --disable-sync --user-data-dir=" +
                          profile + " --window-size=1400,900 --dump-dom file://" + (dir_ / "report" / "conv.html").string() +
                          " 2>/dev/null";
  std::string dom;
  {
    std::FILE* p = popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    char buf[4096];
    while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) dom.append(buf, n);
    pclose(p);
  }
  std::smatch m;
  ASSERT_TRUE(std::regex_search(dom, m, std::regex("data-summary-first-row-bottom=\"([0-9]+)\""))) << dom.substr(0, 400);
  EXPECT_LE(std::stoi(m[1]), 900) << "the summary's first row ends below the first screen";
}

}  // namespace
