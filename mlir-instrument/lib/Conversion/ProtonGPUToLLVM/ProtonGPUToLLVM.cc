// --convert-protongpu-to-llvm: the proton_gpu ops as LLVM/NVVM code that writes Proton's circular
// buffer layout, one block per CTA: a header of 10 u32 words, one write index per warp, then the
// rings of the profiled warps (mlir-instrument/buffer/buffer_layout.h draws it and defines every
// offset and bit used here; protond's decoder reads the buffer with the same definitions).
// Only lane 0 of a profiled warp writes (its segment pointer is null on every other thread).
// With buffer-type=shared the rings are in shared memory until finalize copies them to the block.
#include "DeviceEmitter.h"
#include "ProtonInstrument/Conversion/Passes.h"
#include "ProtonInstrument/Dialect/ProtonGPU/IR/ProtonGPU.h"
#include "SharedRecords.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::protoninstrument {

#define GEN_PASS_DEF_CONVERTPROTONGPUTOLLVM
#include "ProtonInstrument/Conversion/Passes.h.inc"

namespace {

using namespace protongpu;

constexpr int64_t kWarpSize = 32;
// A write index counts u32 words: each record advances it by this many.
constexpr int64_t kRecordWords = buffer::kRecordBytes / buffer::kWordBytes;

Value isZero(DeviceEmitter &e, Value value) {
  return e.builder().create<LLVM::ICmpOp>(value.getLoc(), LLVM::ICmpPredicate::eq, value, e.i32(0));
}

Value isNotNull(DeviceEmitter &e, Location loc, Value pointer) {
  Value null = e.builder().create<LLVM::ZeroOp>(loc, pointer.getType());
  return e.builder().create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ne, pointer, null);
}

struct GlobalScratchAllocLowering : OpConversionPattern<GlobalScratchAllocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(GlobalScratchAllocOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    DeviceEmitter e(rewriter, op.getLoc());
    Value blockId =
        rewriter.create<LLVM::ZExtOp>(op.getLoc(), rewriter.getI64Type(), e.linearBlockId());
    Value offset = rewriter.create<LLVM::MulOp>(op.getLoc(), blockId, e.i64(op.getBlockBytes()));
    rewriter.replaceOp(op, e.byteOffset(adaptor.getBuffer(), offset));
    return success();
  }
};

// Thread 0 writes header words 0-5 at entry.
struct InitializeLowering : OpConversionPattern<InitializeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(InitializeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    DeviceEmitter e(rewriter, op.getLoc());
    Value block = adaptor.getBlock();
    e.ifThen(isZero(e, e.linearThreadId()), [&] {
      e.store(e.i32(static_cast<int32_t>(buffer::kProfiledPreamble)), block,
              buffer::kPreambleOffset);
      e.store(e.linearBlockId(), block, buffer::kBlockIdOffset);
      e.store(e.smId(), block, buffer::kSmIdOffset);
      e.store(e.i32(op.getDataBytes()), block, buffer::kDataBytesOffset);
      e.store(e.globalTimerNs(), block, buffer::kInitTimeOffset);
    });
    rewriter.eraseOp(op);
    return success();
  }
};

// The bytes of all the rings of a CTA (what a shared-memory buffer holds).
unsigned ringsBytes(SegmentAllocOp op) {
  return op.getType().getBytes() * (op.getNumWarps() / op.getWarpStride());
}

// Lane 0 of warp w, w < num_warps and w % warp_stride == 0, gets
// block + header + (w / warp_stride) * segment bytes (shared: the same offset, less the header,
// in the shared array); every other thread gets null.
struct SegmentAllocLowering : OpConversionPattern<SegmentAllocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SegmentAllocOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    DeviceEmitter e(rewriter, loc);
    unsigned numWarps = op.getNumWarps(), stride = op.getWarpStride();
    // Operands are built one statement at a time: the IR's order must not depend on the order in
    // which the compiler evaluates function arguments.
    Value thread = e.linearThreadId();
    Value warp = rewriter.create<LLVM::UDivOp>(loc, thread, e.i32(kWarpSize));
    Value lane = rewriter.create<LLVM::URemOp>(loc, thread, e.i32(kWarpSize));
    Value inRange =
        rewriter.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ult, warp, e.i32(numWarps));
    Value strideWarp = isZero(e, rewriter.create<LLVM::URemOp>(loc, warp, e.i32(stride)));
    Value profiled = rewriter.create<LLVM::AndOp>(loc, strideWarp, inRange);
    Value writes = rewriter.create<LLVM::AndOp>(loc, isZero(e, lane), profiled);
    Value ring = rewriter.create<LLVM::UDivOp>(loc, warp, e.i32(stride));
    Value ringOffset = rewriter.create<LLVM::MulOp>(loc, ring, e.i32(op.getType().getBytes()));
    Value segment;
    if (op.getType().getShared()) {
      segment = e.byteOffset(getSharedRecords(e, op, ringsBytes(op)), ringOffset);
    } else {
      Value header = e.i32(buffer::IndexedHeaderBytes(numWarps));
      Value offset = rewriter.create<LLVM::AddOp>(loc, header, ringOffset);
      segment = e.byteOffset(adaptor.getBlock(), offset);
    }
    Value null = rewriter.create<LLVM::ZeroOp>(loc, segment.getType());
    rewriter.replaceOpWithNewOp<LLVM::SelectOp>(op, writes, segment, null);
    return success();
  }
};

struct InitBufferIndexLowering : OpConversionPattern<InitBufferIndexOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(InitBufferIndexOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    DeviceEmitter e(rewriter, op.getLoc());
    Value index =
        rewriter.create<LLVM::AllocaOp>(op.getLoc(), op.getType(), rewriter.getI32Type(), e.i32(1));
    rewriter.create<LLVM::StoreOp>(op.getLoc(), e.i32(0), index);
    rewriter.replaceOp(op, index);
    return success();
  }
};

struct ReadCounterLowering : OpConversionPattern<ReadCounterOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ReadCounterOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, DeviceEmitter(rewriter, op.getLoc()).clock64());
    return success();
  }
};

// Whether every record of `segment` starts 8-byte aligned, so that one 8-byte store can write
// it. A record starts at an even word of its ring (the index grows by 2 from 0, masked by a
// power of two), and rings are a power of two of at least 8 bytes apart, so it comes down to the
// first ring: in shared memory the array is 8-aligned; in the block it follows 40 + 4 * num_warps
// bytes of header, after a block base that is 8-aligned (a multiple of 128 bytes from the
// buffer, whose alignment the header's u64 stores already need), so only for an even num_warps.
// A segment whose segment_alloc is out of sight is not known to be aligned.
bool isRecordAligned(Value segment) {
  auto alloc = segment.getDefiningOp<SegmentAllocOp>();
  if (!alloc) return false;
  return alloc.getType().getShared() ||
         buffer::IndexedHeaderBytes(alloc.getNumWarps()) % buffer::kRecordBytes == 0;
}

// Every thread computes the record and its address and advances its private index; only the
// store is predicated, on the segment being non-null (lane 0 of a profiled warp). No branch: a
// divergent branch per record costs a reconvergence (BSSY/BSYNC) on Hopper. The other lanes'
// indexes (registers after -O3) grow too, but only a writing lane's is ever read (finalize).
struct CircularStoreLowering : OpConversionPattern<CircularStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(CircularStoreOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    DeviceEmitter e(rewriter, loc);
    Value segment = adaptor.getSegment(), indexPtr = adaptor.getIndex();
    unsigned words = op.getSegment().getType().getBytes() / buffer::kWordBytes;
    uint32_t tag =
        buffer::RecordTag(op.getKind() == proton::RecordKind::end, op.getScopeId(), op.getAsync());
    Value counter = adaptor.getCounter();
    Type i32 = rewriter.getI32Type();
    Value writes = isNotNull(e, loc, segment);
    Value index = rewriter.create<LLVM::LoadOp>(loc, i32, indexPtr);
    Value slot = rewriter.create<LLVM::AndOp>(loc, index, e.i32(words - 1));
    Value high = rewriter.create<LLVM::TruncOp>(
        loc, i32, rewriter.create<LLVM::LShrOp>(loc, counter, e.i64(buffer::kClockLowBits)));
    Value tagBits = e.i32(static_cast<int32_t>(tag));
    Value clockBits = rewriter.create<LLVM::AndOp>(loc, high, e.i32(buffer::kClockHighMask));
    Value word0 = rewriter.create<LLVM::OrOp>(loc, clockBits, tagBits);
    Value word1 = rewriter.create<LLVM::TruncOp>(loc, i32, counter);
    Value first =
        rewriter.create<LLVM::GEPOp>(loc, segment.getType(), i32, segment, ValueRange{slot});
    e.storeWordPairIf(writes, first, word0, word1, isRecordAligned(op.getSegment()));
    rewriter.create<LLVM::StoreOp>(
        loc, rewriter.create<LLVM::AddOp>(loc, index, e.i32(kRecordWords)), indexPtr);
    rewriter.eraseOp(op);
    return success();
  }
};

// Each writing lane stores its warp's index; then (after a barrier where every thread gets here)
// thread 0 stamps the end times. A shared buffer is copied to the block between the two stamps:
// by the whole CTA after the barrier, or, without one, by each writing lane for its own ring.
struct FinalizeLowering : OpConversionPattern<FinalizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(FinalizeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    DeviceEmitter e(rewriter, loc);
    Value block = adaptor.getBlock(), segment = adaptor.getSegment();
    // Verified: a shared segment comes from its segment_alloc, which has the layout.
    auto alloc = op.getSegment().getDefiningOp<SegmentAllocOp>();
    bool shared = op.getSegment().getType().getShared(), barrier = op.getBarrier();
    e.ifThen(isNotNull(e, loc, segment), [&] {
      Value index = rewriter.create<LLVM::LoadOp>(loc, rewriter.getI32Type(), adaptor.getIndex());
      Value warp = rewriter.create<LLVM::UDivOp>(loc, e.linearThreadId(), e.i32(kWarpSize));
      Value header = e.i32(buffer::kBlockHeaderBytes);
      Value slotOffset = rewriter.create<LLVM::MulOp>(loc, warp, e.i32(buffer::kWriteIndexBytes));
      Value offset = rewriter.create<LLVM::AddOp>(loc, header, slotOffset);
      rewriter.create<LLVM::StoreOp>(loc, index, e.byteOffset(block, offset));
      if (shared && !barrier) copyOwnRing(e, alloc, block, segment, index);
    });
    if (barrier) rewriter.create<NVVM::Barrier0Op>(loc);
    if (shared && barrier) {
      e.ifThen(isZero(e, e.linearThreadId()),
               [&] { e.store(e.globalTimerNs(), block, buffer::kPreFinalizeTimeOffset); });
      Value rings = getSharedRecords(e, alloc, ringsBytes(alloc));
      Value data = e.byteOffset(block, buffer::IndexedHeaderBytes(alloc.getNumWarps()));
      copyWordsCooperatively(e, rings, data, ringsBytes(alloc) / buffer::kWordBytes);
      rewriter.create<NVVM::Barrier0Op>(loc);
      e.ifThen(isZero(e, e.linearThreadId()),
               [&] { e.store(e.globalTimerNs(), block, buffer::kPostFinalizeTimeOffset); });
    } else {
      e.ifThen(isZero(e, e.linearThreadId()), [&] {
        e.store(e.globalTimerNs(), block, buffer::kPreFinalizeTimeOffset);
        e.store(e.globalTimerNs(), block, buffer::kPostFinalizeTimeOffset);
      });
    }
    rewriter.eraseOp(op);
    return success();
  }

 private:
  // The words this warp wrote, at most a ring, to the same offset in the block's data.
  static void copyOwnRing(DeviceEmitter &e, SegmentAllocOp alloc, Value block, Value segment,
                          Value index) {
    OpBuilder &b = e.builder();
    Location loc = alloc.getLoc();
    Value rings = getSharedRecords(e, alloc, ringsBytes(alloc));
    Value segmentAddress = b.create<LLVM::PtrToIntOp>(loc, b.getI64Type(), segment);
    Value ringsAddress = b.create<LLVM::PtrToIntOp>(loc, b.getI64Type(), rings);
    Value ringOffset = b.create<LLVM::SubOp>(loc, segmentAddress, ringsAddress);
    Value header = e.i64(buffer::IndexedHeaderBytes(alloc.getNumWarps()));
    Value offset = b.create<LLVM::AddOp>(loc, header, ringOffset);
    Value ringWords = e.i32(alloc.getType().getBytes() / buffer::kWordBytes);
    Value wrapped = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::uge, index, ringWords);
    Value words = b.create<LLVM::SelectOp>(loc, wrapped, ringWords, index);
    copyWords(e, segment, e.byteOffset(block, offset), words);
  }
};

class ConvertProtonGPUToLLVMPass
    : public impl::ConvertProtonGPUToLLVMBase<ConvertProtonGPUToLLVMPass> {
 public:
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    TypeConverter converter;
    converter.addConversion([](Type type) { return type; });
    converter.addConversion([context](SegmentType segment) {
      return LLVM::LLVMPointerType::get(context, segment.getShared() ? kSharedAddressSpace : 1);
    });

    ConversionTarget target(*context);
    target.addIllegalDialect<ProtonGPUDialect>();
    target.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect, scf::SCFDialect>();

    RewritePatternSet patterns(context);
    patterns
        .add<GlobalScratchAllocLowering, InitializeLowering, SegmentAllocLowering,
             InitBufferIndexLowering, ReadCounterLowering, CircularStoreLowering, FinalizeLowering>(
            converter, context);
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};

}  // namespace

}  // namespace mlir::protoninstrument
