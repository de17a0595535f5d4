// --convert-proton-to-protongpu: gives each instrumented kernel a profile buffer argument and
// turns its proton records into proton_gpu buffer ops. The layout arithmetic is here; what the
// ops do on the GPU is in ProtonGPUToLLVM.
#include "ProfileLayout.h"
#include "ProtonInstrument/Conversion/Passes.h"
#include "ProtonInstrument/Dialect/Proton/IR/Proton.h"
#include "ProtonInstrument/Dialect/ProtonGPU/IR/ProtonGPU.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::protoninstrument {

#define GEN_PASS_DEF_CONVERTPROTONTOPROTONGPU
#include "ProtonInstrument/Conversion/Passes.h.inc"

namespace {

constexpr unsigned kWarpSize = 32;
constexpr unsigned kWarpGroupWarps = 4;
// A kernel's static shared memory (48 KiB); the kernel's own shares it.
constexpr unsigned kMaxStaticSharedBytes = 48 * 1024;

bool hasRecords(Operation *function) {
  WalkResult result = function->walk([](Operation *op) {
    return isa<proton::RecordOp, proton::AllocateEventOp, proton::EventOp>(op)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return result.wasInterrupted();
}

// The warps a kernel's known_block_size implies, or 0 if it has none.
unsigned knownWarps(gpu::GPUFuncOp kernel) {
  std::optional<ArrayRef<int32_t>> known = kernel.getKnownBlockSize();
  if (!known) return 0;
  int64_t threads = 1;
  for (int32_t size : *known) threads *= size;
  return static_cast<unsigned>((threads + kWarpSize - 1) / kWarpSize);
}

// Every thread of the CTA reaches the finalize (so a barrier there cannot hang) when the kernel
// returns once, from its entry block: structured control flow (scf) never returns early.
bool exitsUniformly(gpu::GPUFuncOp kernel) {
  SmallVector<gpu::ReturnOp> returns;
  kernel.walk([&](gpu::ReturnOp op) { returns.push_back(op); });
  return returns.size() == 1 && returns.front()->getBlock() == &kernel.getBody().front();
}

class ConvertProtonToProtonGPUPass
    : public impl::ConvertProtonToProtonGPUBase<ConvertProtonToProtonGPUPass> {
 public:
  using ConvertProtonToProtonGPUBase::ConvertProtonToProtonGPUBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUFuncOp> kernels;
    if (failed(collectKernels(module, kernels)) || failed(chooseLayout(module, kernels)) ||
        failed(assignScopeIds(kernels))) {
      return signalPassFailure();
    }
    std::vector<InstrumentedKernel> instrumented;
    for (gpu::GPUFuncOp kernel : kernels) instrumented.push_back(instrument(kernel));
    attachProfileAttributes(module, layout, scopes, instrumented);
    if (!metadataFile.empty() &&
        failed(writeProfileMetadata(module, metadataFile, layout, scopes, instrumented))) {
      return signalPassFailure();
    }
  }

 private:
  LogicalResult collectKernels(ModuleOp module, SmallVectorImpl<gpu::GPUFuncOp> &kernels) {
    WalkResult result = module.walk([&](FunctionOpInterface function) {
      if (!hasRecords(function)) return WalkResult::advance();
      auto kernel = dyn_cast<gpu::GPUFuncOp>(function.getOperation());
      if (!kernel || !kernel.isKernel()) {
        function.emitError() << "proton records are only supported in a gpu.func kernel; '"
                             << function.getName() << "' is not one (it has no profile buffer)";
        return WalkResult::interrupt();
      }
      if (failed(proton::verifyRecordScopes(kernel))) return WalkResult::interrupt();
      kernels.push_back(kernel);
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }

  LogicalResult chooseNumWarps(ModuleOp module, ArrayRef<gpu::GPUFuncOp> kernels) {
    layout.numWarps = numWarps;
    for (gpu::GPUFuncOp kernel : kernels) {
      unsigned known = knownWarps(kernel);
      if (known == 0 || known == layout.numWarps) continue;
      if (numWarps.hasValue()) {
        return kernel.emitError() << "num-warps=" << static_cast<unsigned>(numWarps)
                                  << " but kernel '" << kernel.getName()
                                  << "' has a known_block_size of " << known << " warps";
      }
      if (kernel != kernels.front() && knownWarps(kernels.front()) != 0) {
        return kernel.emitError() << "the instrumented kernels of one module share a layout, "
                                  << "but their known_block_size gives different warp counts";
      }
      layout.numWarps = known;
    }
    if (layout.numWarps == 0) return module.emitError() << "num-warps must be at least 1";
    return success();
  }

  LogicalResult chooseLayout(ModuleOp module, ArrayRef<gpu::GPUFuncOp> kernels) {
    if (bufferStrategy != "circular") {
      return module.emitError() << "buffer-strategy=" << bufferStrategy
                                << " is not supported (supported: circular)";
    }
    if (bufferType != "global" && bufferType != "shared") {
      return module.emitError() << "buffer-type=" << bufferType << " is not one of global, shared";
    }
    if (bufferType == "shared" && bufferSize > kMaxStaticSharedBytes) {
      return module.emitError() << "buffer-type=shared keeps the records in static shared "
                                << "memory, at most " << kMaxStaticSharedBytes
                                << " bytes per CTA, not buffer-size="
                                << static_cast<unsigned>(bufferSize);
    }
    if (failed(chooseNumWarps(module, kernels))) return failure();
    layout.granularity = granularity;
    layout.bufferStrategy = bufferStrategy;
    layout.bufferType = bufferType;
    if (granularity == "warp") {
      layout.warpStride = 1;
    } else if (granularity == "warp-group") {
      layout.warpStride = kWarpGroupWarps;
    } else if (granularity == "cta") {
      layout.warpStride = layout.numWarps;
    } else {
      return module.emitError() << "granularity=" << granularity
                                << " is not one of warp, warp-group, cta";
    }
    if (layout.numWarps % layout.warpStride != 0) {
      return module.emitError() << "granularity=warp-group needs a multiple of " << kWarpGroupWarps
                                << " warps, not " << layout.numWarps;
    }
    layout.profiledWarps = layout.numWarps / layout.warpStride;
    layout.dataBytes = bufferSize;
    layout.segmentBytes = bufferSize / layout.profiledWarps;
    if (bufferSize % layout.profiledWarps != 0 ||
        layout.segmentBytes < protongpu::buffer::kRecordBytes ||
        !llvm::isPowerOf2_32(layout.segmentBytes)) {
      return module.emitError() << "buffer-size=" << static_cast<unsigned>(bufferSize)
                                << " split among " << layout.profiledWarps
                                << " profiled warps must give each a power-of-two ring of at least "
                                << protongpu::buffer::kRecordBytes << " bytes";
    }
    layout.headerBytes = protongpu::buffer::IndexedHeaderBytes(layout.numWarps);
    layout.blockBytes = protongpu::buffer::BlockBytes(layout.dataBytes, layout.numWarps);
    return success();
  }

  // Ids in the order names first appear, over the kernels in module order.
  LogicalResult assignScopeIds(ArrayRef<gpu::GPUFuncOp> kernels) {
    for (gpu::GPUFuncOp kernel : kernels) {
      WalkResult result = kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
        StringRef name;
        bool isEvent = false;
        if (auto record = dyn_cast<proton::RecordOp>(op)) {
          name = record.getName();
        } else if (auto allocate = dyn_cast<proton::AllocateEventOp>(op)) {
          name = allocate.getName();
          isEvent = true;
        } else {
          return WalkResult::advance();
        }
        if (scopeIds.contains(name)) return WalkResult::advance();
        if (scopes.size() == proton::kMaxScopes) {
          op->emitError() << "too many scopes in the module: '" << name
                          << "' would be scope number " << proton::kMaxScopes + 1
                          << ", but the record encoding has 8 bits for the scope id";
          return WalkResult::interrupt();
        }
        scopeIds[name] = scopes.size();
        scopes.push_back({name.str(), isEvent});
        return WalkResult::advance();
      });
      if (result.wasInterrupted()) return failure();
    }
    return success();
  }

  struct KernelBuffer {
    Value block, segment, index;
  };

  InstrumentedKernel instrument(gpu::GPUFuncOp kernel) {
    MLIRContext *context = kernel.getContext();
    auto globalPtr = LLVM::LLVMPointerType::get(context, 1);
    unsigned argIndex = kernel.getNumArguments();
    Location loc = kernel.getLoc();
    OpBuilder b(context);
    kernel.insertArgument(
        argIndex, globalPtr,
        b.getDictionaryAttr(b.getNamedAttr("proton.profile_buffer", b.getUnitAttr())), loc);

    b.setInsertionPointToStart(&kernel.getBody().front());
    KernelBuffer buffer;
    buffer.block = b.create<protongpu::GlobalScratchAllocOp>(
        loc, globalPtr, kernel.getArgument(argIndex), b.getI32IntegerAttr(layout.blockBytes));
    b.create<protongpu::InitializeOp>(loc, buffer.block, b.getI32IntegerAttr(layout.dataBytes));
    buffer.segment = b.create<protongpu::SegmentAllocOp>(
        loc,
        protongpu::SegmentType::get(context, layout.segmentBytes,
                                    /*shared=*/layout.bufferType == "shared"),
        buffer.block, b.getI32IntegerAttr(layout.numWarps), b.getI32IntegerAttr(layout.warpStride));
    buffer.index = b.create<protongpu::InitBufferIndexOp>(loc, LLVM::LLVMPointerType::get(context));

    rewriteRecords(kernel, buffer);
    bool barrier = exitsUniformly(kernel);
    kernel.walk([&](gpu::ReturnOp ret) {
      b.setInsertionPoint(ret);
      auto finalize =
          b.create<protongpu::FinalizeOp>(ret.getLoc(), buffer.block, buffer.segment, buffer.index);
      if (barrier) finalize.setBarrier(true);
    });
    return {kernel.getName().str(), argIndex, barrier};
  }

  void rewriteRecords(gpu::GPUFuncOp kernel, const KernelBuffer &buffer) {
    SmallVector<Operation *> records, allocations;
    kernel.walk([&](Operation *op) {
      if (isa<proton::RecordOp, proton::EventOp>(op)) records.push_back(op);
      if (isa<proton::AllocateEventOp>(op)) allocations.push_back(op);
    });
    OpBuilder b(kernel.getContext());
    for (Operation *op : records) {
      b.setInsertionPoint(op);
      proton::RecordKind kind;
      StringRef name;
      bool async = false;
      if (auto record = dyn_cast<proton::RecordOp>(op)) {
        kind = record.getKind();
        name = record.getName();
      } else {
        auto event = cast<proton::EventOp>(op);
        kind = event.getKind();
        name = event.getName();
        async = true;
      }
      Value counter = b.create<protongpu::ReadCounterOp>(op->getLoc(), b.getI64Type());
      auto store = b.create<protongpu::CircularStoreOp>(
          op->getLoc(), proton::RecordKindAttr::get(b.getContext(), kind), buffer.segment,
          buffer.index, counter, b.getI32IntegerAttr(scopeIds.lookup(name)), UnitAttr());
      if (async) store.setAsync(true);
      op->erase();
    }
    for (Operation *op : allocations) op->erase();
  }

  ProfileLayout layout;
  std::vector<ScopeName> scopes;
  llvm::StringMap<unsigned> scopeIds;
};

}  // namespace

}  // namespace mlir::protoninstrument
