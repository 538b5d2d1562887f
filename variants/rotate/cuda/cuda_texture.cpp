// cuda_texture: kernels/rotate/rotate_cuda.cu with TEXTURE=1, the source read through a texture object over a
// CUDA array (2-D block-linear layout, texture cache) at integer texel centres with point sampling, so the
// bytes are the rule's exactly; the same grid, pixels per thread, incremental source points and packed stores
// as cuda_direct.
#include "rotate/rotate_common.hpp"

namespace pimg::rotate {
namespace {

class CudaTexture final : public Variant {
 public:
  std::string name() const override { return "cuda_texture"; }
  std::string family() const override { return "rotate"; }
  std::string backend() const override { return "cuda"; }
  std::string source() const override { return "rotate/rotate_cuda.cu"; }
  std::string help() const override {
    return "CUDA gather rotation reading the source through a texture object (tex2D, point sampling at texel "
           "centres), items_x x items_y pixels per thread";
  }
  std::vector<ParamDecl> parameters() const override { return cuda_params(false); }
  // args: in (texture), out, width, height
  LaunchPlan plan(const PlanContext& x) const override {
    const Problem& p = x.problem;
    const Workload& w = x.workload;
    const Config& c = x.config;
    const DeviceInfo& d = x.device;
    return cuda_plan(p, w, c, d, true);
  }
};

}  // namespace

std::unique_ptr<Variant> make_cuda_texture() { return std::make_unique<CudaTexture>(); }

}  // namespace pimg::rotate
