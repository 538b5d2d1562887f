// cuda_texture: kernels/conv/conv_cuda_texture.cu, the input read through a texture object over a CUDA
// array of 1-byte texels (the buffer's bytes: width*channels wide interleaved, height*channels tall
// planar), ITEMS_X x ITEMS_Y pixels per thread.
#include <fmt/format.h>

#include "conv/cuda_common.hpp"

namespace pimg::conv {
namespace {

constexpr CudaKnobSet kTextureKnobs{false, false};

class CudaTexture final : public Variant {
 public:
  std::string name() const override { return "cuda_texture"; }
  std::string family() const override { return "conv"; }
  std::string backend() const override { return "cuda"; }
  std::string source() const override { return "conv/conv_cuda_texture.cu"; }
  std::string help() const override {
    return "CUDA direct convolution reading the input through a texture object (tex2D, point sampling)";
  }
  std::vector<ParamDecl> parameters() const override { return cuda_knob_params(kTextureKnobs); }

  // args: in (texture), weights, out, width, height, out_width, out_height
  LaunchPlan plan(const PlanContext& x) const override {
    const Problem& p = x.problem;
    const Workload& w = x.workload;
    const Config& c = x.config;
    const DeviceInfo& d = x.device;
    const ConvSpec s = spec_of(p);
    const CudaKnobs k = cuda_read_knobs(c, d);
    const int texels_x = s.planar ? s.width : s.width * s.channels;
    const int texels_y = s.planar ? s.height * s.channels : s.height;
    const double max_w = device_limit(d, "image2d_max_width", 0), max_h = device_limit(d, "image2d_max_height", 0);
    if (texels_x > max_w || texels_y > max_h)
      throw PlanError(fmt::format("input of {}x{} texels exceeds the device's 2-D texture limit {}x{}", texels_x,
                                  texels_y, max_w, max_h));
    if (k.filter_mem == 1) cuda_check_constant_bytes(w.input("weights").bytes.size() + w.input("taps").bytes.size(), d);
    LaunchPlan plan;
    plan.entry = "conv_cuda_texture";
    cuda_add_defines(plan, w, k, kTextureKnobs);
    cuda_set_geometry(plan, s, k, d);
    plan.args = {KernelArg::image("in", texels_x, texels_y), KernelArg::buf("weights"), KernelArg::buf("out")};
    add_scalar_args(plan, s);
    return plan;
  }
};

}  // namespace

std::unique_ptr<Variant> make_cuda_texture() { return std::make_unique<CudaTexture>(); }

}  // namespace pimg::conv
