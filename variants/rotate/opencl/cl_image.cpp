// cl_image: kernels/rotate/rotate_direct.cl with IMAGE=1, the source read from an image2d_t of 1-byte texels
// at integer coordinates with a nearest sampler (exactly the rule's bytes), the texture path; the same grid,
// pixels per work item and spread as cl_direct.
#include "rotate/rotate_common.hpp"

namespace pimg::rotate {
namespace {

class ClImage final : public Variant {
 public:
  std::string name() const override { return "cl_image"; }
  std::string family() const override { return "rotate"; }
  std::string backend() const override { return "opencl"; }
  std::string source() const override { return "rotate/rotate_direct.cl"; }
  std::string help() const override {
    return "OpenCL gather rotation reading the source from an image2d_t (read_imageui at integer coordinates)";
  }
  std::vector<ParamDecl> parameters() const override { return grid_params(); }
  // args: in (image), out, width, height
  LaunchPlan plan(const PlanContext& x) const override {
    const Problem& p = x.problem;
    const Workload& w = x.workload;
    const Config& c = x.config;
    const DeviceInfo& d = x.device;
    return cl_plan(p, w, c, d, true);
  }
};

}  // namespace

std::unique_ptr<Variant> make_cl_image() { return std::make_unique<ClImage>(); }

}  // namespace pimg::rotate
