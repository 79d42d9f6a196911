#!/usr/bin/env python3
"""KernelBench's own timing of a kernel candidate and of the problem's module, on one GPU.

To set AORLTA's speedup of a kernel against torch eager (`aorlta timecheck`, `aorlta score`) side
by side with the figure KernelBench's harness would give the same kernel: this script loads the
timing functions of the user's KernelBench checkout (`src/kernelbench/timing.py`: warm-up
launches, then trials each between CUDA events after its L2 flush, on the inputs of one
`get_inputs()` call, all trials on the same inputs) and times

  - the problem's `Model` (eager), built with `get_init_inputs()`, on `get_inputs()` on the GPU;
  - the candidate's kernel (the task's `.cu`, compiled here with `nvcc --cubin`), launched through
    the driver on the same tensors with the task's parameter order and geometry (its
    `aorlta_launch` when it defines one, else the task's default grid and block).

It prints both means and medians, KernelBench's speedup (reference mean / candidate mean) and
whether the kernel's output matched the module's (KernelBench's check: atol = rtol = 1e-2).

Run with the Python that has torch, on a machine with a GPU:

    python scripts/kernelbench_timing.py --kernelbench KERNELBENCH_CHECKOUT \\
        --task runs/kernelbench-l1/kernelbench_l1_19_relu.yaml \\
        --candidate examples/kernelbench-l1/candidates/kernelbench_l1_19_relu/fast.cu [--json OUT]

The task's kernel parameters must be the forward's tensors, the module's parameters, one output
and `int` size variables that the problem file defines (level 1's single-kernel tasks); other
tasks are refused, naming why. Nothing of KernelBench is copied: its file is read from the
checkout given.
"""

import argparse
import ctypes
import importlib.util
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

import torch

CUDA_SUCCESS = 0


def fail(message):
    print(f"kernelbench_timing: {message}", file=sys.stderr)
    sys.exit(2)


def load_file(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def task_fields(path):
    """The signature, the reference's file and class, the default grid and block of a task file
    as `aorlta task import` writes it (read by pattern: no YAML library is needed)."""
    text = open(path).read()
    sig = re.search(r"^signature: (.+)$", text, re.M)
    ref = re.search(r"^  torch: (.+):(\w+)$", text, re.M)
    if not sig or not ref:
        fail(f"{path}: no `signature:` or `reference: torch:` line (not an imported task?)")

    def axes(key):
        m = re.search(rf"^{key}:\n((?:- .+\n){{3}})", text, re.M)
        if not m:
            fail(f"{path}: no `{key}:` of three expressions")
        return [line[2:].strip().strip("'\"") for line in m.group(1).splitlines()]

    problem = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(path)), ref.group(1)))
    return sig.group(1).strip(), problem, ref.group(2), axes("grid"), axes("block")


def parameters(signature):
    """(name, kernel name, [(type, name)]) of `void NAME(T a, ...)`."""
    m = re.match(r"void\s+(\w+)\s*\((.*)\)$", signature)
    if not m:
        fail(f"signature `{signature}` is not `void NAME(...)`")
    params = []
    for p in m.group(2).split(","):
        p = p.strip()
        name = re.findall(r"\w+", p)[-1]
        params.append(("pointer" if "*" in p else ("int64" if "long long" in p else "int32"), name))
    return m.group(1), params


def evaluate(expr, env):
    """A grid or block expression of the task (integers, size variables, + - * / %, ceil_div,
    min, max)."""
    code = compile(expr.replace("/", "//"), "<expr>", "eval")
    allowed = {"ceil_div": lambda a, b: -(-a // b), "min": min, "max": max}
    return int(eval(code, {"__builtins__": {}}, {**allowed, **env}))


class Driver:
    """The few CUDA driver calls a launch needs, in torch's context and on torch's stream."""

    def __init__(self):
        self.lib = ctypes.CDLL("libcuda.so.1")

    def check(self, rc, what):
        if rc != CUDA_SUCCESS:
            fail(f"{what} failed with CUDA error {rc}")

    def load(self, cubin):
        module = ctypes.c_void_p()
        self.check(self.lib.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(cubin)), "cuModuleLoadData")
        return module

    def function(self, module, name):
        f = ctypes.c_void_p()
        self.check(self.lib.cuModuleGetFunction(ctypes.byref(f), module, name.encode()), f"cuModuleGetFunction {name}")
        return f

    def launch_symbol(self, module):
        """The 7 values of `aorlta_launch`, or None where the source defines none."""
        ptr, size = ctypes.c_uint64(), ctypes.c_size_t()
        rc = self.lib.cuModuleGetGlobal_v2(ctypes.byref(ptr), ctypes.byref(size), module, b"aorlta_launch")
        if rc != CUDA_SUCCESS:
            return None
        values = (ctypes.c_uint32 * 7)()
        self.check(self.lib.cuMemcpyDtoH_v2(values, ptr, ctypes.c_size_t(28)), "cuMemcpyDtoH aorlta_launch")
        return list(values)

    def launch(self, f, grid, block, shared, stream, args):
        holders = [ctypes.c_uint64(a) if t == "pointer" else (ctypes.c_int64(a) if t == "int64" else ctypes.c_int32(a)) for t, a in args]
        pointers = (ctypes.c_void_p * len(holders))(*[ctypes.cast(ctypes.byref(h), ctypes.c_void_p) for h in holders])
        self.check(
            self.lib.cuLaunchKernel(
                f, *[ctypes.c_uint(v) for v in grid], *[ctypes.c_uint(v) for v in block],
                ctypes.c_uint(shared), ctypes.c_void_p(stream), pointers, None,
            ),
            "cuLaunchKernel",
        )


def entry_name(cubin_path, kernel):
    """The mangled name of `kernel` in the cubin (C++ linkage)."""
    cuobjdump = shutil.which("cuobjdump") or "/usr/local/cuda/bin/cuobjdump"
    out = subprocess.run([cuobjdump, "-symbols", cubin_path], capture_output=True, text=True, check=True).stdout
    names = [l.split()[-1] for l in out.splitlines() if "STO_ENTRY" in l]
    wanted = [n for n in names if f"{len(kernel)}{kernel}" in n or n == kernel]
    if len(wanted) != 1:
        fail(f"no single entry named {kernel} in the cubin (entries: {names})")
    return wanted[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernelbench", required=True, help="a KernelBench checkout (its src/kernelbench/timing.py is used)")
    ap.add_argument("--task", required=True, help="the task file `aorlta task import kernelbench` wrote")
    ap.add_argument("--candidate", required=True, help="the kernel source (.cu)")
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--json", help="write the figures here")
    a = ap.parse_args()

    timing_py = os.path.join(a.kernelbench, "src", "kernelbench", "timing.py")
    if not os.path.exists(timing_py):
        fail(f"{timing_py}: not found (give the root of a KernelBench checkout)")
    kb = load_file("kernelbench_timing_functions", timing_py)
    signature, problem_file, cls, grid_exprs, block_exprs = task_fields(a.task)
    kernel, params = parameters(signature)
    problem = load_file("kernelbench_problem", problem_file)

    torch.manual_seed(0)
    device = torch.device("cuda:0")
    model = getattr(problem, cls)(*problem.get_init_inputs()).to(device).eval()
    inputs = [x.to(device) if isinstance(x, torch.Tensor) else x for x in problem.get_inputs()]
    with torch.no_grad():
        expected = model(*inputs)
    if not isinstance(expected, torch.Tensor):
        fail("the module returns more than one tensor")
    out = torch.empty_like(expected)

    # The kernel's arguments: the forward's tensors by position, the module's parameters by their
    # task names (`conv1.weight` is `conv1_weight`), the output, the problem's size variables.
    forward = list(model.forward.__code__.co_varnames[1 : 1 + len(inputs)])
    state = {n.replace(".", "_"): p for n, p in model.named_parameters()}
    env = {k: v for k, v in vars(problem).items() if isinstance(v, int) and not isinstance(v, bool)}
    args, pointers_seen = [], 0
    n_pointers = sum(1 for t, _ in params if t == "pointer")
    for t, name in params:
        if t == "pointer":
            pointers_seen += 1
            if name in forward:
                tensor = inputs[forward.index(name)]
            elif name in state:
                tensor = state[name].data
            elif pointers_seen == n_pointers:
                tensor = out
            else:
                fail(f"pointer `{name}` is neither an input, a parameter nor the last (output) pointer")
            if not tensor.is_contiguous():
                fail(f"`{name}` is not contiguous")
            args.append((t, tensor.data_ptr()))
        elif name in env:
            args.append((t, env[name]))
        else:
            fail(f"size `{name}` is not a variable of {problem_file}")

    work = tempfile.mkdtemp(prefix="kb-timing-")
    cubin = os.path.join(work, "k.cubin")
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    subprocess.run([nvcc, "--cubin", "-arch=sm_90", "-O3", "-o", cubin, a.candidate], check=True)
    drv = Driver()
    torch.cuda.synchronize()
    module = drv.load(open(cubin, "rb").read())
    f = drv.function(module, entry_name(cubin, kernel))
    launch = drv.launch_symbol(module)
    if launch is not None:
        grid, block, shared = launch[0:3], launch[3:6], launch[6]
    else:
        grid = [evaluate(e, env) for e in grid_exprs]
        block = [evaluate(e, env) for e in block_exprs]
        shared = 0

    def candidate(*_):
        drv.launch(f, grid, block, shared, torch.cuda.current_stream().cuda_stream, args)
        return out

    with torch.no_grad():
        candidate()
        torch.cuda.synchronize()
        matched = bool(torch.allclose(out, expected, atol=1e-2, rtol=1e-2))
        ref_ms = kb.time_execution_with_cuda_event(model, inputs, num_warmup=a.warmup, num_trials=a.trials, verbose=False, device=device)
        cand_ms = kb.time_execution_with_cuda_event(candidate, [], num_warmup=a.warmup, num_trials=a.trials, verbose=False, device=device)
    ref_stats = kb.get_timing_stats(ref_ms, device=device)
    cand_stats = kb.get_timing_stats(cand_ms, device=device)
    result = {
        "task": os.path.basename(a.task),
        "candidate": a.candidate,
        "gpu": torch.cuda.get_device_name(device),
        "grid": grid,
        "block": block,
        "matched_kernelbench_tolerance": matched,
        "reference_ms": ref_stats,
        "candidate_ms": cand_stats,
        "reference_median_ms": statistics.median(ref_ms),
        "candidate_median_ms": statistics.median(cand_ms),
        "kernelbench_speedup": ref_stats["mean"] / cand_stats["mean"] if cand_stats["mean"] > 0 else math.nan,
        "median_speedup": statistics.median(ref_ms) / statistics.median(cand_ms),
        "trials": a.trials,
    }
    print(
        f"{result['task']}: {a.candidate}: KernelBench's timing (cuda_event, {a.trials} trials, L2 flushed, same inputs): "
        f"module mean {ref_stats['mean']:.4g} ms, kernel mean {cand_stats['mean']:.4g} ms, speedup {result['kernelbench_speedup']:.3f} "
        f"(medians: {result['median_speedup']:.3f}); output {'matches' if matched else 'does NOT match'} at atol = rtol = 1e-2"
    )
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(result, fh, indent=1)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
