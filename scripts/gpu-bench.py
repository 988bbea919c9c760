"""The CUDA backend's benchmark table, run by scripts/gpu-check.sh on a GPU machine.

Every rate is a fraction of the HBM bandwidth measured in the same run by a device-to-device
copy (aclrtMemcpyAsync, bytes read + written over its time). A row's bytes are the ideal
traffic of its problem (each input read once, each output written once), so PyTorch's column
is PyTorch's time for the same problem against the same bytes. PyTorch's rows for gradients
are its autograd step (forward + backward), which is what its users run for a gradient.

Usage: python3 scripts/gpu-bench.py LIBOPENACLNN [--max-n 1e9]
"""
import argparse
import ctypes
import sys

import torch
import torch.nn.functional as F

c_void_p, c_i64, c_u64, c_int = ctypes.c_void_p, ctypes.c_int64, ctypes.c_uint64, ctypes.c_int
ACL = {torch.float32: 0, torch.float16: 1, torch.bfloat16: 27}
NAMES = {torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16"}
DEVICE = "cuda"  # where PyTorch allocates; "cpu" lets the ctypes side be tried on the CPU backend


class Acl:
    """The few C API calls the benchmark makes, through ctypes."""

    def __init__(self, path):
        self.lib = lib = ctypes.CDLL(path)
        lib.aclGetRecentErrMsg.restype = ctypes.c_char_p
        lib.aclCreateTensor.restype = c_void_p
        lib.aclCreateTensor.argtypes = [ctypes.POINTER(c_i64), c_u64, c_int,
                                        ctypes.POINTER(c_i64), c_i64, c_int,
                                        ctypes.POINTER(c_i64), c_u64, c_void_p]
        lib.aclrtEventElapsedTime.argtypes = [ctypes.POINTER(ctypes.c_float), c_void_p, c_void_p]
        for name in ("aclrtRecordEvent", "aclrtSynchronizeStream", "aclrtSynchronizeEvent",
                     "aclDestroyTensor", "aclSetAclOpExecutorRepeatable",
                     "aclDestroyAclOpExecutor"):
            getattr(lib, name).argtypes = [c_void_p] * (2 if name == "aclrtRecordEvent" else 1)
        lib.aclrtMemcpyAsync.argtypes = [c_void_p, ctypes.c_size_t, c_void_p, ctypes.c_size_t,
                                         c_int, c_void_p]
        self.check(lib.aclInit(None), "aclInit")
        self.check(lib.aclrtSetDevice(0), "aclrtSetDevice")
        self.stream = c_void_p()
        self.check(lib.aclrtCreateStream(ctypes.byref(self.stream)), "aclrtCreateStream")
        self.events = [c_void_p(), c_void_p()]
        for event in self.events:
            self.check(lib.aclrtCreateEvent(ctypes.byref(event)), "aclrtCreateEvent")

    def check(self, status, what):
        if status != 0:
            sys.exit(f"{what} failed: {status} {self.lib.aclGetRecentErrMsg().decode()}")

    def tensor(self, t):
        shape = (c_i64 * t.dim())(*t.shape)
        strides = (c_i64 * t.dim())(*t.stride())
        return self.lib.aclCreateTensor(shape, t.dim(), ACL[t.dtype], strides, 0, 2, shape,
                                        t.dim(), c_void_p(t.data_ptr()))

    def seconds(self, launch, reps):
        """Mean seconds of launch() on our stream, timed by events around `reps` launches."""
        launch()
        self.check(self.lib.aclrtSynchronizeStream(self.stream), "synchronize")
        self.lib.aclrtRecordEvent(self.events[0], self.stream)
        for _ in range(reps):
            launch()
        self.lib.aclrtRecordEvent(self.events[1], self.stream)
        self.check(self.lib.aclrtSynchronizeEvent(self.events[1]), "aclrtSynchronizeEvent")
        ms = ctypes.c_float()
        self.check(self.lib.aclrtEventElapsedTime(ctypes.byref(ms), *self.events), "elapsed")
        return ms.value / 1e3 / reps

    def op(self, name, args, reduction, out):
        """A repeatable executor of op `name` and a launcher for its phase 2."""
        lib = self.lib
        phase1 = getattr(lib, name + "GetWorkspaceSize")
        phase1.argtypes = [c_void_p] * len(args) + [c_i64, c_void_p, ctypes.POINTER(c_u64),
                                                    ctypes.POINTER(c_void_p)]
        tensors = [self.tensor(a) if a is not None else None for a in args]
        out_tensor = self.tensor(out)
        size, executor = c_u64(), c_void_p()
        self.check(phase1(*tensors, reduction, out_tensor, ctypes.byref(size),
                          ctypes.byref(executor)), name)
        self.check(lib.aclSetAclOpExecutorRepeatable(executor), "repeatable")
        workspace = torch.empty(max(size.value, 1), dtype=torch.uint8, device=DEVICE)
        phase2 = getattr(lib, name)
        phase2.argtypes = [c_void_p, c_u64, c_void_p, c_void_p]
        keep = (tensors, out_tensor, workspace, executor)

        def launch():
            self.check(phase2(c_void_p(workspace.data_ptr()), size, executor, self.stream), name)
        launch.keep = keep  # the tensors live as long as the launcher
        return launch


def torch_seconds(fn, reps):
    fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / 1e3 / reps


def hbm_bandwidth(acl):
    n = 1 << 30  # 4 GiB of fp32 each way, far beyond the L2
    src = torch.ones(n, device=DEVICE)
    dst = torch.empty_like(src)
    nbytes = n * 4

    def copy():
        acl.check(acl.lib.aclrtMemcpyAsync(c_void_p(dst.data_ptr()), nbytes,
                                           c_void_p(src.data_ptr()), nbytes, 3, acl.stream),
                  "aclrtMemcpyAsync")
    return 2 * nbytes / acl.seconds(copy, 10)


def problems(n, dtype):
    x = (torch.randn(n, device=DEVICE) * 4).to(dtype)
    t = torch.rand(n, device=DEVICE).to(dtype)
    return x, t


ROWS = [  # (label, op, dtype, reduction)
    ("forward none", "forward", torch.float32, 0),
    ("forward mean", "forward", torch.float32, 1),
    ("grad self none", "grad_self", torch.float32, 0),
    ("grad target none", "grad_target", torch.float32, 0),
    ("forward none", "forward", torch.float16, 0),
    ("forward none", "forward", torch.bfloat16, 0),
    ("grad self none", "grad_self", torch.bfloat16, 0),
    ("step: forward mean + grad self", "step", torch.float32, 1),
]


def measure(acl, label, op, dtype, reduction, n):
    x, t = problems(n, dtype)
    size = x.element_size()
    g = torch.randn(n, device=DEVICE).to(dtype) if reduction == 0 else torch.ones(1, device=DEVICE, dtype=dtype)
    reps = max(3, min(200, int(2e9 // (n * size * 4))))
    mode = ["none", "mean", "sum"][reduction]
    if op == "forward":
        out = torch.empty(n if reduction == 0 else 1, device=DEVICE, dtype=dtype)
        launches = [acl.op("aclnnBinaryCrossEntropyWithLogits", [x, t, None, None], reduction, out)]
        nbytes = n * size * (3 if reduction == 0 else 2)
        ref = lambda: F.binary_cross_entropy_with_logits(x, t, reduction=mode)
    else:
        grad = torch.empty(n, device=DEVICE, dtype=dtype)
        name = {"grad_self": "aclnnBinaryCrossEntropyWithLogitsBackward",
                "grad_target": "aclnnBinaryCrossEntropyWithLogitsTargetBackward",
                "step": "aclnnBinaryCrossEntropyWithLogitsBackward"}[op]
        launches = [acl.op(name, [g, x, t, None, None], reduction, grad)]
        nbytes = n * size * (4 if reduction == 0 else 3)
        if op == "step":
            loss = torch.empty(1, device=DEVICE, dtype=dtype)
            launches.insert(0, acl.op("aclnnBinaryCrossEntropyWithLogits", [x, t, None, None], 1, loss))
            nbytes += n * size * 2
        leaf = x.detach().clone().requires_grad_(op != "grad_target")
        target = t.detach().clone().requires_grad_(op == "grad_target")

        def ref():
            leaf.grad = target.grad = None  # a fresh step, not an accumulation
            y = F.binary_cross_entropy_with_logits(leaf, target, reduction=mode)
            y.backward(g if reduction == 0 else None)
    ours = acl.seconds(lambda: [launch() for launch in launches], reps)
    theirs = torch_seconds(ref, reps)
    return nbytes, ours, theirs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("library")
    parser.add_argument("--max-n", type=float, default=1e9)
    args = parser.parse_args()
    acl = Acl(args.library)
    bandwidth = hbm_bandwidth(acl)
    torch.cuda.empty_cache()
    print(f"HBM bandwidth (device-to-device copy, read + write): {bandwidth / 1e12:.2f} TB/s")
    print(f"{'problem':34} {'dtype':5} {'N':>6} {'ours us':>10} {'ours/HBM':>9} "
          f"{'torch us':>10} {'torch/HBM':>9}")
    n = 1e6
    while n <= args.max_n:
        for label, op, dtype, reduction in ROWS:
            nbytes, ours, theirs = measure(acl, label, op, dtype, reduction, int(n))
            print(f"{label:34} {NAMES[dtype]:5} {n:6.0e} {ours * 1e6:10.1f} "
                  f"{nbytes / ours / bandwidth:9.2f} {theirs * 1e6:10.1f} "
                  f"{nbytes / theirs / bandwidth:9.2f}", flush=True)
            torch.cuda.empty_cache()
        n *= 10


if __name__ == "__main__":
    main()
