// The OpenCV calls the host backend's baselines make, timed in a program of their own: the yardstick
// scripts/opencv-check.sh holds the tuner's baseline rows against ("OpenCV baselines reach at least the
// throughput of the same call in a standalone program"). Each call runs on Mat headers over buffers made
// once, like the baselines, hot (the same buffers again) and cold (a buffer twice the last-level cache
// written before each run); prints one JSON object with the median and minimum of each.
//   opencv_standalone [--size WxH] [--runs N]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Case {
  std::string name;  // the tuner's family/variant it stands beside
  std::string call;
  std::function<void()> run;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::size_t llc_bytes() {
  const long l3 = ::sysconf(_SC_LEVEL3_CACHE_SIZE);
  const long l2 = ::sysconf(_SC_LEVEL2_CACHE_SIZE);
  const long llc = l3 > 0 ? l3 : l2;
  return llc > 0 ? static_cast<std::size_t>(llc) : std::size_t{64} << 20;
}

}  // namespace

int main(int argc, char** argv) {
  int width = 2048, height = 2048, runs = 50;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--size" && i + 1 < argc && std::sscanf(argv[++i], "%dx%d", &width, &height) == 2 && width > 4 &&
        height > 4)
      continue;
    if (a == "--runs" && i + 1 < argc && (runs = std::atoi(argv[++i])) >= 5) continue;
    std::fprintf(stderr, "usage: opencv_standalone [--size WxH] [--runs N>=5]\n");
    return 2;
  }
  cv::RNG rng(1107);
  cv::Mat gray(height, width, CV_8UC1), bgr(height, width, CV_8UC3);
  rng.fill(gray, cv::RNG::UNIFORM, 0, 256);
  rng.fill(bgr, cv::RNG::UNIFORM, 0, 256);
  cv::Mat out1(height, width, CV_8UC1), out4(height, width, CV_8UC4);
  float sharpen[9] = {0, -1, 0, -1, 5, -1, 0, -1, 0};
  const cv::Mat sharpen_kernel(3, 3, CV_32F, sharpen);
  float bins[256];
  cv::Mat hist(256, 1, CV_32F, bins);
  const int hist_size = 256, channel = 0;
  const float range[] = {0, 256};
  const float* ranges[] = {range};
  const double angle = 30 * CV_PI / 180, c = std::cos(angle), s = std::sin(angle);
  const double cx = (width - 1) / 2.0, cy = (height - 1) / 2.0;
  double m[6] = {c, -s, cx - c * cx + s * cy, s, c, cy - s * cx - c * cy};
  const cv::Mat matrix(2, 3, CV_64F, m);

  const std::vector<Case> cases = {
      {"conv/opencv_filter2d", "cv::filter2D(CV_8U, BORDER_CONSTANT) sharpen3",
       [&] { cv::filter2D(gray, out1, CV_8U, sharpen_kernel, cv::Point(-1, -1), 0, cv::BORDER_CONSTANT); }},
      {"conv/opencv_blur", "cv::blur(3x3, BORDER_CONSTANT)",
       [&] { cv::blur(gray, out1, cv::Size(3, 3), cv::Point(-1, -1), cv::BORDER_CONSTANT); }},
      {"conv/opencv_gaussian", "cv::GaussianBlur(5x5, sigma 0, BORDER_CONSTANT)",
       [&] { cv::GaussianBlur(gray, out1, cv::Size(5, 5), 0, 0, cv::BORDER_CONSTANT); }},
      {"hist/opencv_calchist", "cv::calcHist(1 channel, 256 bins)",
       [&] { cv::calcHist(&gray, 1, &channel, cv::Mat(), hist, 1, &hist_size, ranges, true, false); }},
      {"histeq/opencv_equalizehist", "cv::equalizeHist", [&] { cv::equalizeHist(gray, out1); }},
      {"flip/opencv_flip", "cv::flip(flipCode 1)", [&] { cv::flip(gray, out1, 1); }},
      {"bgr2rgba/opencv_cvtcolor", "cv::cvtColor(COLOR_BGR2RGBA)", [&] { cv::cvtColor(bgr, out4, cv::COLOR_BGR2RGBA); }},
      {"rotate/opencv_warp", "cv::warpAffine(INTER_NEAREST + WARP_INVERSE_MAP, BORDER_CONSTANT) 30 degrees",
       [&] {
         cv::warpAffine(gray, out1, matrix, out1.size(), cv::INTER_NEAREST | cv::WARP_INVERSE_MAP, cv::BORDER_CONSTANT,
                        cv::Scalar::all(0));
       }},
  };

  const std::size_t flush_bytes = 2 * llc_bytes();
  std::vector<unsigned char> flush(flush_bytes);
  std::printf("{\"program\": \"opencv_standalone\", \"opencv\": \"%s\", \"threads\": %d, \"width\": %d, \"height\": %d, "
              "\"runs\": %d, \"llc_bytes\": %zu,\n \"calls\": [\n",
              CV_VERSION, cv::getNumThreads(), width, height, runs, llc_bytes());
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const Case& cs = cases[k];
    std::vector<double> hot, cold;
    for (int w = 0; w < 3; ++w) cs.run();
    for (int i = 0; i < runs; ++i) {
      auto t = Clock::now();
      cs.run();
      hot.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t).count());
      std::fill(flush.begin(), flush.end(), static_cast<unsigned char>(i));
      t = Clock::now();
      cs.run();
      cold.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t).count());
    }
    std::printf("  {\"name\": \"%s\", \"call\": \"%s\", \"hot\": {\"median_ms\": %.5f, \"min_ms\": %.5f}, "
                "\"cold\": {\"median_ms\": %.5f, \"min_ms\": %.5f}}%s\n",
                cs.name.c_str(), cs.call.c_str(), median(hot), *std::min_element(hot.begin(), hot.end()), median(cold),
                *std::min_element(cold.begin(), cold.end()), k + 1 < cases.size() ? "," : "");
  }
  std::printf(" ]}\n");
  return 0;
}
