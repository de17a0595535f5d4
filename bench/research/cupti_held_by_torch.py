# What cuptiSubscribe_v2 returns, and which holder name it reports, while torch.profiler (Kineto)
# holds CUPTI in the same process. Research for issue 4; run with python3 on the GPU machine.
import torch, ctypes, sys
from torch.profiler import profile, ProfilerActivity
x = torch.ones(1024, device="cuda")
with profile(activities=[ProfilerActivity.CUDA]) as p:
    x.add_(1); torch.cuda.synchronize()
    lib = ctypes.CDLL("/usr/local/cuda/lib64/libcupti.so.13")
    class Params(ctypes.Structure):
        _fields_ = [("structSize", ctypes.c_size_t), ("subscriberName", ctypes.c_char_p),
                    ("oldSubscriberName", ctypes.c_char_p), ("oldSubscriberSize", ctypes.c_size_t)]
    holder = ctypes.create_string_buffer(256)
    params = Params(ctypes.sizeof(Params), b"protond", ctypes.cast(holder, ctypes.c_char_p), 256)
    handle = ctypes.c_void_p()
    rc = lib.cuptiSubscribe_v2(ctypes.byref(handle), None, None, ctypes.byref(params))
    print("while torch.profiler runs: cuptiSubscribe_v2 rc", rc, "holder", holder.value)
