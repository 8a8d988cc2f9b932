#!/usr/bin/env python3
"""Check a hipkfd timeline trace (HIPKFD_TRACE) file.

Usage: check_trace.py [--run PROGRAM] TRACE.json [--kernels N] [--streams N] [--copy DIR]...
                      [--fill] [--expect-api NAME,NAME,...] [--expect-args NAME=REGEX]...

With --run, PROGRAM is run first with HIPKFD_TRACE=TRACE.json and must exit 0. Then the file must
parse as JSON and hold a Chrome trace: metadata naming every process and thread used; at least
N kernels ("X", cat kernel) with grid, block and LDS, on at least N' distinct stream tracks, whose
spans on one track never overlap; the copies (cat copy, by direction) and fills asked for, each
with bytes and an engine. --expect-api: those API calls ("X", cat api, with a result and an
argument text), the calls of one host thread in order without overlap, and one flow arrow ("s"
then "f", same id) from a launch call to each kernel. --expect-args: some call NAME's argument
text matches REGEX (re.search): outputs and strings are shown from what the call captured.
Exits 0 when all hold, 1 with the reasons otherwise."""
import argparse
import collections
import json
import os
import re
import subprocess
import sys


def fail(problems):
    for p in problems:
        print("check_trace: " + p)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--run")
    ap.add_argument("--kernels", type=int, default=0)
    ap.add_argument("--streams", type=int, default=0)
    ap.add_argument("--copy", action="append", default=[])
    ap.add_argument("--fill", action="store_true")
    ap.add_argument("--expect-api", default="")
    ap.add_argument("--expect-args", action="append", default=[])
    a = ap.parse_args()

    if a.run:
        if os.path.exists(a.trace):
            os.remove(a.trace)
        env = dict(os.environ, HIPKFD_TRACE=a.trace)
        r = subprocess.run([a.run], env=env)
        if r.returncode != 0:
            fail(["%s exited with %d" % (a.run, r.returncode)])

    with open(a.trace) as f:
        doc = json.load(f)
    problems = []
    events = doc.get("traceEvents")
    if not isinstance(events, list):
        fail(["no traceEvents array"])

    names = {("p", e["pid"]) for e in events if e.get("ph") == "M" and e["name"] == "process_name"}
    names |= {("t", e["pid"], e["tid"]) for e in events
              if e.get("ph") == "M" and e["name"] == "thread_name"}
    spans = [e for e in events if e.get("ph") == "X"]
    for e in spans:
        if ("p", e["pid"]) not in names or ("t", e["pid"], e["tid"]) not in names:
            problems.append("unnamed track of %s" % e["name"])
            break
        if e["dur"] < 0:
            problems.append("negative duration: %s" % e["name"])

    kernels = [e for e in spans if e["cat"] == "kernel"]
    if len(kernels) < a.kernels:
        problems.append("%d kernels, expected %d" % (len(kernels), a.kernels))
    tracks = collections.defaultdict(list)
    for k in kernels:
        args = k.get("args", {})
        if not all(x in args for x in ("grid", "block", "lds")) or k["dur"] <= 0:
            problems.append("kernel %s lacks grid/block/lds or a duration" % k["name"])
        tracks[(k["pid"], k["tid"])].append(k)
    if len(tracks) < a.streams:
        problems.append("kernels on %d streams, expected %d" % (len(tracks), a.streams))
    for key, ks in tracks.items():
        ks.sort(key=lambda e: e["ts"])
        for x, y in zip(ks, ks[1:]):
            if x["ts"] + x["dur"] > y["ts"] + 1e-6:
                problems.append("kernels %s and %s overlap on track %s" % (x["name"], y["name"], key))

    transfers = [e for e in spans if e["cat"] in ("copy", "fill")]
    for t in transfers:
        args = t.get("args", {})
        if args.get("bytes", 0) <= 0 or args.get("engine") not in ("CPU", "SDMA"):
            problems.append("transfer %s lacks bytes or engine" % t["name"])
    for d in a.copy:
        if not any(t["cat"] == "copy" and t["args"].get("direction") == d for t in transfers):
            problems.append("no %s copy" % d)
    if a.fill and not any(t["cat"] == "fill" for t in transfers):
        problems.append("no fill")

    if a.expect_api:
        api = [e for e in spans if e["cat"] == "api"]
        seen = {e["name"] for e in api}
        for n in a.expect_api.split(","):
            if n not in seen:
                problems.append("no API event %s" % n)
        for e in api:
            if "result" not in e.get("args", {}) or "args" not in e["args"]:
                problems.append("API event %s lacks result/args" % e["name"])
                break
        threads = collections.defaultdict(list)
        for e in api:
            threads[e["tid"]].append(e)
        for tid, calls in threads.items():
            calls.sort(key=lambda e: e["ts"])
            for x, y in zip(calls, calls[1:]):
                if x["ts"] + x["dur"] > y["ts"] + 1e-6:
                    problems.append("API calls %s and %s overlap on thread %s"
                                    % (x["name"], y["name"], tid))
                    break
        starts = {e["id"] for e in events if e.get("ph") == "s"}
        ends = {e["id"] for e in events if e.get("ph") == "f"}
        for k in kernels:
            c = k["args"].get("correlation_id", 0)
            if not c or c not in starts or c not in ends:
                problems.append("kernel %s has no flow from its launch" % k["name"])
                break
    for want in a.expect_args:
        name, _, regex = want.partition("=")
        texts = [e["args"].get("args", "") for e in spans if e["cat"] == "api" and e["name"] == name]
        if not any(re.search(regex, t) for t in texts):
            problems.append("no %s call whose arguments match %r (seen: %s)"
                            % (name, regex, "; ".join(texts[:3]) or "none"))
    if problems:
        fail(problems)
    print("check_trace: %d API calls, %d kernels on %d streams, %d copies/fills: OK"
          % (sum(1 for e in spans if e["cat"] == "api"), len(kernels), len(tracks), len(transfers)))


if __name__ == "__main__":
    main()
