// Publishes the profile layout: module attributes for whoever reads the IR, a JSON file for the
// host that allocates and decodes the buffer.
#include "ProfileLayout.h"
#include "ProtonInstrument/Dialect/ProtonGPU/IR/ProtonGPU.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/Builders.h"

namespace mlir::protoninstrument {

constexpr int kMetadataVersion = 1;

void attachProfileAttributes(ModuleOp module, const ProfileLayout &layout,
                             const std::vector<ScopeName> &scopes,
                             const std::vector<InstrumentedKernel> &kernels) {
  Builder b(module.getContext());
  SmallVector<Attribute> names;
  for (const ScopeName &scope : scopes) names.push_back(b.getStringAttr(scope.name));
  SmallVector<Attribute> kernelAttrs;
  for (const InstrumentedKernel &kernel : kernels) {
    kernelAttrs.push_back(b.getDictionaryAttr({
        b.getNamedAttr("name", b.getStringAttr(kernel.name)),
        b.getNamedAttr("profile_arg_index", b.getI32IntegerAttr(kernel.profileArgIndex)),
        b.getNamedAttr("finalize_barrier", b.getBoolAttr(kernel.finalizeBarrier)),
    }));
  }
  module->setAttr("proton.scope_names", b.getArrayAttr(names));
  module->setAttr("proton.profile",
                  b.getDictionaryAttr({
                      b.getNamedAttr("granularity", b.getStringAttr(layout.granularity)),
                      b.getNamedAttr("buffer_strategy", b.getStringAttr(layout.bufferStrategy)),
                      b.getNamedAttr("buffer_type", b.getStringAttr(layout.bufferType)),
                      b.getNamedAttr("num_warps", b.getI32IntegerAttr(layout.numWarps)),
                      b.getNamedAttr("warp_stride", b.getI32IntegerAttr(layout.warpStride)),
                      b.getNamedAttr("header_bytes", b.getI32IntegerAttr(layout.headerBytes)),
                      b.getNamedAttr("data_bytes", b.getI32IntegerAttr(layout.dataBytes)),
                      b.getNamedAttr("segment_bytes", b.getI32IntegerAttr(layout.segmentBytes)),
                      b.getNamedAttr("block_bytes", b.getI32IntegerAttr(layout.blockBytes)),
                      b.getNamedAttr("kernels", b.getArrayAttr(kernelAttrs)),
                  }));
}

namespace {

llvm::json::Value toJson(const ProfileLayout &layout, const std::vector<ScopeName> &scopes,
                         const std::vector<InstrumentedKernel> &kernels) {
  llvm::json::Array names, scopeObjects, kernelObjects, profiledWarps;
  for (size_t id = 0; id < scopes.size(); ++id) {
    names.push_back(scopes[id].name);
    scopeObjects.push_back(llvm::json::Object{{"id", static_cast<int64_t>(id)},
                                              {"name", scopes[id].name},
                                              {"async", scopes[id].isEvent}});
  }
  for (const InstrumentedKernel &kernel : kernels) {
    kernelObjects.push_back(llvm::json::Object{{"name", kernel.name},
                                               {"profile_arg_index", kernel.profileArgIndex},
                                               {"finalize_barrier", kernel.finalizeBarrier}});
  }
  for (unsigned warp = 0; warp < layout.numWarps; warp += layout.warpStride)
    profiledWarps.push_back(warp);
  return llvm::json::Object{
      {"version", kMetadataVersion},
      {"kernel_name", kernels.empty() ? std::string() : kernels.front().name},
      {"kernels", std::move(kernelObjects)},
      {"granularity", layout.granularity},
      {"buffer_strategy", layout.bufferStrategy},
      {"buffer_type", layout.bufferType},
      {"num_warps", layout.numWarps},
      {"profiled_warps", std::move(profiledWarps)},
      {"header_bytes", layout.headerBytes},
      {"data_bytes", layout.dataBytes},
      {"segment_bytes", layout.segmentBytes},
      {"record_bytes", protongpu::buffer::kRecordBytes},
      {"block_bytes", layout.blockBytes},
      {"block_align_bytes", protongpu::buffer::kBlockAlignment},
      {"preamble", protongpu::buffer::kProfiledPreamble},
      {"clock", "clock64"},
      {"timer", "globaltimer_ns"},
      {"scope_names", std::move(names)},
      {"scopes", std::move(scopeObjects)},
  };
}

}  // namespace

LogicalResult writeProfileMetadata(ModuleOp module, llvm::StringRef path,
                                   const ProfileLayout &layout,
                                   const std::vector<ScopeName> &scopes,
                                   const std::vector<InstrumentedKernel> &kernels) {
  std::error_code error;
  llvm::raw_fd_ostream out(path, error, llvm::sys::fs::OF_Text);
  if (error) {
    return module.emitError() << "cannot write the metadata file '" << path
                              << "': " << error.message();
  }
  out << llvm::formatv("{0:2}", toJson(layout, scopes, kernels)) << "\n";
  out.close();
  if (out.has_error()) {
    return module.emitError() << "cannot write the metadata file '" << path
                              << "': " << out.error().message();
  }
  return success();
}

}  // namespace mlir::protoninstrument
