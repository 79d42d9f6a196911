#!/usr/bin/env python3
"""The house rules of one direction inside a crate, for every crate under crates/:

1. No import cycle between sibling modules, at any level (test files and `#[cfg(test)]` parts
   are not counted). A file's module path comes from its place; a reference `crate::a::b::c` or
   `super::x` is resolved to the module it names, and counts as an edge between the two siblings
   under the modules' common parent.
2. No module imports its crate's root: a module names a neighbour's item by the neighbour
   (`crate::env::KernelEnv`), never by what lib.rs (or main.rs) re-exports or defines
   (`crate::KernelEnv`, or `super::KernelEnv` from a module just under the root, or a glob
   `super::*` of the root). The root only lists the crate's modules and its public names. Test
   modules count too. Comments are not read, nor `$crate::` in an exported macro (a macro's
   path as its callers in other crates see it, where only the root's names are reachable).

Prints each crate's cycles and each upward import, and exits 1 when there is any.

Usage: scripts/module-cycles.py [WORKSPACE_ROOT]"""
import bisect, os, re, sys
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

# Paths whose upward imports are printed, not failed (none today; a move under way may list its
# files here until it lands).
PENDING = ()

def strip_comments(text):
    return '\n'.join('' if l.lstrip().startswith('//') else l for l in text.split('\n'))

def first_names(text, at):
    """The first segment of each path the reference at `at` names: one, or each of a group."""
    if text[at] != '{':
        return [re.match(r'[A-Za-z_0-9*]+', text[at:]).group(0)]
    depth = 0
    for end in range(at, len(text)):
        depth += {'{': 1, '}': -1}.get(text[end], 0)
        if depth == 0: break
    parts, depth, cur = [], 0, ''
    for ch in text[at + 1:end]:
        depth += {'{': 1, '}': -1}.get(ch, 0)
        if ch == ',' and depth == 0: parts.append(cur); cur = ''
        else: cur += ch
    parts.append(cur)
    return [re.split(r'\s|::', x.strip())[0] for x in parts if x.strip()]

def inline_modules(lines):
    """For each line, the inline modules (`mod tests { … }`) it sits in, read from rustfmt's
    indentation."""
    stack, out = [], []
    for l in lines:
        while stack and l.startswith(stack[-1][1] + '}'):
            stack.pop()
        out.append(tuple(n for n, _ in stack))
        m = re.match(r'^(\s*)(?:pub(?:\([^)]*\))? )?mod ([a-z_0-9]+) \{\s*$', l)
        if m: stack.append((m.group(2), m.group(1)))
    return out

def upward(crate):
    """Each `path:line: NAME` where a module of the crate imports NAME from its root."""
    src = os.path.join(root, 'crates', crate, 'src')
    hits = []
    for root_file in ('lib.rs', 'main.rs'):
        top_path = os.path.join(src, root_file)
        if not os.path.isfile(top_path): continue
        top = set(re.findall(r'^\s*(?:pub(?:\([^)]*\))? )?mod ([a-z_0-9]+)', open(top_path).read(), re.M))
        # A file placed by `#[path = "…"]` is a module of the file that declares it.
        placed = {}
        for dp, dn, fn in os.walk(src):
            for f in fn:
                if not f.endswith('.rs'): continue
                p = os.path.join(dp, f)
                for m in re.finditer(r'#\[path = "([^"]+)"\]\s*(?:pub(?:\([^)]*\))? )?mod ([a-z_0-9]+);', open(p).read()):
                    placed[os.path.normpath(os.path.join(dp, m.group(1)))] = modpath(os.path.relpath(p, src)) + (m.group(2),)
        for dp, dn, fn in os.walk(src):
            for f in sorted(fn):
                path = os.path.join(dp, f)
                rel = os.path.relpath(path, src)
                if not f.endswith('.rs') or rel in ('lib.rs', 'main.rs') or rel.startswith('bin' + os.sep): continue
                m = placed.get(os.path.normpath(path), modpath(rel))
                if not m or m[0] not in top: continue  # a module of the other root
                text = strip_comments(open(path).read())
                lines = text.split('\n')
                inline = inline_modules(lines)
                starts = [0]
                for l in lines: starts.append(starts[-1] + len(l) + 1)
                for r in re.finditer(r'(?<![\w$])crate::(?=[{A-Za-z_0-9*])|(?<![\w:])((?:super::)+)(?=[{A-Za-z_0-9*])', text):
                    line = bisect.bisect_right(starts, r.start()) - 1
                    if r.group(1) and r.group(1).count('super') != len(m + inline[line]):
                        continue  # a `super::` that stops below the root
                    for n in first_names(text, r.end()):
                        if n not in top and n not in ('self', 'super', 'crate'):
                            hits.append(f"{os.path.relpath(path, root)}:{line + 1}: {n}")
    return hits

ups = False
for crate in sorted(os.listdir(os.path.join(root, 'crates'))):
    for h in upward(crate):
        if PENDING and h.startswith(PENDING):
            print(f"{crate}: imports the crate root (pending, not failed): {h}")
        else:
            ups = True
            print(f"{crate}: imports the crate root: {h}")
if found or ups:
    sys.exit(1)
print("no import cycle inside a crate")
print("no module imports its crate root")
