#!/usr/bin/env python3
"""The house rule of one direction inside a crate: no import cycle between sibling modules, at
any level of any crate under crates/ (test files and `#[cfg(test)]` parts are not counted).

A file's module path comes from its place; a reference `crate::a::b::c` or `super::x` is
resolved to the module it names, and counts as an edge between the two siblings under the
modules' common parent. Prints each crate's cycles and exits 1 when there is any.

Usage: scripts/module-cycles.py [WORKSPACE_ROOT]"""
import os, re, sys
root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
def modpath(rel):
    p = rel[:-3].split(os.sep)
    if p[-1] in ('mod', 'lib', 'main'): p = p[:-1]
    return tuple(p)
found = False
for crate in sorted(os.listdir(os.path.join(root, 'crates'))):
    src = os.path.join(root, 'crates', crate, 'src')
    if not os.path.isdir(src): continue
    mods = {}
    for dp, dn, fn in os.walk(src):
        for f in fn:
            if not f.endswith('.rs'): continue
            if f == 'tests.rs' or f.endswith('_tests.rs') or f.endswith('_reference.rs'): continue
            rel = os.path.relpath(os.path.join(dp, f), src)
            mods[modpath(rel)] = os.path.join(dp, f)
    allmods = set(mods)
    edges = {}
    for m, path in mods.items():
        text = open(path).read()
        i = text.find('#[cfg(test)]')
        if i >= 0: text = text[:i]
        text = '\n'.join(l for l in text.split('\n') if not l.strip().startswith('//'))
        refs = []
        for r in re.findall(r'\bcrate((?:::[a-z_0-9]+)+)', text):
            refs.append(tuple(r.split('::')[1:]))
        # super:: relative to m (file module): super of m is m[:-1]
        for r in re.findall(r'\b((?:super::)+)([a-z_0-9]+(?:::[a-z_0-9]+)*)', text):
            ups = r[0].count('super')
            base = m[:-ups] if ups <= len(m) else ()
            refs.append(base + tuple(r[1].split('::')))
        for ref in refs:
            # longest prefix that is a module
            t = None
            for k in range(len(ref), 0, -1):
                if ref[:k] in allmods: t = ref[:k]; break
            if not t or t == m: continue
            # common parent; edge between the children of it on each side
            c = 0
            while c < min(len(m), len(t)) and m[c] == t[c]: c += 1
            if c >= len(m) or c >= len(t): continue  # ancestor/descendant
            a, b = m[:c+1], t[:c+1]
            edges.setdefault(a, set()).add(b)
    idx = {}; low = {}; st = []; on = set(); comps = []; cnt = [0]
    sys.setrecursionlimit(10000)
    def sc(v):
        idx[v] = low[v] = cnt[0]; cnt[0] += 1; st.append(v); on.add(v)
        for w in edges.get(v, ()):
            if w not in idx: sc(w); low[v] = min(low[v], low[w])
            elif w in on: low[v] = min(low[v], idx[w])
        if low[v] == idx[v]:
            comp = []
            while True:
                w = st.pop(); on.discard(w); comp.append(w)
                if w == v: break
            if len(comp) > 1: comps.append(sorted('::'.join(x) for x in comp))
    nodes = set(edges) | {w for s in edges.values() for w in s}
    for v in sorted(nodes):
        if v not in idx: sc(v)
    if comps:
        found = True
        print(f"{crate}: import cycle: {'; '.join(' <-> '.join(c) for c in comps)}")
if found:
    sys.exit(1)
print("no import cycle inside a crate")
