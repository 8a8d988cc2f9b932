#!/usr/bin/env python3
"""Generate sim/isa/isa_optab.c: the gfx90a/gfx942 opcode tables as data.

The facts (which opcode number of which encoding is which instruction, on which target, and how
wide each register operand is) are taken from LLVM's own disassembler: for every encoding and every
opcode number we build one instruction word with marker register numbers in its operand fields,
disassemble it with llvm-mc-19 for each target, and read the mnemonic and the register ranges
back. Marker numbers identify the operand role: 2 = destination, 4 = src0 (or address),
8 = src1, 12 = src2, 0 = the VOP3B carry-out SGPR pair. Run by hand when LLVM changes:

    python3 sim/isa/gen_optab.py > sim/isa/isa_optab.c
"""
import re
import subprocess
import sys

TARGETS = ["gfx90a", "gfx942"]
LLVM_MC = "llvm-mc-19"

# Encoding name, number of opcodes, function(op) -> list of 32-bit words with marker operands.
V = 256  # VGPR offset in 9-bit source fields


def z(zero, field, value):
    """A marker value, or 0 when this variant leaves the field empty."""
    return 0 if field in zero else value


def sop2(op, zero):
    return [(0b10 << 30) | (op << 23) | (z(zero, "d", 2) << 16) | (z(zero, "s1", 8) << 8) | z(zero, "s0", 4)]


def sopk(op, zero):
    w = [(0b1011 << 28) | (op << 23) | (z(zero, "d", 2) << 16) | z(zero, "s0", 0x10)]
    return w + [0x12345678] if "+L" in zero else w  # s_setreg_imm32_b32 carries a literal


def sop1(op, zero):
    return [(0x17D << 23) | (z(zero, "d", 2) << 16) | (op << 8) | z(zero, "s0", 4)]


def sopc(op, zero):
    return [(0x17E << 23) | (op << 16) | (z(zero, "s1", 8) << 8) | z(zero, "s0", 4)]


def sopp(op, zero):
    return [(0x17F << 23) | (op << 16) | z(zero, "s0", 0)]


def smem(op, zero):
    # sbase field holds the SGPR pair number / 2; IMM=1 with offset 0x10 (IMM=0 when the
    # variant has no offset: s_memtime, s_dcache_wb).
    imm = 0 if "s1" in zero else 1
    return [(0b110000 << 26) | (op << 18) | (imm << 17) | (z(zero, "d", 2) << 6) | z(zero, "s0", 2),
            z(zero, "s1", 0x10)]


def vop1(op, zero):
    # v_nop and v_clrexcp decode only with every field zero
    return [(0b0111111 << 25) | (z(zero, "d", 2) << 17) | (op << 9) | z(zero, "s0", V + 4)]


def vop2(op, zero):
    w = [(op << 25) | (2 << 17) | (8 << 9) | (V + 4)]
    return w + [0x12345678] if "+L" in zero else w  # v_madmk/v_fmaak carry a literal


def vopc(op, zero):
    return [(0b0111110 << 25) | (op << 17) | (8 << 9) | (V + 4)]


def vop3(op, zero):
    return [(0b110100 << 26) | (op << 16) | z(zero, "d", 2),
            z(zero, "s0", V + 4) | (z(zero, "s1", 8) << 9) | (z(zero, "s2", V + 12) << 18)]


def vop3p(op, zero):
    # op_sel_hi defaults to all ones (bits 14 of word 0 and 28:27 of word 1)
    return [(0x1A7 << 23) | (op << 16) | (1 << 14) | 2,
            (V + 4) | (z(zero, "s1", V + 8) << 9) | (z(zero, "s2", V + 12) << 18) | (3 << 27)]


def ds(op, zero):
    gds = 1 if "+L" in zero else 0  # the GWS instructions exist only with the GDS bit
    return [(0b110110 << 26) | (op << 17) | (gds << 16),
            z(zero, "s0", 4) | (z(zero, "s1", 8) << 8) | (z(zero, "s2", 12) << 16) | (z(zero, "d", 2) << 24)]


def flat_seg(seg):
    def enc(op, zero):
        # saddr = 0x7f ("off"): the address is the VGPR (pair) alone.
        saddr = 0 if "s2" in zero else 0x7F
        return [(0b110111 << 26) | (op << 18) | (seg << 14),
                z(zero, "s0", 4) | (z(zero, "s1", 8) << 8) | (saddr << 16) | (z(zero, "d", 2) << 24)]
    return enc


def mubuf(op, zero):
    # offen, srsrc = s[8:11], soffset = s12; buffer_store_lds_dword exists only with the LDS bit
    offen = 0 if "s0" in zero else 1
    lds = 1 if "+L" in zero else 0
    return [(0b111000 << 26) | (op << 18) | (lds << 16) | (offen << 12),
            z(zero, "s0", 4) | (z(zero, "d", 2) << 8) | (z(zero, "s1", 2) << 16) | (z(zero, "s2", 12) << 24)]


def mtbuf(op, zero):
    # offen, dfmt = 4 (32), nfmt = 7 (float)
    return [(0b111010 << 26) | (7 << 23) | (4 << 19) | (op << 15) | (1 << 12),
            4 | (z(zero, "d", 2) << 8) | (2 << 16) | (12 << 24)]


# Opcode counts stop where the next encoding's prefix begins: SOP2 opcodes 0x60+ are SOPK words,
# SOPK 0x1d+ are SOP1/SOPC/SOPP, VOP2 0x3e/0x3f are VOPC/VOP1, VOP3 0x380+ are VOP3P.
ENCODINGS = [
    ("SOP2", 96, sop2), ("SOPK", 29, sopk), ("SOP1", 256, sop1), ("SOPC", 128, sopc),
    ("SOPP", 128, sopp), ("SMEM", 256, smem), ("VOP1", 256, vop1), ("VOP2", 62, vop2),
    ("VOPC", 256, vopc), ("VOP3", 896, vop3), ("VOP3P", 128, vop3p), ("DS", 256, ds),
    ("FLAT", 128, flat_seg(0)), ("SCRATCH", 128, flat_seg(1)), ("GLOBAL", 128, flat_seg(2)),
    ("MUBUF", 128, mubuf), ("MTBUF", 16, mtbuf),
]
FIELDS = ["d", "s0", "s1", "s2", "+L"]
VARIANTS = [frozenset(f for i, f in enumerate(FIELDS) if m >> i & 1)
            for m in sorted(range(32), key=lambda m: bin(m).count("1"))]

REG_RE = re.compile(r"^-?\|?(?:neg\()?([svat])(?:(\d+)|\[(\d+):(\d+)\])")


def words_to_bytes(words):
    out = []
    for w in words:
        out += [(w >> (8 * i)) & 0xFF for i in range(4)]
    return out


def disassemble(target, encs):
    """Return {bytes-string: text} for the words that decode to one whole instruction."""
    # llvm-mc reads the input as one byte stream: an instruction that wants a literal would take
    # the next line's bytes. Two s_nops after every candidate bring the stream back in step.
    pad = " ".join("0x%02x" % b for b in words_to_bytes([0xBF800000]))
    lines = []
    for w in encs:
        lines += [" ".join("0x%02x" % b for b in words_to_bytes(w)), pad, pad]
    res = subprocess.run([LLVM_MC, "-arch=amdgcn", "-mcpu=" + target, "-disassemble", "-show-encoding"],
                         input="\n".join(lines) + "\n", capture_output=True, text=True, check=False)
    out = {}
    for line in res.stdout.splitlines():
        if "; encoding:" not in line:
            continue
        text, enc = line.split("; encoding:")
        key = enc.strip().strip("[]").replace(",", " ")
        out[key] = text.strip()
    return out


def parse(text):
    parts = text.split(None, 1)
    name = re.sub(r"_(e32|e64)$", "", parts[0])
    widths = {}
    regs = {}
    if len(parts) > 1:
        for tok in parts[1].split(","):
            tok = tok.strip()
            m = REG_RE.match(tok)
            if not m:
                continue
            first = int(m.group(2) if m.group(2) is not None else m.group(3))
            last = first if m.group(2) is not None else int(m.group(4))
            widths[first] = last - first + 1
            regs[first] = m.group(1)
    return name, widths, regs


def main():
    rows = []  # (enc, opcode, name, targetmask, dstw, s0w, s1w, s2w, sdst)
    for enc_name, count, fn in ENCODINGS:
        per_target = {}
        words = [[fn(op, v) for v in VARIANTS] for op in range(count)]
        flat = [w for ws in words for w in ws]
        for ti, target in enumerate(TARGETS):
            dis = disassemble(target, flat)
            for op, ws in enumerate(words):
                for w in ws:  # the variant with the most operands that decodes
                    key = " ".join("0x%02x" % b for b in words_to_bytes(w))
                    if key in dis:
                        per_target.setdefault(op, []).append((ti, dis[key]))
                        break
        for op in sorted(per_target):
            # Same name on both targets -> one row with both bits; otherwise one row per target.
            byname = {}
            for ti, text in per_target[op]:
                name, widths, regs = parse(text)
                byname.setdefault(name, [0, widths, regs])[0] |= 1 << ti
            for name, (mask, widths, regs) in byname.items():
                dstw = widths.get(2, 0)
                if enc_name in ("MUBUF", "MTBUF"):  # vdata = marker 2, vaddr = 4
                    dstw = widths.get(2, 0)
                rows.append((enc_name, op, name, mask, dstw, widths.get(4, 0), widths.get(8, 0),
                             widths.get(12, 0), 1 if (enc_name == "VOP3" and regs.get(0) == "s") else 0))
    names = sorted({r[2] for r in rows})
    out = sys.stdout
    out.write("/* Generated by sim/isa/gen_optab.py from llvm-mc-19's disassembler: do not edit.\n"
              " * One row per (encoding, opcode number, name): the targets it exists on (bit 0 gfx90a,\n"
              " * bit 1 gfx942) and the register widths in dwords of dst, src0, src1, src2. */\n")
    out.write('#include "isa/isa_optab.h"\n\n')
    out.write("const char *const isa_op_names[ISA_OP_COUNT] = {\n  [OP_INVALID] = \"<invalid>\",\n")
    for n in names:
        out.write('  [OP_%s] = "%s",\n' % (n.upper(), n))
    out.write("};\n\nconst struct isa_opinfo isa_optab[] = {\n")
    for r in rows:
        out.write("  {ENC_%s, %d, OP_%s, %d, %d, {%d, %d, %d}, %d},\n" %
                  (r[0], r[1], r[2].upper(), r[3], r[4], r[5], r[6], r[7], r[8]))
    out.write("};\n\nconst unsigned isa_optab_count = sizeof(isa_optab) / sizeof(isa_optab[0]);\n")
    with open(sys.argv[1] if len(sys.argv) > 1 else "/dev/null", "w") as hdr:
        hdr.write("/* Generated by sim/isa/gen_optab.py: the opcode enum. Do not edit. */\n")
        hdr.write("#ifndef KFDSIM_ISA_OPS_H\n#define KFDSIM_ISA_OPS_H\n\nenum isa_op {\n  OP_INVALID = 0,\n")
        for n in names:
            hdr.write("  OP_%s,\n" % n.upper())
        hdr.write("  ISA_OP_COUNT\n};\n\n#endif\n")


if __name__ == "__main__":
    main()
