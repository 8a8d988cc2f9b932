#!/usr/bin/env python3
"""Dependency graph of src/: modules, layer edges and circles.

A module is a source file and the header of the same name beside it (stream.c + stream.h). An
edge a -> b means a file of module a includes a header of module b ("..." includes only,
resolved against the including file's folder). Prints, per folder and for the whole tree, the
strongly connected components (include circles) larger than one module, and the folder-level
dependencies, so that a wrong-way edge between layers shows.

With --objects DIR (the build's object folder of the runtime, e.g.
build/src/CMakeFiles/hipkfd_rt_objects.dir), an edge a -> b also means that a's object calls or
reads a symbol that b's object defines (nm), which shows the circles that one shared header of
declarations hides from the include lines.

With --layers a,b,c (folders from the top layer to the bottom one; folders on one layer joined
by '+', e.g. graph+texture,api,runtime), every edge must point down: a module may use its own
folder and the folders listed after its own. Each edge that points up or sideways is printed.

usage: tools/layout/include_graph.py [SRC_DIR] [--objects DIR] [--layers LIST] [--edges]
                                     [--max-circle N]
Exits 1 when a circle has more than N modules (default: no limit), a folder circle exists, or
an edge breaks the layer order.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def modules(src):
    mods = {}
    for root, _, files in os.walk(src):
        for f in files:
            if f.endswith(('.c', '.h')):
                path = os.path.normpath(os.path.join(root, f))
                mods.setdefault(os.path.splitext(path)[0], []).append(path)
    return mods


def edges(src, mods):
    out = {m: set() for m in mods}
    for mod, files in mods.items():
        for path in files:
            with open(path, encoding='utf-8', errors='replace') as fh:
                for inc in INCLUDE.findall(fh.read()):
                    target = os.path.normpath(os.path.join(os.path.dirname(path), inc))
                    tmod = os.path.splitext(target)[0]
                    if tmod in mods and tmod != mod:
                        out[mod].add(tmod)
    return out


def symbol_edges(src, objdir, graph):
    import subprocess
    defs, uses = {}, {}
    for root, _, files in os.walk(objdir):
        for f in files:
            if not f.endswith('.c.o'):
                continue
            obj = os.path.join(root, f)
            mod = os.path.normpath(os.path.join(src, os.path.relpath(obj, objdir)[:-4]))
            if mod not in graph:
                continue
            out = subprocess.run(['nm', '-P', obj], capture_output=True, text=True).stdout
            for line in out.splitlines():
                parts = line.split()
                if len(parts) < 2:
                    continue
                if parts[1] == 'U':
                    uses.setdefault(mod, set()).add(parts[0])
                elif parts[1] in 'TDBR' and not parts[0].startswith('.'):
                    defs.setdefault(parts[0], mod)
    for mod, syms in uses.items():
        for sym in syms:
            t = defs.get(sym)
            if t and t != mod:
                graph[mod].add(t)


def sccs(graph):
    """Tarjan's algorithm, iterative."""
    index, low, on, stack, result, counter = {}, {}, set(), [], [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    advanced = True
                    break
                if nxt in on:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    n = stack.pop()
                    on.discard(n)
                    comp.append(n)
                    if n == node:
                        break
                result.append(sorted(comp))
    return result


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description='include and symbol circles of src/')
    ap.add_argument('src', nargs='?', default='src')
    ap.add_argument('--objects')
    ap.add_argument('--edges', action='store_true')
    ap.add_argument('--max-circle', type=int)
    ap.add_argument('--layers')
    opt = ap.parse_args(argv)
    src, limit = opt.src, opt.max_circle
    mods = modules(src)
    graph = edges(src, mods)
    if opt.objects:
        symbol_edges(src, opt.objects, graph)
    rel = lambda m: os.path.relpath(m, src)
    folder = lambda m: os.path.dirname(rel(m)) or '.'
    status = 0
    circles = [c for c in sccs(graph) if len(c) > 1]
    print(f'{len(mods)} modules under {src}; {len(circles)} include circle(s)')
    for c in sorted(circles, key=len, reverse=True):
        print(f'  circle of {len(c)}: ' + ' '.join(rel(m) for m in c))
        if limit is not None and len(c) > limit:
            status = 1
    fgraph = {}
    for m, targets in graph.items():
        for t in targets:
            if folder(m) != folder(t):
                fgraph.setdefault(folder(m), set()).add(folder(t))
                fgraph.setdefault(folder(t), set())
    print('folder dependencies:')
    for f in sorted(fgraph):
        print(f'  {f} -> ' + (', '.join(sorted(fgraph[f])) or '(none)'))
    fcircles = [c for c in sccs(fgraph) if len(c) > 1]
    for c in fcircles:
        print('  folder circle: ' + ' '.join(c))
        status = 1
    if opt.layers:
        rank = {}
        for i, layer in enumerate(opt.layers.split(',')):
            for f in layer.split('+'):
                rank[f] = i
        wrong = 0
        for m in sorted(graph):
            for t in sorted(graph[m]):
                fm, ft = folder(m), folder(t)
                if fm == ft:
                    continue
                if fm not in rank or ft not in rank:
                    print(f'  not in --layers: {fm if fm not in rank else ft}')
                    status = 1
                elif rank[ft] <= rank[fm]:
                    print(f'  wrong way: {rel(m)} -> {rel(t)}')
                    wrong += 1
        print(f'layer order {opt.layers}: {wrong} wrong-way edge(s)')
        if wrong:
            status = 1
    if opt.edges:
        for m in sorted(graph):
            print(f'{rel(m)} -> ' + ' '.join(rel(t) for t in sorted(graph[m])))
    return status


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
