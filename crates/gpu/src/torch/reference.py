"""The trusted reference process of a task whose reference is a PyTorch module.

It runs the task author's module, never a candidate's code: it is started with the module file's
SHA-256 as the task loaded it and refuses to start when the file is another (or not a regular
file), and Python is started isolated (`-I`: no current folder, no PYTHONPATH, no user site on
the import path). It owns no buffer: the harness allocates every input and output, draws the
inputs, and hands them over; this process reads the inputs and writes the outputs in place.

Buffers are handed over as
  {"name": N, "dtype": "f32", "shape": [...], "file": PATH, "offset": BYTES}  (CPU: a shared file)
  {"name": N, "dtype": "f32", "shape": [...], "ipc": HEX, "offset": BYTES}    (CUDA: an IPC handle)

Protocol: one JSON request per line on standard input, one JSON answer per line on standard
output ({"ok": ...} or {"error": "why"}):
  {"op": "bind", "buffers": [...], "scalars": {...}}
                      the buffers of one size: the forward's inputs, the module's parameters drawn
                      by the harness (by the task's names), the outputs, and the integer arguments
                      of the forward; replaces any earlier binding
  {"op": "forward"}   one eager forward pass, its result written into the outputs
  {"op": "time"}      one forward pass replayed from a CUDA graph (captured at the first `time`
                      of a binding, after a warm-up), timed alone between two events on this
                      process's stream; answers {"ok": {"seconds": S}} with the outputs written.
                      The harness has made the L2 cold and drawn the inputs just before.
  {"op": "precision", "tolerances": {"out": [A, R], ...}}
                      after a forward: the module again in double precision on copies of the
                      bound inputs and parameters; answers where its outputs differ most from the
                      forward's, {"worst": |own - double| / (A + R |double|), "output", "index",
                      "own", "double"} (an infinite worst is "inf", a value not finite null)
  {"op": "release"}   drops the binding and closes every IPC handle (before the harness frees them);
                      on a GPU, empties PyTorch's cache
  {"op": "quit"}

Usage: python -I reference.py --module FILE --sha256 HEX --class NAME [--init JSON]
       [--state JSON] [--device cpu|cuda:N] [--forward-names JSON] [--output-names JSON] [--compile]
"""

import argparse
import ctypes
import functools
import hashlib
import importlib.util
import json
import os
import stat
import sys

DTYPES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "i32": "int32", "i64": "int64"}


class Refused(Exception):
    pass


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_module_file(path, expected):
    """The file must be a regular file whose hash is the one the task was loaded with."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise Refused(f"{path}: {e.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise Refused(f"{path}: not a regular file")
    got = sha256_of(path)
    if got != expected.lower():
        raise Refused(f"{path}: its SHA-256 is {got}, not the task's {expected}: not the task's reference")


def load_module(path, cls):
    spec = importlib.util.spec_from_file_location("aorlta_torch_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    model_cls = getattr(module, cls, None)
    if model_cls is None:
        raise Refused(f"{path}: no class `{cls}`")
    return model_cls


def open_ipc(torch, handle_hex, offset, nbytes, device, opened):
    """A CUDA allocation of another process, as a byte tensor (cudaIpcOpenMemHandle); a handle is
    opened once and kept in `opened` until `release`."""
    cudart = _cudart(torch)
    base = opened.get(handle_hex)
    if base is None:
        # cudaIpcMemHandle_t is a 64-byte struct passed by value: a bare ctypes array would be
        # passed as a pointer to it, and the runtime would read the pointer as the handle.
        handle = IpcMemHandle.from_buffer_copy(bytes.fromhex(handle_hex))
        ptr = ctypes.c_void_p()
        torch.cuda.set_device(device)
        # cudaIpcMemLazyEnablePeerAccess = 1
        err = cudart.cudaIpcOpenMemHandle(ctypes.byref(ptr), handle, ctypes.c_uint(1))
        if err != 0:
            raise Refused(f"cudaIpcOpenMemHandle failed with error {err}")
        base = opened[handle_hex] = ptr.value

    class Region:
        __cuda_array_interface__ = {
            "shape": (nbytes,),
            "typestr": "|u1",
            "data": (base + offset, False),
            "version": 3,
        }

    return torch.as_tensor(Region(), device=f"cuda:{device}")


def close_ipc(torch, opened):
    if not opened:
        return
    torch.cuda.synchronize()
    cudart = _cudart(torch)
    for base in opened.values():
        cudart.cudaIpcCloseMemHandle(ctypes.c_void_p(base))
    opened.clear()


class IpcMemHandle(ctypes.Structure):
    """cudaIpcMemHandle_t: `char reserved[64]`."""

    _fields_ = [("reserved", ctypes.c_char * 64)]


@functools.lru_cache(maxsize=None)
def _cudart(torch):
    """libcudart as torch loaded it, with the prototypes of the calls made here."""
    import glob

    lib_dirs = [os.path.join(os.path.dirname(torch.__file__), "lib")]
    lib_dirs += glob.glob(os.path.join(os.path.dirname(os.path.dirname(torch.__file__)), "nvidia", "*", "lib"))
    for d in lib_dirs:
        for f in sorted(glob.glob(os.path.join(d, "libcudart.so*"))):
            return _prototyped(ctypes.CDLL(f))
    return _prototyped(ctypes.CDLL("libcudart.so"))


def _prototyped(lib):
    lib.cudaIpcOpenMemHandle.argtypes = [ctypes.POINTER(ctypes.c_void_p), IpcMemHandle, ctypes.c_uint]
    lib.cudaIpcOpenMemHandle.restype = ctypes.c_int
    lib.cudaIpcCloseMemHandle.argtypes = [ctypes.c_void_p]
    lib.cudaIpcCloseMemHandle.restype = ctypes.c_int
    return lib


class Reference:
    def __init__(self, torch, model, device, forward_names, output_names, state):
        self.torch = torch
        self.model = model
        self.device = device
        self.forward_names = forward_names
        self.output_names = output_names
        self.state = state  # task buffer name -> module attribute path
        self.bound = None
        self.scalars = {}
        self.opened = {}  # IPC handle -> base address in this process
        self.graph = None
        self.graph_results = None
        self.warm = False

    def tensor(self, b):
        torch = self.torch
        dtype = getattr(torch, DTYPES[b["dtype"]])
        shape = [int(d) for d in b["shape"]]
        n = 1
        for d in shape:
            n *= d
        elem = torch.empty((), dtype=dtype).element_size()
        nbytes = n * elem
        offset = int(b.get("offset", 0))
        if "file" in b:
            size = os.stat(b["file"]).st_size
            if offset + nbytes > size:
                raise Refused(f"buffer `{b['name']}` reaches past the end of its file")
            raw = torch.from_file(b["file"], shared=True, size=size, dtype=torch.uint8)
            region = raw[offset : offset + nbytes]
        elif "ipc" in b:
            region = open_ipc(torch, b["ipc"], offset, nbytes, self.device.index or 0, self.opened)
        else:
            raise Refused(f"buffer `{b['name']}` has neither `file` nor `ipc`")
        return region.view(dtype).reshape(shape)

    def bind(self, buffers, scalars):
        tensors = {b["name"]: self.tensor(b) for b in buffers}
        scalars = {k: int(v) for k, v in (scalars or {}).items()}
        known = set(tensors) | set(scalars)
        missing = [n for n in self.forward_names + self.output_names + list(self.state) if n not in known]
        if missing:
            raise Refused(f"no buffer for {', '.join(missing)}")
        # The module's parameters become the harness's buffers, in place.
        for name, attr in self.state.items():
            owner = self.model
            *path, last = attr.split(".")
            for p in path:
                owner = getattr(owner, p)
            current = getattr(owner, last)
            t = tensors[name]
            if tuple(current.shape) != tuple(t.shape):
                raise Refused(f"buffer `{name}` has shape {list(t.shape)}, `{attr}` {list(current.shape)}")
            current.data = t
        key = sorted((n, t.data_ptr(), tuple(t.shape)) for n, t in tensors.items())
        if self.bound is None or key != self.bound_key or scalars != self.scalars:
            self.graph = None
            self.graph_results = None
        self.bound = tensors
        self.bound_key = key
        self.scalars = scalars
        return {"bound": sorted(tensors)}

    def release(self):
        self.bound = None
        self.graph = None
        self.graph_results = None
        if self.device.type == "cuda":
            close_ipc(self.torch, self.opened)
            # What the forward and its graph left in PyTorch's cache goes back to the driver: a
            # process kept idle between jobs holds its context and module, not the last set's
            # temporaries, which the jobs beside it on the GPU may need.
            self.torch.cuda.empty_cache()
        return {"released": True}

    def run_forward(self):
        """The module's forward on the bound inputs: its output tensors, checked against the
        task's outputs (count and length)."""
        torch = self.torch
        args = [self.bound[n] if n in self.bound else self.scalars[n] for n in self.forward_names]
        result = self.model(*args)
        results = [result] if isinstance(result, torch.Tensor) else list(result)
        if len(results) != len(self.output_names):
            raise Refused(f"the forward returned {len(results)} tensors, the task has {len(self.output_names)} outputs")
        for name, r in zip(self.output_names, results):
            dest = self.bound[name]
            if r.numel() != dest.numel():
                raise Refused(f"output `{name}`: the forward gave {r.numel()} elements, the buffer holds {dest.numel()}")
        return results

    def copy_outputs(self, results):
        """The forward's results into the harness's output buffers."""
        for name, r in zip(self.output_names, results):
            dest = self.bound[name]
            dest.copy_(r.reshape(dest.shape))

    def run_into_outputs(self):
        self.copy_outputs(self.run_forward())

    def precision(self, tolerances):
        """The module again in double precision, on copies of the bound inputs and parameters,
        against the outputs the last forward wrote in the module's own precision: where they
        differ most, in units of each output's tolerance (`tolerances`: name -> [atol, rtol]),
        |own - double| / (atol + rtol |double|)."""
        if self.bound is None:
            raise Refused("precision before bind")
        torch = self.torch
        import copy

        with torch.no_grad():
            model = copy.deepcopy(getattr(self.model, "_orig_mod", self.model)).double()
            args = []
            for n in self.forward_names:
                if n in self.bound:
                    t = self.bound[n]
                    args.append(t.double() if t.is_floating_point() else t)
                else:
                    args.append(self.scalars[n])
            result = model(*args)
        results = [result] if isinstance(result, torch.Tensor) else list(result)
        worst = {"worst": 0.0, "output": self.output_names[0], "index": 0, "own": None, "double": None}
        for name, r in zip(self.output_names, results):
            got = self.bound[name]
            if not got.is_floating_point() or name not in tolerances:
                continue
            atol, rtol = (float(v) for v in tolerances[name])
            own = got.reshape(-1).double()
            exact = r.reshape(-1).double()
            ratio = (own - exact).abs() / (atol + rtol * exact.abs())
            finite_own, finite_exact = torch.isfinite(own), torch.isfinite(exact)
            same = (own == exact) | (torch.isnan(own) & torch.isnan(exact))
            ratio = torch.where(~finite_own & ~finite_exact & same, torch.zeros_like(ratio), ratio)
            ratio = torch.where(finite_own != finite_exact, torch.full_like(ratio, float("inf")), ratio)
            ratio = torch.nan_to_num(ratio, nan=float("inf"))
            if ratio.numel() == 0:
                continue
            i = int(torch.argmax(ratio))
            w = float(ratio[i])
            if worst["own"] is None or w > worst["worst"]:
                worst = {"worst": w, "output": name, "index": i, "own": float(own[i]), "double": float(exact[i])}
        del model, result, results
        # JSON has no infinity nor NaN: an infinite worst is "inf", a value that is not finite null.
        for k in ("worst", "own", "double"):
            v = worst[k]
            if v is not None and v != v:
                worst[k] = None
            elif v is not None and v in (float("inf"), float("-inf")):
                worst[k] = "inf" if k == "worst" else None
        return worst

    def forward(self):
        if self.bound is None:
            raise Refused("forward before bind")
        torch = self.torch
        with torch.no_grad():
            self.run_into_outputs()
        self.warm = True
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
        return {"outputs": self.output_names}

    def time(self):
        if self.bound is None:
            raise Refused("time before bind")
        torch = self.torch
        if self.device.type != "cuda":
            import time

            t0 = time.perf_counter()
            with torch.no_grad():
                self.run_into_outputs()
            return {"seconds": time.perf_counter() - t0}
        if self.graph is None:
            # Warm-up (a compiled module compiles here, outside any timing), then the capture.
            side = torch.cuda.Stream(self.device)
            side.wait_stream(torch.cuda.current_stream(self.device))
            with torch.cuda.stream(side), torch.no_grad():
                for _ in range(2):
                    self.run_into_outputs()
            torch.cuda.current_stream(self.device).wait_stream(side)
            # The graph holds the forward alone: its results land in the graph's own tensors,
            # copied into the harness's outputs after the stop event, so the module's time is
            # not charged with a copy of its output that a kernel writing in place never makes.
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph), torch.no_grad():
                self.graph_results = self.run_forward()
            self.graph = graph
            torch.cuda.synchronize(self.device)
        stream = torch.cuda.current_stream(self.device)
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record(stream)
        self.graph.replay()
        stop.record(stream)
        with torch.no_grad():
            self.copy_outputs(self.graph_results)
        torch.cuda.synchronize(self.device)
        return {"seconds": start.elapsed_time(stop) / 1000.0}


def serve(ref, stdin, stdout):
    for line in stdin:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
            op = req.get("op")
            if op == "quit":
                break
            if op == "bind":
                answer = {"ok": ref.bind(req["buffers"], req.get("scalars"))}
            elif op == "forward":
                answer = {"ok": ref.forward()}
            elif op == "time":
                answer = {"ok": ref.time()}
            elif op == "release":
                answer = {"ok": ref.release()}
            elif op == "precision":
                answer = {"ok": ref.precision(req["tolerances"])}
            else:
                answer = {"error": f"unknown op {op!r}"}
        except Refused as e:
            answer = {"error": str(e)}
        except Exception as e:  # the module's own failure: an answer, not a crash
            answer = {"error": f"{type(e).__name__}: {e}"}
        stdout.write(json.dumps(answer) + "\n")
        stdout.flush()


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--module", required=True)
    ap.add_argument("--sha256", required=True)
    ap.add_argument("--class", dest="cls", default="Model")
    ap.add_argument("--init", default="[]")
    ap.add_argument("--state", default="{}")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--forward-names", required=True)
    ap.add_argument("--output-names", default='["out"]')
    ap.add_argument("--compile", action="store_true")
    args = ap.parse_args(argv)
    import time

    took = {}
    last = [time.perf_counter()]

    def mark(step):
        now = time.perf_counter()
        took[step] = now - last[0]
        last[0] = now

    try:
        check_module_file(args.module, args.sha256)
        import torch

        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        device = torch.device(args.device)
        model_cls = load_module(args.module, args.cls)
        mark("load")
        torch.manual_seed(0)
        model = model_cls(*json.loads(args.init))
        mark("construct")
        model = model.to(device)
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        mark("to_device")
        model.eval()
        if args.compile:
            model = torch.compile(model)
        ref = Reference(
            torch, model, device, json.loads(args.forward_names), json.loads(args.output_names), json.loads(args.state)
        )
    except Refused as e:
        sys.stdout.write(json.dumps({"error": str(e)}) + "\n")
        return 2
    ready = {"ready": True, "torch": torch.__version__, "device": str(device), "seconds": took}
    sys.stdout.write(json.dumps({"ok": ready}) + "\n")
    sys.stdout.flush()
    serve(ref, sys.stdin, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
