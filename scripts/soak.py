#!/usr/bin/env python3
"""A soak benchmark for `aorlta serve`: hours of distinct Q&A and kernel items (kernels on the
fake device, so no GPU is needed), sampling the service's memory (VmRSS), that of its harness
processes (its child processes, summed) and its work folder (files and bytes, where compiled
code objects live) as it goes, to show all stay flat.

    scripts/soak.py --binary target/release/aorlta --minutes 60 [--samples 12]

Every item is distinct (a new completion each time), so nothing is answered from the cache or
shared: the memory cache, the compile cache and the seed counters all keep filling, and only
their bounds keep the service flat. Loopback only; it stops by itself.
"""

import argparse
import http.client
import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def rss_kib(pid: int) -> int:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def children_rss_kib(pid: int) -> int:
    """The resident memory of every process under ``pid`` (its harness processes), summed."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            kids = [int(k) for t in os.listdir(f"/proc/{p}/task") for k in open(f"/proc/{p}/task/{t}/children").read().split()]
        except OSError:
            continue
        for k in kids:
            try:
                total += rss_kib(k)
            except OSError:
                continue
            todo.append(k)
    return total


def folder(path: pathlib.Path):
    files = size = 0
    for p in path.rglob("*"):
        if p.is_file():
            files += 1
            size += p.stat().st_size
    return files, size


def post(conn, body):
    data = json.dumps(body).encode()
    conn.request("POST", "/v1/score", body=data, headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    resp.read()
    return resp.status


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=str(ROOT / "target" / "release" / "aorlta"))
    ap.add_argument("--minutes", type=float, default=60.0)
    ap.add_argument("--samples", type=int, default=12)
    ap.add_argument("--cache-entries", type=int, default=20000)
    ap.add_argument("--pause", type=float, default=0.05, help="seconds between two requests of each load thread")
    args = ap.parse_args()
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="aorlta-soak-"))
    work = tmp / "work"
    k = ROOT / "examples" / "kernels"
    q = ROOT / "examples" / "qa"
    (tmp / "serve.yaml").write_text(
        f"tasks: [{q / 'tasks.jsonl'}, {k / 'tasks'}]\n"
        f"profiles: [{q / 'profile.yaml'}, {k / 'profile.yaml'}]\n"
        f"cache: {{kind: memory, max-entries: {args.cache_entries}}}\n"
        f"gpus: [0]\nwork-dir: {work}\nkernel: {{fake-gpu: true, lease-dir: {tmp / 'leases'}}}\n"
        "lanes:\n  qa: {workers: 1, queue-items: 8192, item-timeout: 10s}\n"
        "  kernel: {workers: 1, queue-items: 64, item-timeout: 150s}\n"
    )
    ready = tmp / "addr"
    proc = subprocess.Popen(
        [args.binary, "serve", "--config", str(tmp / "serve.yaml"), "--bind", "127.0.0.1:0", "--ready-file", str(ready)],
        stdout=subprocess.DEVNULL,
        env={**os.environ, "RUST_LOG": "warn"},
    )
    while not ready.exists():
        if proc.poll() is not None:
            print("aorlta serve exited before listening", file=sys.stderr)
            return 1
        time.sleep(0.05)
    host, port = ready.read_text().strip().split(":")
    reference = (k / "reference" / "vector_add.cu").read_text()
    tasks = [json.loads(l)["id"] for l in (q / "tasks.jsonl").read_text().splitlines() if l.strip()]
    stop = time.monotonic() + args.minutes * 60
    sent = {"qa": 0, "kernel": 0, "non200": 0}

    def qa_load():
        conn = http.client.HTTPConnection(host, int(port), timeout=60)
        n = 0
        while time.monotonic() < stop:
            items = [{"task": tasks[(n + i) % len(tasks)], "completion": f"step {n + i}: \\boxed{{{n + i}}}"} for i in range(64)]
            n += 64
            if post(conn, {"profile": "qa", "items": items}) != 200:
                sent["non200"] += 1
            sent["qa"] += 64
            time.sleep(args.pause)

    def kernel_load():
        conn = http.client.HTTPConnection(host, int(port), timeout=300)
        n = 0
        while time.monotonic() < stop:
            items = [
                {"task": "vector_add", "completion": f"```cuda\n{reference}\n// soak {n + i}\n```\n"} for i in range(4)
            ]
            n += 4
            if post(conn, {"profile": "kernels", "items": items}) != 200:
                sent["non200"] += 1
            sent["kernel"] += 4
            time.sleep(args.pause)

    threads = [threading.Thread(target=f, daemon=True) for f in (qa_load, kernel_load)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    print(f"aorlta soak: {args.minutes:g} min, distinct Q&A and kernel items (fake device), memory cache of {args.cache_entries}")
    print(f"{'min':>6} {'qa items':>10} {'kernel items':>13} {'rss MiB':>8} {'harness MiB':>12} {'work files':>11} {'work MiB':>9}")
    rows = []
    every = args.minutes * 60 / args.samples
    for s in range(args.samples + 1):
        target = t0 + s * every
        while time.monotonic() < target:
            time.sleep(0.5)
        files, size = folder(work)
        row = (
            (time.monotonic() - t0) / 60, sent["qa"], sent["kernel"], rss_kib(proc.pid) / 1024, files, size / 2**20,
            children_rss_kib(proc.pid) / 1024,
        )
        rows.append(row)
        print(f"{row[0]:6.1f} {row[1]:10d} {row[2]:13d} {row[3]:8.1f} {row[6]:12.1f} {row[4]:11d} {row[5]:9.2f}", flush=True)
    for t in threads:
        t.join(timeout=330)
    proc.send_signal(signal.SIGTERM)
    code = proc.wait(timeout=60)
    half = [r for r in rows if r[0] >= args.minutes / 2]
    first = [r for r in rows if r[0] < args.minutes / 2 and r[0] > 0]
    if half and first:
        print(
            f"rss MiB: max {max(r[3] for r in first):.1f} in the first half, {max(r[3] for r in half):.1f} in the second; "
            f"harness MiB: max {max(r[6] for r in first):.1f} then {max(r[6] for r in half):.1f}; "
            f"work files: max {max(r[4] for r in first)} then {max(r[4] for r in half)}; non-200 answers: {sent['non200']}; exit {code}"
        )
    return 0 if code == 0 and sent["non200"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
