// Native calls (pimg::NativeCall): every built-in variant that names one finds it in its backend's own
// table; the host backend runs one (the serial flip, checked against the family's reference) and refuses
// kernels and unknown names; a call's identity is its name and library version.
#include <gtest/gtest.h>

#include "common/builtin_variants.hpp"
#include "pimg/executor.hpp"
#include "pimg/registry.hpp"

namespace pimg {
namespace {

TEST(NativeCall, EveryNativeVariantIsRegisteredWithItsBackend) {
  const Registry& reg = Registry::builtin();
  int natives = 0;
  for (const auto& [f, v] : testcommon::builtin_variants()) {
    const auto call = v->native();
    if (!call) {
      EXPECT_FALSE(v->source().empty()) << f->name() << "/" << v->name() << " names neither a kernel nor a call";
      continue;
    }
    ++natives;
    EXPECT_TRUE(v->source().empty()) << f->name() << "/" << v->name();
    // A library call is a baseline; the host backend runs only native calls, tuned ones too (pthread_rows).
    EXPECT_TRUE(v->baseline() || v->backend() == "host") << f->name() << "/" << v->name();
    const Backend* backend = reg.backend(v->backend());
    if (!backend) continue;  // a backend this build was configured without
    const auto names = backend->native_calls();
    EXPECT_NE(std::find(names.begin(), names.end(), call->name), names.end())
        << f->name() << "/" << v->name() << ": the " << v->backend() << " backend has no native call " << call->name;
  }
  EXPECT_GE(natives, 8);  // a serial reference per family at least
}

TEST(NativeCall, TheHostBackendRunsACallAndRefusesKernelsAndUnknownNames) {
  const Registry& reg = Registry::builtin();
  const Family& flip = *reg.family("flip");
  const Variant& serial = *reg.variant("flip", "serial");
  const Backend& host = *reg.backend("host");
  auto dev = host.open(host.devices().at(0));
  const Problem p = flip.make_problem(37, 5, 3, {});
  const Workload w = flip.make_workload(p);
  const LaunchPlan plan = plan_for(serial, p, w, Config{}, dev->info());

  const CompileResult kernel = dev->compile(*kernel_source("flip/flip.cl"), plan);
  EXPECT_EQ(kernel.program, nullptr);
  EXPECT_NE(kernel.log.find("runs native calls, not the kernel 'flip/flip.cl'"), std::string::npos) << kernel.log;
  const CompileResult unknown = dev->compile(native_source({"flip_nowhere", ""}), plan);
  EXPECT_EQ(unknown.program, nullptr);
  EXPECT_NE(unknown.log.find("no native function 'flip_nowhere'"), std::string::npos) << unknown.log;

  const CompileResult built = dev->compile(native_source(*serial.native()), plan);
  ASSERT_NE(built.program, nullptr) << built.log;
  auto in = dev->alloc(w.input("in").bytes.size());
  auto out = dev->alloc(w.output_bytes);
  dev->upload(*in, w.input("in").bytes);
  dev->fill(*out, 0xA5);
  const LaunchResult r = dev->launch(*built.program, plan, {{"in", in.get()}, {"out", out.get()}});
  ASSERT_TRUE(r.ok) << r.error;
  std::vector<std::uint8_t> got(w.output_bytes);
  dev->download(*out, got);
  EXPECT_EQ(got, flip.reference(p, w));
}

TEST(NativeCall, IdentityIsTheNameAndTheLibraryVersion) {
  // Calls of this build's own code keep the hash their rows were stored under as "builtin:<name>" sources.
  EXPECT_EQ(native_source({"conv_serial_rows", ""}).hash, hash128("builtin:conv_serial_rows"));
  EXPECT_EQ(variant_source_hash(*Registry::builtin().variant("conv", "serial")), hash128("builtin:conv_serial_rows"));
  const KernelSource a = native_source({"flip_opencv", "OpenCV 4.6.0"}), b = native_source({"flip_opencv", "OpenCV 4.10.0"});
  EXPECT_NE(a.hash, b.hash);
  EXPECT_NE(a.hash, native_source({"flip_opencv", ""}).hash);
  EXPECT_NE(a.hash, native_source({"bgr2rgba_opencv", "OpenCV 4.6.0"}).hash);
  EXPECT_TRUE(a.text.empty());
  ASSERT_TRUE(a.native);
  EXPECT_EQ(a.native->name, "flip_opencv");
  EXPECT_EQ(a.path, "native:flip_opencv");
}

}  // namespace
}  // namespace pimg
