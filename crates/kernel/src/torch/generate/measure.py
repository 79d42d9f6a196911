"""What a generated module computes and how large it is, read in the trusted process that
imports problems (next to `probe.py`, whose loader and draws it uses).

For each problem file: the bytes its forward reads and writes at the problem's own size (inputs,
parameters, outputs) and its floating-point operations (PyTorch's flop counter), both on the
`meta` device, with no data; and a fingerprint of what it computes: the SHA-256 of its output
shapes and values (three significant digits) at a batch of 3, from inputs drawn with a fixed
seed and the module built with a fixed seed. Two modules that compute the same function (say
`relu(relu(x))` and `relu(x)`) have the same fingerprint whatever their text.

Usage: python measure.py FILE...
Prints one JSON line per file: {"file", "bytes", "flops", "fingerprint"} or {"file", "error"}.
"""

import hashlib
import json
import sys

import torch

from probe import Draws, call_inputs, load, size_variables

FINGERPRINT_BATCH = 3
FINGERPRINT_VALUES = 4096


def elem_bytes(t):
    return t.numel() * t.element_size()


def measure(path):
    module = load(path)
    with Draws(real=True):
        init = list(module.get_init_inputs())
    variables = size_variables(module)
    torch.manual_seed(0)
    model = module.Model(*init)
    params = sum(elem_bytes(t) for t in list(model.parameters()) + list(model.buffers()))

    # Size at the timed shape, on meta.
    inputs, _ = call_inputs(module, variables, real=False)
    meta = module.Model(*init).to("meta")
    from torch.utils.flop_counter import FlopCounterMode

    counter = FlopCounterMode(display=False)
    with torch.no_grad(), counter:
        out = meta(*inputs)
    outs = out if isinstance(out, (tuple, list)) else [out]
    moved = params + sum(elem_bytes(t) for t in inputs if isinstance(t, torch.Tensor))
    moved += sum(elem_bytes(t) for t in outs)
    flops = int(counter.get_total_flops())

    # What it computes, at a small batch.
    small = {n: (min(v, FINGERPRINT_BATCH) if n == "batch_size" else v) for n, v in variables.items()}
    small_inputs, _ = call_inputs(module, small, real=True)
    with torch.no_grad():
        out = model(*small_inputs)
    outs = out if isinstance(out, (tuple, list)) else [out]
    h = hashlib.sha256()
    for t in outs:
        h.update(f"{t.dtype}{list(t.shape)}|".encode())
        flat = t.detach().double().flatten()[:FINGERPRINT_VALUES].tolist()
        h.update(",".join(f"{v:.3g}" for v in flat).encode())
    h.update(json.dumps(variables, sort_keys=True).encode())
    return {"file": path, "bytes": int(moved), "flops": flops, "fingerprint": h.hexdigest()}


def main(argv):
    torch.set_default_dtype(torch.float32)
    for path in argv:
        try:
            result = measure(path)
        except Exception as e:  # reported for this file, not a crash of the run
            result = {"file": path, "error": f"{type(e).__name__}: {e}"}
        json.dump(result, sys.stdout)
        sys.stdout.write("\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
