# The Triton compile driver. AORLTA runs it in the compile sandbox (its own folder, no network,
# a read-only toolkit, limits), as `python -I triton_compile.py`, in a folder holding only
# `job.json` (written by AORLTA) and `kernel.py` (the source to compile).
#
# This process never imports the source: it forks a child that does (the first process of a PID
# namespace of its own where the host allows one, so that every process the source starts ends
# with it), waits for it up to the job's deadline, kills it past that, and exits with its status.
# The child imports Triton, then the source (whatever it runs at import runs there, with its
# output thrown away), compiles the kernel for the job's target and writes `kernel.cubin` and
# `meta.json`, or `error.json` on a failure of the source's making. Everything the child writes
# is the source's to write: AORLTA checks the code object and bounds every number of the
# metadata before anything runs on a GPU.

import json
import os
import sys
import time


def fail(kind, message):
    with open("error.json", "w") as f:
        json.dump({"kind": kind, "message": str(message)[:2000]}, f)
    os._exit(3)


def child(job):
    # Nothing the source prints is read.
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    import importlib.util

    import triton
    import triton.language as tl  # noqa: F401  (the source's own import finds it loaded)
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.runtime.jit import JITFunction

    name = job["name"]
    try:
        spec = importlib.util.spec_from_file_location("kernel", "kernel.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["kernel"] = module
        spec.loader.exec_module(module)
    except BaseException as e:  # the source's own failure, whatever it raised
        fail("import", f"importing the source raised {type(e).__name__}: {e}")
    fn = getattr(module, name, None)
    # `@triton.autotune` and `@triton.heuristics` wrap the function; the launch is chosen by
    # data (`aorlta_launch`), not by timing at launch.
    seen = 0
    while fn is not None and not isinstance(fn, JITFunction) and hasattr(fn, "fn") and seen < 8:
        fn, seen = fn.fn, seen + 1
    if not isinstance(fn, JITFunction):
        fail("kernel-not-found", f"the source defines no @triton.jit function `{name}`")
    params = [p.name for p in fn.params if not p.is_constexpr]
    constexpr_params = [p.name for p in fn.params if p.is_constexpr]
    wanted = [p["name"] for p in job["params"]]
    if params != wanted:
        fail(
            "signature",
            f"`{name}` takes ({', '.join(params)}) besides its constexprs; the task's signature "
            f"is ({', '.join(wanted)}), in this order",
        )
    bound = job["constexprs"]
    unknown = [c for c in constexpr_params if c not in bound]
    if unknown:
        fail(
            "signature",
            f"constexpr parameter(s) {', '.join(unknown)} are not bound by the task "
            f"(it binds {', '.join(bound) or 'none'})",
        )
    launch = getattr(module, "aorlta_launch", None)
    if launch is None:
        launch = {}
    if not isinstance(launch, dict):
        fail("launch", "`aorlta_launch` must be a dict")
    chosen = {k: v[0] for k, v in bound.items()}
    num_warps, num_stages = job["num_warps"][0], job["num_stages"][0]
    grid = None
    for key, value in launch.items():
        if key == "grid":
            if not (isinstance(value, (list, tuple)) and len(value) == 3):
                fail("launch", "`aorlta_launch['grid']` must be three expressions")
            grid = [str(v) for v in value]
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            fail("launch", f"`aorlta_launch['{key}']` must be an integer")
        if key == "num_warps":
            allowed = job["num_warps"]
        elif key == "num_stages":
            allowed = job["num_stages"]
        elif key in bound:
            allowed = bound[key]
        else:
            fail("launch", f"`aorlta_launch` sets `{key}`, which the task does not bind")
        if value not in allowed:
            fail("launch", f"`aorlta_launch['{key}']` is {value}; the task allows {allowed}")
        if key == "num_warps":
            num_warps = value
        elif key == "num_stages":
            num_stages = value
        else:
            chosen[key] = value
    signature = {p["name"]: p["type"] for p in job["params"]}
    for c in constexpr_params:
        signature[c] = "constexpr"
    constexprs = {c: chosen[c] for c in constexpr_params}
    index = {p.name: i for i, p in enumerate(fn.params)}
    # The harness's buffers start 64 KiB into allocations the driver aligns to 256 bytes.
    attrs = {(index[p["name"]],): [["tt.divisibility", 16]] for p in job["params"] if p["type"].startswith("*")}
    try:
        compiled = triton.compile(
            ASTSource(fn, signature=signature, constexprs=constexprs, attrs=attrs),
            target=GPUTarget("cuda", job["arch"], 32),
            options={"num_warps": num_warps, "num_stages": num_stages},
        )
    except BaseException as e:
        fail("compile", f"{type(e).__name__}: {e}")
    md = compiled.metadata
    ptx = compiled.asm.get("ptx", "")
    entry = ptx.find(".entry")
    entry_params = ptx[entry : ptx.find(")", entry)].count(".param") if entry >= 0 else -1
    meta = {
        "name": md.name,
        "triton_version": triton.__version__,
        "num_warps": md.num_warps,
        "num_stages": md.num_stages,
        "num_ctas": md.num_ctas,
        "shared": md.shared,
        "global_scratch_size": md.global_scratch_size,
        "profile_scratch_size": getattr(md, "profile_scratch_size", 0),
        "launch_cooperative_grid": bool(getattr(md, "launch_cooperative_grid", False)),
        "launch_pdl": bool(getattr(md, "launch_pdl", False)),
        "tmem_size": getattr(md, "tmem_size", 0),
        "constexprs": chosen,
        "grid": grid,
        "entry_params": entry_params,
    }
    with open("kernel.cubin", "wb") as f:
        f.write(compiled.asm["cubin"])
    with open("meta.json", "w") as f:
        json.dump(meta, f)
    os._exit(0)


def main():
    with open("job.json") as f:
        job = json.load(f)
    # The interpreter runs by its real path: a virtual environment's import path comes from
    # the probe AORLTA made of it.
    sys.path[:] = job["paths"]
    deadline = time.monotonic() + job["deadline_s"]
    pid = os.fork()
    if pid == 0:
        try:
            child(job)
        except BaseException as e:
            try:
                fail("driver", f"{type(e).__name__}: {e}")
            finally:
                os._exit(4)
        os._exit(0)
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            sys.exit(124)
        time.sleep(0.005)
    if os.WIFSIGNALED(status):
        os.kill(os.getpid(), os.WTERMSIG(status))
    sys.exit(os.WEXITSTATUS(status))


if __name__ == "__main__":
    main()
