"""The text tables the Ray tools print: one row per worker of a service, and the plain
column layout they share. Kept apart so that ``cli`` (which runs ``bench``) and ``bench`` (which
prints them) both import it and neither imports the other."""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """The header and rows in columns two spaces apart, the first left-aligned, the rest right."""
    cells = [[str(h) for h in header]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    out = []
    for r in cells:
        out.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip())
    return "\n".join(out)


def workers_table(svc: Any, counters: Optional[Dict[str, Dict[str, float]]] = None) -> str:
    """One row per worker: where it runs, its GPUs, state, what it answered, and its store's
    hits and misses since it started (``-`` for a worker that no longer answers)."""
    counters = counters or {}
    rows = []
    for r in svc.router.summary_rows():
        c = counters.get(r["key"], {})
        rows.append([
            r["key"], r["url"], r["gpus"], r["state"], r["entries"], r["kernel_entries"], r["requests"], r["failures"],
            f"{c['aorlta_cache_hits_total']:.0f}" if c else "-", f"{c['aorlta_cache_misses_total']:.0f}" if c else "-",
        ])
    out = table(["WORKER", "URL", "GPUS", "STATE", "ENTRIES", "KERNEL", "REQUESTS", "FAILURES", "STORE HITS", "STORE MISSES"], rows)
    dead = [f"  {r['key']}: {r['dead_reason']}" for r in svc.router.summary_rows() if r["state"] == "dead"]
    return out + ("\ndead workers:\n" + "\n".join(dead) if dead else "")
