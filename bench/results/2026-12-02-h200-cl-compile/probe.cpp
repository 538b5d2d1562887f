// Probe: does NVIDIA's OpenCL compiler build programs in parallel across threads of one process, and across
// processes? Builds N distinct programs with T workers: threads (each its own context) or forked processes.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
static cl_platform_id plat;
static cl_device_id dev;
static void pick() {
  cl_uint n = 0;
  clGetPlatformIDs(0, nullptr, &n);
  std::vector<cl_platform_id> ps(n);
  clGetPlatformIDs(n, ps.data(), nullptr);
  for (auto p : ps) {
    char name[256] = {};
    clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, nullptr);
    if (strstr(name, "NVIDIA")) {
      plat = p;
      clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 1, &dev, nullptr);
      return;
    }
  }
  fprintf(stderr, "no NVIDIA platform\n");
  exit(1);
}
static std::string source(int i) {
  char buf[2048];
  snprintf(buf, sizeof buf,
           "#define R %d\n#define SEED %d\n"
           "__kernel void k(__global const uchar* in, __global uchar* out, int w, int h) {\n"
           " int x = get_global_id(0), y = get_global_id(1); if (x >= w || y >= h) return;\n"
           " float acc = 0;\n"
           " #pragma unroll\n for (int dy = -R; dy <= R; ++dy) {\n"
           "  #pragma unroll\n  for (int dx = -R; dx <= R; ++dx)\n"
           "   acc += (float)(SEED + dx * dy + 1) * in[clamp(y + dy, 0, h - 1) * w + clamp(x + dx, 0, w - 1)];\n"
           " }\n out[y * w + x] = convert_uchar_sat(acc * (1.0f / (SEED + 3)));\n}\n",
           1 + i % 4, i);
  return buf;
}
static double build_range(int from, int to, int step) {  // seconds of build calls
  cl_int err;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)plat, 0};
  cl_context ctx = clCreateContext(props, 1, &dev, nullptr, nullptr, &err);
  double spent = 0;
  for (int i = from; i < to; i += step) {
    std::string s = source(i);
    const char* t = s.c_str();
    cl_program p = clCreateProgramWithSource(ctx, 1, &t, nullptr, &err);
    double t0 = now();
    err = clBuildProgram(p, 1, &dev, "", nullptr, nullptr);
    spent += now() - t0;
    if (err) fprintf(stderr, "build %d: %d\n", i, err);
    clReleaseProgram(p);
  }
  clReleaseContext(ctx);
  return spent;
}
int main(int argc, char** argv) {
  const std::string mode = argv[1];
  const int n = atoi(argv[2]), t = atoi(argv[3]), base = atoi(argv[4]);
  double t0 = now();
  if (mode == "threads") {
    pick();
    std::vector<std::thread> th;
    std::vector<double> spent(t);
    for (int k = 0; k < t; ++k) th.emplace_back([&, k] { spent[k] = build_range(base + k, base + n, t); });
    for (auto& x : th) x.join();
    double sum = 0;
    for (double s : spent) sum += s;
    printf("threads T=%d N=%d wall %.2f s, build calls summed %.2f s, %.1f programs/s\n", t, n, now() - t0, sum,
           n / (now() - t0));
  } else {
    for (int k = 0; k < t; ++k)
      if (fork() == 0) {
        pick();
        build_range(base + k, base + n, t);
        _exit(0);
      }
    while (wait(nullptr) > 0) {
    }
    printf("procs T=%d N=%d wall %.2f s, %.1f programs/s\n", t, n, now() - t0, n / (now() - t0));
  }
}
