#!/usr/bin/env python3
"""Every opcode of the kernel corpus has a per-instruction test (issue 3's acceptance).

Usage: check_op_coverage.py <llvm-objdump> <clang-offload-bundler> <corpus dir> <kernels dir>

The corpus is tests/kernels: every kernels_* executable there carries its device code in the
.hip_fatbin section (an offload bundle). Its opcodes are the mnemonics llvm-objdump prints for
each bundled gfx90a/gfx942 code object, encoding suffix included (v_add_f32_e32 and
v_add_f32_e64 are different encodings). The tested opcodes are the mnemonics of the assembled
per-instruction kernels (alu_tests_*.so, op_*_*.so in <kernels dir>). Prints what is missing
and fails if anything is.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

LINE = re.compile(r"^\t([a-z][a-z0-9_]*)")


def mnemonics(objdump, path):
    out = subprocess.run([objdump, "-d", path], capture_output=True, text=True, check=True).stdout
    return {m.group(1) for m in map(LINE.match, out.splitlines()) if m}


def corpus_objects(bundler, corpus_dir, tmp):
    for exe in sorted(glob.glob(os.path.join(corpus_dir, "kernels_*"))):
        if not os.path.isfile(exe) or not os.access(exe, os.X_OK):
            continue
        fatbin = os.path.join(tmp, os.path.basename(exe) + ".fatbin")
        if subprocess.run(["objcopy", "-O", "binary", "--only-section=.hip_fatbin", exe, fatbin],
                          capture_output=True).returncode or not os.path.getsize(fatbin):
            continue
        listing = subprocess.run([bundler, "--list", "--type=o", "--input=" + fatbin],
                                 capture_output=True, text=True).stdout.split()
        for target in listing:
            if "gfx90a" not in target and "gfx942" not in target:
                continue
            arch = "gfx942" if "gfx942" in target else "gfx90a"
            co = "%s.%s.co" % (fatbin, arch)
            if subprocess.run([bundler, "--unbundle", "--type=o", "--input=" + fatbin,
                               "--output=" + co, "--targets=" + target],
                              capture_output=True).returncode == 0:
                yield arch, co


def main():
    objdump, bundler, corpus_dir, kernels_dir = sys.argv[1:5]
    corpus = {}
    with tempfile.TemporaryDirectory() as tmp:
        for arch, co in corpus_objects(bundler, corpus_dir, tmp):
            for m in mnemonics(objdump, co):
                corpus.setdefault(m, set()).add(arch)
    if not corpus:
        print("no corpus code objects found under", corpus_dir)
        return 1
    tested = set()
    for so in glob.glob(os.path.join(kernels_dir, "alu_tests_*.so")) + \
            glob.glob(os.path.join(kernels_dir, "op_*_*.so")):
        tested |= mnemonics(objdump, so)
    missing = sorted(m for m in corpus if m not in tested)
    print("corpus opcodes: %d (gfx90a %d, gfx942 %d); with a per-instruction test: %d; missing: %d"
          % (len(corpus), sum("gfx90a" in a for a in corpus.values()),
             sum("gfx942" in a for a in corpus.values()), len(corpus) - len(missing), len(missing)))
    for m in missing:
        print("  missing: %s (%s)" % (m, ",".join(sorted(corpus[m]))))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
