#!/usr/bin/env python3
# layers.py SRCDIR BUILDDIR - check that libtopomatch's dependencies go one
# way only (core/README.md): base <- pattern, topology <- metrics <- map <-
# the cluster layer (topology/), by the includes of the sources and by the
# symbols the built objects define and use; that no two files of core/
# depend on each other (directly or around a cycle); and that the tools,
# the plugins and the benchmarks include only the installed headers of
# core/ and topology/.  Prints one line per fault, "layers: N faults" at
# the end; exit status 1 when there is one.
# SPDX-License-Identifier: GPL-2.0-or-later
import os
import re
import subprocess
import sys

# what each layer may use (itself included)
ALLOWED = {
    "base": {"base"},
    "pattern": {"base", "pattern"},
    "topology": {"base", "topology"},
    "metrics": {"base", "pattern", "topology", "metrics"},
    "map": {"base", "pattern", "topology", "metrics", "map"},
    "cluster": {"base", "pattern", "topology", "metrics", "map", "cluster"},
}
# the installed headers, which anything may include
PUBLIC = {"core/topomatch.h", "topology/topomatch_cluster.h"}
# folders outside the library: only the installed headers of the library
CLIENTS = ("tools", "plugin", "bench")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer(path):
    """The layer of a path relative to SRCDIR, or None outside the library."""
    parts = path.split("/")
    if parts[0] == "core" and len(parts) == 3 and parts[1] in ALLOWED:
        return parts[1]
    if parts[0] == "topology" and len(parts) == 2:
        return "cluster"
    return None


def resolve(src, path, name):
    """The file an #include "name" of path finds, relative to src: the
    including file's folder first, then -I core and -I topology."""
    for d in (os.path.dirname(path), "core", "topology"):
        cand = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(os.path.join(src, cand)):
            return cand
    return None


def sources(src, top):
    for root, _, files in os.walk(os.path.join(src, top)):
        for f in sorted(files):
            if f.endswith((".c", ".h")):
                yield os.path.relpath(os.path.join(root, f), src)


def check_includes(src, faults):
    for top in ("core", "topology") + CLIENTS:
        for path in sources(src, top):
            text = open(os.path.join(src, path), encoding="utf-8").read()
            for m in INCLUDE.finditer(text):
                target = resolve(src, path, m.group(1))
                if target is None or target in PUBLIC:
                    continue
                have, want = layer(path), layer(target)
                if want is None:
                    continue
                if have is None:
                    faults.append("%s includes %s: outside the library only the installed "
                                  "headers (%s)" % (path, target, ", ".join(sorted(PUBLIC))))
                elif want not in ALLOWED[have]:
                    faults.append("%s (%s) includes %s (%s): %s may use only %s" % (
                        path, have, target, want, have, ", ".join(sorted(ALLOWED[have]))))


def objects(src, build):
    """{source path: object path} of libtopomatch's objects (those of a
    source that is no longer there, left by an older build, skipped)."""
    out = {}
    for top in ("core", "topology"):
        for root, dirs, files in os.walk(os.path.join(build, top)):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            for f in files:
                if f.startswith("libtopomatch_la-") and f.endswith(".o"):
                    rel = os.path.relpath(root, build)
                    path = "%s/%s.c" % (rel, f[len("libtopomatch_la-"):-2])
                    if os.path.isfile(os.path.join(src, path)):
                        out[path] = os.path.join(root, f)
    return out


def symbols(obj):
    defined, used = set(), set()
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in "TDBR":
            defined.add(p[2])
        elif len(p) == 2 and p[0] == "U":
            used.add(p[1])
    return defined, used


def cycles(graph):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def check_symbols(src, build, faults):
    objs = objects(src, build)
    if not any(p.startswith("core/") for p in objs):
        faults.append("%s: no libtopomatch objects (build the library first)" % build)
        return
    owner, uses = {}, {}
    for path, obj in objs.items():
        defined, used = symbols(obj)
        for s in defined:
            owner[s] = path
        uses[path] = used
    graph = {}
    for path in sorted(uses):
        for s in sorted(uses[path]):
            target = owner.get(s)
            if target is None or target == path:
                continue
            graph.setdefault(path, {}).setdefault(target, []).append(s)
    for path, targets in sorted(graph.items()):
        have = layer(path)
        for target, syms in sorted(targets.items()):
            want = layer(target)
            if have and want and want not in ALLOWED[have]:
                faults.append("%s (%s) calls %s (%s): %s" % (path, have, target, want,
                                                             ", ".join(syms[:3])))
    core = {p: {t for t in ts if t.startswith("core/")}
            for p, ts in graph.items() if p.startswith("core/")}
    for comp in cycles(core):
        links = ["%s -> %s (%s)" % (a, b, graph[a][b][0])
                 for a in comp for b in comp if b in graph.get(a, {})]
        faults.append("files that depend on each other: " + "; ".join(links))


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: layers.py SRCDIR BUILDDIR")
    src, build = sys.argv[1], sys.argv[2]
    faults = []
    check_includes(src, faults)
    check_symbols(src, build, faults)
    for f in faults:
        print(f)
    print("layers: %d faults" % len(faults))
    sys.exit(1 if faults else 0)


if __name__ == "__main__":
    main()
