# Writes the test data beside it on a GPU machine with Triton 3.6 and PyTorch: Triton's raw
# instrumentation host buffer for one launch (host_buffer_<tag>.bin) and Proton's own tree for it
# (tree_<tag>.hatchet). Usage: python3 capture_triton36_buffers.py MODE TAG ITERS [OUT_DIR]
#   default a 3                      -> triton36_loop_* (renamed by hand)
#   default:buffer_size=256 w 20     -> triton36_wrapped_* (rings wrap)
import os, sys, json, shutil, glob, struct
out = sys.argv[4] if len(sys.argv) > 4 else os.environ.get("OUT", ".")
import triton, triton.language as tl, torch
import triton.profiler as proton
import triton.profiler.language as pl
pl.enable_semantic("triton")
print("triton", triton.__version__)
d = os.path.dirname(proton.__file__)
from triton.profiler.hooks.instrumentation import InstrumentationHook
print("enable_host_buffer" in dir(InstrumentationHook))
InstrumentationHook.enable_host_buffer = True

@triton.jit
def kern(x_ptr, y_ptr, n, ITERS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    pl.enter_scope("outer")
    for i in range(ITERS):
        pl.enter_scope("load")
        v = tl.load(x_ptr + offs, mask=offs < n)
        pl.exit_scope("load")
        acc += v * 1.5
    pl.exit_scope("outer")
    tl.store(y_ptr + offs, acc, mask=offs < n)

n = 4 * 512
x = torch.randn(n, device="cuda"); y = torch.empty_like(x)
mode = sys.argv[1]; tag = sys.argv[2]; iters = int(sys.argv[3])
proton.start(os.path.join(out, "tree_" + tag), backend="instrumentation", mode=mode)
kern[(4,)](x, y, n, ITERS=iters, BLOCK=512, num_warps=4)
torch.cuda.synchronize()
hb = InstrumentationHook.host_buffer
proton.finalize()
if hb is not None:
    b = bytes(hb.numpy().tobytes())
    open(os.path.join(out, "host_buffer_" + tag + ".bin"), "wb").write(b)
    print("host buffer bytes", len(b), "header words", struct.unpack("<9I", b[:36]))
for f in glob.glob(os.path.expanduser("~/.triton/cache/**/kern.json"), recursive=True):
    shutil.copy(f, os.path.join(out, "kern_" + tag + ".json"))
print(open(os.path.join(out, "tree_" + tag + ".hatchet")).read()[:4000])
