"""What a PyTorch reference module computes, read in a trusted process: the problem's inputs,
parameters and outputs with their shapes, element types and input laws, at the problem's own
sizes and at smaller ones for correctness.

The file read here is a task author's (a KernelBench problem, or a task written in that format):
it is trusted as a reference is, and it is never a candidate's. Nothing the problem draws is
computed at its own size: `torch.rand`, `torch.randn` and `torch.randint` (and their `_like`
forms) are replaced while `get_inputs` runs by functions that record the law and return tensors
on PyTorch's `meta` device, which carry shapes and types and no data, and the module's forward
runs on `meta` too. The smaller correctness sizes are computed for real, on the CPU, to show
the module runs there; where this torch has a GPU, the problem's own size is computed there too
(`--timed-device`), one probe at a time. Each real size reports its outputs' scale (root mean
square), from which the importer sizes the absolute tolerance.

Usage: python probe.py FILE... [--class Model] [--budget ELEMENTS] [--timed-device auto|cuda|none]
Prints one JSON line per file, as it is read: {"file": FILE, "ok": {...}} or {"file": FILE,
"refused": "why"}.
"""

import argparse
import contextlib
import fcntl
import importlib.util
import inspect
import json
import math
import os
import sys
import tempfile

import torch
import torch.overrides

# Element types a task's buffers can have, by torch dtype.
DTYPES = {
    torch.float32: "f32",
    torch.float16: "f16",
    torch.bfloat16: "bf16",
    torch.int32: "i32",
    torch.int64: "i64",
}

# Correctness sizes aim at this many elements in all inputs together (computed on a CPU), and
# never exceed the cap (a size variable cannot go below 1; what the module is built with stays).
DEFAULT_BUDGET = 1 << 18
MAX_CORRECTNESS_ELEMENTS = 1 << 24

# Parameters larger than this are not drawn as task inputs (a problem of level 1 has none).
MAX_PARAMETER_ELEMENTS = 1 << 28


class Refused(Exception):
    """The problem cannot become a task; the message says why, for the import report."""


class Draws:
    """Replaces PyTorch's random tensor constructors while a problem's `get_inputs` runs: each
    call records its law and returns a `meta` tensor of the asked shape (or, when `real` is set,
    a real CPU tensor drawn from a fixed generator)."""

    NAMES = ("rand", "randn", "randint", "rand_like", "randn_like", "randint_like")

    def __init__(self, real, device="cpu"):
        self.real = real
        self.device = device
        self.laws = {}
        self.saved = {}
        self.generator = torch.Generator(device=device).manual_seed(0)

    def __enter__(self):
        for name in self.NAMES:
            self.saved[name] = getattr(torch, name)
            setattr(torch, name, getattr(self, "_" + name))
        self.scaling = Scaling(self.laws)
        self.scaling.__enter__()
        return self

    def __exit__(self, *exc):
        self.scaling.__exit__(*exc)
        for name, fn in self.saved.items():
            setattr(torch, name, fn)
        return False

    def _make(self, shape, dtype, law, draw):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list, torch.Size)):
            shape = tuple(shape[0])
        shape = tuple(int(d) for d in shape)
        if self.real:
            t = draw(shape)
        else:
            t = torch.empty(shape, dtype=dtype, device="meta")
        self.laws[id(t)] = law
        return t

    def _rand(self, *shape, dtype=None, **_):
        dtype = dtype or torch.get_default_dtype()
        return self._make(
            shape,
            dtype,
            {"kind": "uniform", "lo": 0.0, "hi": 1.0},
            lambda s: self.saved["rand"](s, dtype=dtype, generator=self.generator, device=self.device),
        )

    def _randn(self, *shape, dtype=None, **_):
        dtype = dtype or torch.get_default_dtype()
        return self._make(
            shape,
            dtype,
            {"kind": "normal", "mean": 0.0, "std": 1.0},
            lambda s: self.saved["randn"](s, dtype=dtype, generator=self.generator, device=self.device),
        )

    def _randint(self, *args, dtype=None, **kwargs):
        # randint(high, size) or randint(low, high, size)
        if "size" in kwargs:
            args = args + (kwargs.pop("size"),)
        if len(args) == 2:
            low, high, size = 0, args[0], args[1]
        elif len(args) == 3:
            low, high, size = args
        else:
            raise Refused("torch.randint called in a form the probe does not read")
        dtype = dtype or torch.int64
        return self._make(
            (tuple(size),),
            dtype,
            # The task's integer uniform law includes both ends.
            {"kind": "uniform", "lo": float(low), "hi": float(high) - 1.0},
            lambda s: self.saved["randint"](low, high, s, dtype=dtype, generator=self.generator, device=self.device),
        )

    def _rand_like(self, t, dtype=None, **_):
        return self._rand(*t.shape, dtype=dtype or t.dtype)

    def _randn_like(self, t, dtype=None, **_):
        return self._randn(*t.shape, dtype=dtype or t.dtype)

    def _randint_like(self, t, *args, dtype=None, **_):
        return self._randint(*args, tuple(t.shape), dtype=dtype or t.dtype)


class Scaling(torch.overrides.TorchFunctionMode):
    """While `get_inputs` runs: a product of a uniform draw with values in [lo, hi], lo >= 0, and a
    positive number or a single uniform draw (a 0-d tensor) with values in [a, b], a >= 0 (KernelBench's
    `torch.rand(shape) * scale` with `scale = torch.rand(())`), gets the law uniform in
    [lo * a, hi * b]: the domain its values lie in. Its typical draw is not KernelBench's (that is
    uniform below a scale drawn once), but every value the problem can draw is in it, and the
    corners the correctness leg draws cover the rest."""

    MUL = ("mul", "__mul__", "__rmul__")

    def __init__(self, laws):
        super().__init__()
        self.laws = laws

    def span(self, v):
        if isinstance(v, bool):
            return None
        if isinstance(v, (int, float)):
            return (float(v), float(v)) if v > 0 else None
        if isinstance(v, torch.Tensor):
            law = self.laws.get(id(v))
            if law and law["kind"] == "uniform" and law["lo"] >= 0.0:
                return (law["lo"], law["hi"])
        return None

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if getattr(func, "__name__", "") in self.MUL and len(args) == 2 and not kwargs:
            a, b = args
            tensors = [t for t in (a, b) if isinstance(t, torch.Tensor)]
            scalar_side = [t for t in (a, b) if not isinstance(t, torch.Tensor) or t.dim() == 0]
            sa, sb = self.span(a), self.span(b)
            if isinstance(out, torch.Tensor) and tensors and scalar_side and sa and sb:
                self.laws[id(out)] = {"kind": "uniform", "lo": sa[0] * sb[0], "hi": sa[1] * sb[1]}
        return out


def load(path):
    name = "aorlta_reference_problem_" + str(abs(hash(path)))
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise Refused(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name in ("get_inputs", "get_init_inputs"):
        if not callable(getattr(module, name, None)):
            raise Refused(f"no {name}() in the file")
    return module


def names_used(fn, module, seen=None):
    """The module-level names a function reads, following the module's own functions."""
    seen = set() if seen is None else seen
    code = fn.__code__
    stack = [code]
    while stack:
        c = stack.pop()
        for n in c.co_names:
            if n in seen:
                continue
            seen.add(n)
            v = getattr(module, n, None)
            if inspect.isfunction(v) and v.__module__ == module.__name__:
                names_used(v, module, seen)
        stack.extend(k for k in c.co_consts if hasattr(k, "co_names"))
    return seen


def size_variables(module):
    """The integer globals `get_inputs` reads and `get_init_inputs` does not: the sizes a task may
    change (what the module is built with stays as the problem has it)."""
    used = names_used(module.get_inputs, module)
    fixed = names_used(module.get_init_inputs, module)
    out = {}
    for n in sorted(used - fixed):
        v = getattr(module, n, None)
        if isinstance(v, int) and not isinstance(v, bool) and v > 0:
            out[n] = v
    return out


def call_inputs(module, sizes, real, device="cpu"):
    saved = {n: getattr(module, n) for n in sizes}
    for n, v in sizes.items():
        setattr(module, n, v)
    try:
        with Draws(real, device) as draws:
            inputs = list(module.get_inputs())
        return inputs, draws.laws
    finally:
        for n, v in saved.items():
            setattr(module, n, v)


def dtype_name(t, what):
    name = DTYPES.get(t.dtype)
    if name is None:
        raise Refused(f"{what}: element type {t.dtype} has no task dtype")
    return name


def describe_inputs(inputs, laws, params):
    """Each forward input as a buffer or a scalar."""
    out = []
    for i, v in enumerate(inputs):
        name = params[i] if i < len(params) else f"arg{i}"
        if isinstance(v, torch.Tensor):
            law = laws.get(id(v))
            if law is None:
                raise Refused(
                    f"input `{name}` is computed from a draw (not torch.rand/randn/randint itself): "
                    "its law is not one a task can state"
                )
            out.append(
                {"name": name, "kind": "buffer", "dtype": dtype_name(v, name), "shape": list(v.shape), "init": law}
            )
        elif isinstance(v, bool):
            raise Refused(f"input `{name}` is a bool")
        elif isinstance(v, int):
            out.append({"name": name, "kind": "scalar", "dtype": "i64", "value": v})
        elif isinstance(v, float):
            out.append({"name": name, "kind": "scalar", "dtype": "f32", "value": v})
        else:
            raise Refused(f"input `{name}` is a {type(v).__name__}")
    return out


def parameter_law(t):
    """A law for a parameter or buffer the harness draws: the span of the values the module was
    built with (PyTorch's default initialisations are uniform), or, for a constant c (a
    normalisation's weight of ones, a bias of zeros), [c/2, 3c/2] keeping its sign, or [-1/2, 1/2]
    for zero: a kernel that assumes the constant fails."""
    t = t.detach()
    lo, hi = float(t.min()), float(t.max())
    if hi - lo > 1e-12:
        return {"kind": "uniform", "lo": lo, "hi": hi}
    if lo == 0.0:
        return {"kind": "uniform", "lo": -0.5, "hi": 0.5}
    a, b = 0.5 * lo, 1.5 * lo
    return {"kind": "uniform", "lo": min(a, b), "hi": max(a, b)}


def state_of(model):
    """Parameters and buffers, by name, as the forward reads them."""
    return list(model.named_parameters()) + list(model.named_buffers())


def written_by_forward(model, inputs):
    """The module's buffers a forward writes (BatchNorm's running statistics in training mode):
    state, not inputs; they are left out of the task."""
    before = {n: t.detach().clone() for n, t in model.named_buffers()}
    with torch.no_grad():
        model(*inputs)
    return {n for n, t in model.named_buffers() if not torch.equal(before[n], t)}


# Products a plan's `gemm` step computes (one matrix product, every operand 2-D after folding
# the left operand's leading dimensions into rows), by the name PyTorch calls them under.
PRODUCTS = ("linear", "matmul", "__matmul__", "__rmatmul__", "mm", "addmm", "bmm", "baddbmm", "einsum", "bilinear")


class Operators(torch.overrides.TorchFunctionMode):
    """Records the torch functions a forward calls (the outermost calls only: what the module
    itself writes): for each call that computes a new tensor (not a view, not a scalar), its name
    and the shape and element size of what it returns; for each matrix product, whether one
    `gemm` step computes it and which of the task's buffers are its operands (`names`: a tensor's
    id to its buffer name)."""

    def __init__(self, names):
        super().__init__()
        self.names = names
        self.ops = []
        self.values = []
        self.products = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        name = getattr(func, "__name__", "")
        results = out if isinstance(out, (tuple, list)) else (out,)
        # A view of an argument (or of what it views) computes nothing; a view of a tensor the
        # call made (instance_norm's reshaped result) does.
        given = [t for t in list(args) + list(kwargs.values()) if isinstance(t, torch.Tensor)]
        seen = {id(t) for t in given} | {id(t._base) for t in given if t._base is not None}
        fresh = [
            t
            for t in results
            if isinstance(t, torch.Tensor) and t.dim() >= 1 and (t._base is None or id(t._base) not in seen)
        ]
        if fresh:
            self.ops.append(name)
            for t in fresh:
                self.values.append([list(t.shape), t.element_size()])
        if name in PRODUCTS:
            self.products.append(self.product(name, args))
        return out

    def operand(self, t):
        """A product's operand as a task buffer: its name, and whether it is that buffer
        transposed (`w.T`, `w.t()`, `w.transpose(0, 1)` of a 2-D buffer)."""
        if not isinstance(t, torch.Tensor):
            return None, False
        if id(t) in self.names:
            return self.names[id(t)], False
        base = t._base
        if (
            base is not None
            and id(base) in self.names
            and t.dim() == 2
            and base.dim() == 2
            and list(t.shape) == list(base.shape)[::-1]
            and t.stride() == base.stride()[::-1]
        ):
            return self.names[id(base)], True
        return None, False

    def product(self, name, args):
        a, b = (args + (None, None))[:2]
        if name == "__rmatmul__":
            a, b = b, a
        if name == "addmm" or name == "baddbmm":
            a, b = (args + (None, None, None))[1:3]
        gemm = False
        trans_b = False
        if name == "linear":
            gemm, trans_b = True, True
        elif name in ("matmul", "__matmul__", "__rmatmul__", "mm", "addmm"):
            gemm = isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and b.dim() == 2 and a.dim() >= 1
        elif name in ("bmm", "baddbmm"):
            gemm = isinstance(a, torch.Tensor) and a.dim() == 3 and a.shape[0] == 1
        a_name, a_t = self.operand(a)
        b_name, b_t = self.operand(b)
        return {
            "op": name,
            "gemm": gemm,
            "a": a_name if not a_t else None,
            "b": b_name,
            "trans_b": trans_b != b_t,
        }


def outputs_of(result):
    if isinstance(result, torch.Tensor):
        return [("out", result)]
    if isinstance(result, (tuple, list)) and all(isinstance(r, torch.Tensor) for r in result):
        return [(f"out{i}", r) for i, r in enumerate(result)]
    raise Refused(f"forward returns a {type(result).__name__}, not tensors")


def shrink(sizes, elements_of, budget):
    """Smaller sizes for correctness: halve the largest size variable until the inputs hold at
    most `budget` elements, or every variable is 1; None when even that is over the cap."""
    small = dict(sizes)
    for _ in range(256):
        if elements_of(small) <= budget:
            return small
        big = max(small, key=lambda n: small[n])
        if small[big] <= 1:
            break
        small[big] = (small[big] + 1) // 2
    return small if elements_of(small) <= MAX_CORRECTNESS_ELEMENTS else None


def scale_of(t):
    """The root mean square of an output's values (None for integers, an empty output or one with
    a value that is not finite): what the importer sizes the absolute tolerance by."""
    if not t.is_floating_point() or t.numel() == 0:
        return None
    v = float(torch.linalg.vector_norm(t.float())) / math.sqrt(t.numel())
    return v if math.isfinite(v) else None


@contextlib.contextmanager
def gpu_turn():
    """One probe at a time computes a problem at its own size on the GPU (the imports run probes
    side by side; several problems of gigabytes each would not fit together)."""
    path = os.path.join(tempfile.gettempdir(), "aorlta-probe-gpu.lock")
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def probe(path, cls, budget, timed_device="none"):
    module = load(path)
    model_cls = getattr(module, cls, None)
    if not (inspect.isclass(model_cls) and issubclass(model_cls, torch.nn.Module)):
        raise Refused(f"no torch.nn.Module class `{cls}` in the file")
    with Draws(real=True):
        init = list(module.get_init_inputs())
    for v in init:
        if isinstance(v, torch.Tensor):
            raise Refused("get_init_inputs returns a tensor")
    forward_params = list(inspect.signature(model_cls.forward).parameters)[1:]

    torch.manual_seed(0)
    model = model_cls(*init)
    big_state = [(n, t) for n, t in state_of(model) if t.numel() > MAX_PARAMETER_ELEMENTS]
    if big_state:
        raise Refused(f"parameter `{big_state[0][0]}` has {big_state[0][1].numel()} elements")

    variables = size_variables(module)

    def input_elements(sizes):
        inputs, _ = call_inputs(module, sizes, real=False)
        return sum(t.numel() for t in inputs if isinstance(t, torch.Tensor))

    timed_inputs, timed_laws = call_inputs(module, variables, real=False)
    described = describe_inputs(timed_inputs, timed_laws, forward_params)

    # Which buffers the forward writes, found at the smallest size, for real.
    small = shrink(variables, input_elements, budget)
    if small is None:
        raise Refused(
            f"no size under {MAX_CORRECTNESS_ELEMENTS} input elements (the problem's sizes: {variables})"
        )
    small_inputs, _ = call_inputs(module, small, real=True)
    try:
        state_written = written_by_forward(model, small_inputs)
    except Exception as e:  # the problem's own code failed: the report says how
        raise Refused(f"forward fails on a CPU at {small}: {type(e).__name__}: {e}") from None
    state = []
    for n, t in state_of(model):
        if n in state_written or not t.is_floating_point() and n.endswith("num_batches_tracked"):
            continue
        state.append(
            {"name": n.replace(".", "_"), "module_name": n, "dtype": dtype_name(t, n), "shape": list(t.shape), "init": parameter_law(t)}
        )

    def shapes_at(sizes, real, device="cpu"):
        inputs, _ = call_inputs(module, sizes, real=real, device=device)
        run = model.to(device) if real else model.to("meta")
        names = {id(t): d["name"] for d, t in zip(described, inputs) if isinstance(t, torch.Tensor)}
        names.update({id(t): n.replace(".", "_") for n, t in state_of(run)})
        with torch.no_grad(), Operators(names) as seen:
            result = run(*inputs)
        shapes = {
            d["name"]: list(t.shape) for d, t in zip(described, inputs) if isinstance(t, torch.Tensor)
        }
        outs = outputs_of(result)
        scales = [scale_of(t) for _, t in outs] if real else None
        return shapes, [(n, t.dtype, list(t.shape)) for n, t in outs], seen, scales

    # Correctness sizes (computed for real) and the problem's own size (on meta, last).
    corrections = [small]
    odd = {n: (v | 1) if v > 2 else v for n, v in small.items()}
    if odd != small:
        corrections.append(odd)
    sizes = []
    for s in corrections:
        try:
            in_shapes, outs, seen, scales = shapes_at(s, real=True)
        except Exception as e:
            if s is small:
                raise Refused(f"forward fails on a CPU at {s}: {type(e).__name__}: {e}") from None
            continue
        sizes.append(
            {"vars": s, "inputs": in_shapes, "outputs": [o[2] for o in outs], "values": seen.values, "timed": False,
             "scales": scales}
        )
    # The outputs' scale at the problem's own size, computed on the GPU where this torch has one
    # (one probe at a time there); without one, the importer knows the correctness sizes' only.
    timed_scales = None
    if timed_device == "cuda":
        try:
            with gpu_turn():
                _, _, _, timed_scales = shapes_at(variables, real=True, device="cuda")
        except Exception:  # too large for the GPU, or the module fails there: the scale stays unknown
            pass
        finally:
            model.to("cpu")
            torch.cuda.empty_cache()
    try:
        in_shapes, outs, seen, _ = shapes_at(variables, real=False)
    except Exception as e:
        raise Refused(f"forward does not run on the meta device: {type(e).__name__}: {e}") from None
    sizes.append(
        {"vars": variables, "inputs": in_shapes, "outputs": [o[2] for o in outs], "values": seen.values, "timed": True,
         "scales": timed_scales}
    )
    outputs = [{"name": n, "dtype": dtype_name(torch.empty(0, dtype=dt), n)} for n, dt, _ in outs]
    return {
        "class": cls,
        "init": init,
        "forward": forward_params,
        "variables": variables,
        "inputs": described,
        "state": state,
        "outputs": outputs,
        "sizes": sizes,
        "ops": seen.ops,
        "products": seen.products,
    }


def probe_one(path, cls, budget, timed_device="none"):
    torch.set_default_dtype(torch.float32)
    torch.manual_seed(0)
    try:
        return {"file": path, "ok": probe(path, cls, budget, timed_device)}
    except Refused as e:
        return {"file": path, "refused": str(e)}
    except Exception as e:  # the problem's own code raised: reported, not a crash of the import
        return {"file": path, "refused": f"{type(e).__name__}: {e}"}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--class", dest="cls", default="Model")
    ap.add_argument("--budget", type=int, default=DEFAULT_BUDGET)
    ap.add_argument(
        "--timed-device",
        choices=["auto", "cuda", "none"],
        default="auto",
        help="where the problem is computed at its own size for its outputs' scale (auto: the GPU when torch has one)",
    )
    args = ap.parse_args(argv)
    timed_device = args.timed_device
    if timed_device == "auto":
        timed_device = "cuda" if torch.cuda.is_available() else "none"
    for path in args.files:
        result = probe_one(path, args.cls, args.budget, timed_device)
        json.dump(result, sys.stdout, default=lambda v: list(v) if isinstance(v, tuple) else str(v))
        sys.stdout.write("\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
