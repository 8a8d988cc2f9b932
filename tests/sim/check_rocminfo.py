#!/usr/bin/env python3
"""Debian's rocminfo (ROCm 5.2.3) under kfdsim, compared with a golden file.

usage: check_rocminfo.py KFDSIM ROCMINFO GOLDEN [--update]

Runs `kfdsim --profile gfx90a --gpus 2 -- rocminfo`. The CPU agent describes the host (model
name, caches, core count, memory size), so its block is replaced by one placeholder line;
everything else (system attributes, both GPU agents, their pools and ISAs) must match the
golden file exactly, trailing blanks aside.
"""
import difflib
import re
import subprocess
import sys


def normalise(text):
    out, in_cpu = [], False
    for line in text.splitlines():
        line = line.rstrip()
        if re.match(r"^Agent \d+$", line):
            in_cpu = False
        if in_cpu:
            continue
        out.append(line)
        if re.match(r"^Agent 1$", line):
            in_cpu = True
            out.append("  <CPU agent: host-specific, not compared>")
    # the separator line before "Agent 2" was skipped with the CPU block: restore it
    fixed = []
    for line in out:
        if re.match(r"^Agent [2-9]\d*$", line) and (not fixed or fixed[-1] != "*******"):
            fixed.append("*******")
        fixed.append(line)
    return "\n".join(fixed) + "\n"


def main():
    kfdsim, rocminfo, golden = sys.argv[1:4]
    run = subprocess.run([kfdsim, "--profile", "gfx90a", "--gpus", "2", "--", rocminfo],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=100)
    if run.returncode != 0:
        print(run.stdout)
        print(f"rocminfo exited with {run.returncode}")
        return 1
    got = normalise(run.stdout)
    if "--update" in sys.argv:
        open(golden, "w").write(got)
        return 0
    want = open(golden).read()
    if got != want:
        sys.stdout.writelines(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                                   "golden", "rocminfo"))
        return 1
    print("rocminfo output matches", golden)
    return 0


if __name__ == "__main__":
    sys.exit(main())
