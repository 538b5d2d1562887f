// The picture stage (tuner_impl.hpp, docs/families.md "Output pictures"): per problem on one device, the
// input, the best configuration's output and failed outputs with their differences from the reference, as
// PNG files beside a report. Outputs come from cold runs (fresh processes); nothing is stored in the database.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "pimg/cold_run.hpp"
#include "pimg/picture.hpp"
#include "run/tuner_impl.hpp"

namespace pimg {
namespace {

namespace fs = std::filesystem;

constexpr int kThumbSide = 192;

std::string slug(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return out;
}

// "<W>x<H>-c<C>-<hash>": short and distinct per problem (its canonical text hashed).
std::string problem_slug(const Problem& p) {
  return fmt::format("{}x{}-c{}-{:08x}", p.width, p.height, p.channels,
                     static_cast<std::uint32_t>(fnv1a64(p.canonical())));
}

std::string read_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// Writes `img` and its thumbnail as dir/family/name.png and name-thumb.png; the entry's paths are relative
// to dir.
PictureEntry save(const fs::path& dir, PictureEntry e, const std::string& name, const Image& img) {
  fs::create_directories(dir / e.family);
  e.file = (fs::path(e.family) / (name + ".png")).string();
  e.thumb = (fs::path(e.family) / (name + "-thumb.png")).string();
  write_png((dir / e.file).string(), img);
  write_png((dir / e.thumb).string(), thumbnail(img, kThumbSide));
  return e;
}

// The output of one configuration's cold run; empty with the reason in `why` when it gave none.
std::vector<std::uint8_t> output_of(const Tuner::Impl& m, const SelectedDevice& sd, const Problem& problem,
                                    const Variant& v, const Config& c, const fs::path& file, std::string& why) {
  ColdRequest req{*m.family, *sd.backend, sd.info, problem, v, c, kWorkerSetupTimeoutS + m.measure.timeout_s};
  req.output_path = file.string();
  std::error_code ec;
  fs::remove(file, ec);
  const EvalResult r = run_cold(m.opt.worker_exe, req);
  const std::string bytes = read_bytes(file);
  fs::remove(file, ec);
  if (bytes.empty()) why = fmt::format("{} ({})", to_string(r.status), r.log.substr(0, 200));
  return {bytes.begin(), bytes.end()};
}

}  // namespace

void picture_stage(const Tuner::Impl& m, std::size_t device, Store& store, RunObserver& obs) {
  if (m.opt.pictures_dir.empty()) return;
  const SelectedDevice& sd = m.devices[device];
  const fs::path dir = m.opt.pictures_dir;
  const std::map<std::string, const Variant*> variants = device_variants(m, device);
  RowFilter f;
  f.family = m.family->name();
  const std::vector<ResultRow> rows = store.ranking_rows(f);
  std::vector<PictureEntry> entries;
  try {
    fs::create_directories(dir);
    for (std::size_t p = 0; p < m.space.problems.size(); ++p) {
      const Problem& problem = m.space.problems[p];
      const std::optional<PictureShapes> shapes = m.family->pictures(problem);
      if (!shapes) return;  // the family's output is not a picture
      const std::string ps = problem_slug(problem), ds = slug(sd.info.id());
      const PictureEntry base{m.family->name(), sd.info.id(), problem.label(), "", "", "", "", "", ""};
      const fs::path scratch = dir / fmt::format(".output-{}-{}", ds, ps);
      PictureEntry in = base;
      in.kind = "input";
      in.device = "";
      entries.push_back(save(dir, in, ps + "-input", to_picture(shapes->input, m.workloads[p].input("in").bytes)));
      for (const ResultRow* best : top_rows(rows, sd.info, problem, variants, 1)) {
        std::string why;
        const std::vector<std::uint8_t> out =
            output_of(m, sd, problem, *variants.at(best->variant.name), best->config, scratch, why);
        if (out.empty()) {
          obs.on_message(fmt::format("{} {}: no picture of the best configuration: {}", sd.info.id(), problem.label(), why));
          continue;
        }
        PictureEntry e = base;
        e.kind = "best";
        e.variant = best->variant.name;
        e.config = best->config.brief();
        e.note = best->result.validation;
        entries.push_back(save(dir, e, fmt::format("{}-{}-best", ds, ps), to_picture(shapes->output, out)));
      }
      // The latest configurations stored as wrong_result here: their output and where it differs.
      std::vector<const ResultRow*> wrong;
      for (const ResultRow& r : rows)
        if (r.result.status == Status::wrong_result && same_device(r.device, sd.info) && r.problem == problem &&
            variants.count(r.variant.name))
          wrong.push_back(&r);
      std::sort(wrong.begin(), wrong.end(), [](const ResultRow* a, const ResultRow* b) { return a->id > b->id; });
      wrong.resize(std::min<std::size_t>(wrong.size(), kWrongPictures));
      for (std::size_t i = 0; i < wrong.size(); ++i) {
        const Variant& v = *variants.at(wrong[i]->variant.name);
        const auto expected = m.expected.find({p, v.validation_rule()});
        if (expected == m.expected.end()) continue;
        std::string why;
        const std::vector<std::uint8_t> out = output_of(m, sd, problem, v, wrong[i]->config, scratch, why);
        if (out.size() < expected->second.size()) {
          obs.on_message(fmt::format("{} {}: no picture of failed {} {}: {}", sd.info.id(), problem.label(), v.name(),
                                     wrong[i]->config.brief(), why.empty() ? "a short output" : why));
          continue;
        }
        std::size_t differing = 0;
        const Image diff = difference_picture(shapes->output, expected->second, out, &differing);
        PictureEntry e = base;
        e.variant = v.name();
        e.config = wrong[i]->config.brief();
        e.kind = "wrong";
        e.note = wrong[i]->result.log.substr(0, 160);
        const std::string name = fmt::format("{}-{}-wrong{}", ds, ps, i + 1);
        entries.push_back(save(dir, e, name, to_picture(shapes->output, out)));
        e.kind = "difference";
        e.note = fmt::format("{} of {} pixels differ (red)", differing,
                             static_cast<std::size_t>(shapes->output.width) * shapes->output.height);
        entries.push_back(save(dir, e, name + "-diff", diff));
      }
    }
    // The manifest: this device's entries of these problems replace earlier ones; the rest stay.
    std::vector<PictureEntry> all = parse_pictures_manifest(read_bytes(dir / "pictures.tsv"));
    std::erase_if(all, [&](const PictureEntry& old) {
      const bool redone = std::any_of(entries.begin(), entries.end(), [&](const PictureEntry& e) {
        return e.family == old.family && e.problem == old.problem;
      });
      return redone && (old.kind == "input" || old.device == sd.info.id());
    });
    all.insert(all.end(), entries.begin(), entries.end());
    std::ofstream o(dir / "pictures.tsv");
    o << pictures_manifest(all);
    if (!o) throw std::runtime_error((dir / "pictures.tsv").string() + ": cannot write");
    obs.on_message(fmt::format("{}: {} pictures in {}", sd.info.id(), entries.size(), dir.string()));
  } catch (const std::exception& e) {
    // Pictures are an aid: a failure to write them is said and the run goes on.
    obs.on_message(fmt::format("{}: pictures not written: {}", sd.info.id(), e.what()));
  }
}

}  // namespace pimg
