"""The parent of the reference processes: Python with torch imported once, forking one child per
module instead of starting Python and importing torch anew for each (about two seconds of a
CPU each time).

It is started isolated (`python -I zygote.py`) by the harness, imports torch and nothing else,
and never runs anything of torch: no tensor, no CUDA context, no thread pool exists in it, so a
fork of it is what a fresh interpreter would be once torch is imported. Each child connects to
the Unix socket the harness listens on, makes it its standard input and output, and runs
reference.py as `__main__` with the arguments given; from then on it is the reference process
of reference.py's docstring, a process of its own. Children are reaped by the kernel (SIGCHLD is
ignored here, and set back to its default in each child).

Protocol: one JSON request per line on standard input, one JSON answer per line on standard
output ({"ok": ...} or {"error": "why"}); the first line is {"ok": {"ready": true, "torch": V}}.
  {"op": "spawn", "script": PATH, "argv": [...], "cwd": DIR, "stderr": PATH, "connect": SOCKET}
                      forks a reference process; answers {"ok": {"pid": N}}
  {"op": "quit"}      (or the end of standard input) exits; the children keep running until
                      their own sockets close
"""

import json
import os
import runpy
import signal
import socket
import sys


def child(req):
    """Becomes the reference process; never returns."""
    code = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(req["connect"])
        os.dup2(s.fileno(), 0)
        os.dup2(s.fileno(), 1)
        s.close()
        err = os.open(req["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(err, 2)
        os.close(err)
        os.chdir(req["cwd"])
        # The parent's stream objects may hold its requests read ahead: new ones over the new fds.
        sys.stdin = open(0, "r", encoding="utf-8", closefd=False)
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
        sys.stderr = open(2, "w", encoding="utf-8", buffering=1, closefd=False)
        sys.argv = [req["script"], *req["argv"]]
        runpy.run_path(req["script"], run_name="__main__")
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:
        import traceback

        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BaseException:
            pass
        os._exit(code)


def main():
    import torch

    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    out = sys.stdout
    out.write(json.dumps({"ok": {"ready": True, "torch": torch.__version__}}) + "\n")
    out.flush()
    while True:
        line = sys.stdin.readline()
        if not line:
            return 0
        try:
            req = json.loads(line)
        except ValueError as e:
            out.write(json.dumps({"error": f"not JSON: {e}"}) + "\n")
            out.flush()
            continue
        if req.get("op") == "quit":
            return 0
        if req.get("op") != "spawn":
            out.write(json.dumps({"error": f"unknown op {req.get('op')!r}"}) + "\n")
            out.flush()
            continue
        try:
            pid = os.fork()
        except OSError as e:
            out.write(json.dumps({"error": f"fork: {e}"}) + "\n")
            out.flush()
            continue
        if pid == 0:
            child(req)
        out.write(json.dumps({"ok": {"pid": pid}}) + "\n")
        out.flush()


if __name__ == "__main__":
    sys.exit(main())
