#!/usr/bin/env python3
"""hipDeviceAttributeFineGrainSupport agrees with the topology AMD's rocminfo shows.

Usage: check_fine_grain.py KFDSIM ROCMINFO PROBE GPUS

Runs Debian's rocminfo and fine_grain_probe on kfdsim with GPUS emulated gfx90a GPUs. rocminfo
lists a "GLOBAL; FLAGS: FINE GRAINED" pool under a GPU agent when ROCr exposes fine-grained VRAM
(a GPU in an xGMI hive); every device must report the attribute as 1 exactly then.
"""
import re
import subprocess
import sys


def run(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    if out.returncode != 0:
        sys.exit(f"{cmd[-1]} failed ({out.returncode}):\n{out.stderr}")
    return out.stdout


def gpu_fine_grained(text):
    """One bool per GPU agent, in rocminfo's order: has a fine-grained global pool."""
    agents = re.split(r"\n\*{5,}\s*\nAgent \d+", text)[1:]
    result = []
    for agent in agents:
        if not re.search(r"Device Type:\s+GPU", agent):
            continue
        result.append(bool(re.search(r"Segment:\s+GLOBAL; FLAGS: FINE GRAINED", agent)))
    return result


def main():
    kfdsim, rocminfo, probe, gpus = sys.argv[1:5]
    sim = [kfdsim, "--gpus", gpus, "--profile", "gfx90a", "--"]
    topo = gpu_fine_grained(run(sim + [rocminfo]))
    attrs = [int(m) for m in re.findall(r"fine_grain (-?\d+)", run(sim + [probe]))]
    if len(topo) != int(gpus) or len(attrs) != int(gpus):
        sys.exit(f"expected {gpus} GPUs: rocminfo shows {len(topo)}, the runtime {len(attrs)}")
    want = [1 if t else 0 for t in topo]
    if attrs != want:
        sys.exit(f"fine-grain attribute {attrs}, rocminfo's fine-grained GPU pools {want}")
    print(f"OK: {gpus} GPU(s), fine-grained VRAM pool and attribute agree: {attrs}")


main()
