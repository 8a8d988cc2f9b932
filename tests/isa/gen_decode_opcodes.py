#!/usr/bin/env python3
"""Decoder cases for every opcode llvm-mc-19 knows on gfx90a and gfx942 (run by CMake).

Usage: gen_decode_opcodes.py <llvm-mc> <out.txt>
       gen_decode_opcodes.py --audit <libLLVM.so> [llvm-mc]     (by hand, see step 1)

1. The opcode universe. For every encoding of the gfx9 family (including MIMG, EXP and VINTRP,
   which kfdsim does not decode) and every opcode number, instruction words with marker register
   numbers in the operand fields are disassembled by llvm-mc for each target; whatever LLVM
   decodes is an opcode of that target, and its text tells which printed operand is which field
   (marker 20 = vdst/sdst, 8 = src0/vaddr/sbase, 12 = src1/data0/srsrc, 16 = src2/data1/saddr/
   soffset, 24 = the VOP3B carry-out). ALIASES adds the assembler-only spellings.
   The universe was audited (--audit) against the assembler's own mnemonic table, read out of
   libLLVM: with LLVM 19.1 every mnemonic llvm-mc-19 accepts for gfx90a (1136) and gfx942 (1184)
   is an enumerated opcode or one of ALIASES, so covering the enumeration covers everything
   llvm-mc accepts.
2. Representative instances. From each opcode's text, variants are written as assembly:
   renumbered registers (high VGPRs/SGPRs, AGPRs), scalar/inline-constant/literal sources,
   source modifiers, clamp/omod, op_sel, DPP and SDWA forms of the 32-bit VALU encodings, MAI
   modifiers, memory offsets and cache bits, addressing forms. llvm-mc assembles them (lines it
   rejects are dropped), and llvm-mc's disassembler prints each resulting encoding back.
   Each opcode's own marker encoding is a case too. Sources are also probed with literals that
   are 0.5 in one type only (TYPE_PROBES): llvm-mc makes them inline constants exactly when the
   operand has that type, which pins down how the decoder must read inline constants there.
3. The expected decode is read from LLVM's printed text only (mnemonic, operand registers,
   modifiers, and which probe LLVM inlined), never from the instruction bits, and written as a
   data file test_isa_decode.c reads: "case <target> <mnemonic> <hex words> <field>=<value>...".

Opcodes in EXCLUDED are not decoded by kfdsim on purpose: their cases expect a decode error.
An opcode neither covered nor excluded is written as an "uncovered" line and fails the test.
"""
import re
import subprocess
import sys
import zlib
from itertools import combinations

TARGETS = ["gfx90a", "gfx942"]
V = 256

# Encodings kfdsim does not decode: their opcodes must be rejected by isa_decode, not misread.
EXCLUDED = {
    # Image instructions (gfx90a only; gfx942 has none). clang emits them for image builtins
    # (HIP textures and surfaces through ockl); kfdsim decodes the ones in MIMG_MODELLED
    # (sim/isa/decode_mimg.c), the atomics and packed forms stay rejected.
    "MIMG": "image instructions outside MIMG_MODELLED: kfdsim has no model for them",
    # Neither target accepts export or interpolation instructions (compute-only CDNA parts); the
    # encodings are enumerated so a future LLVM that accepts them shows up here.
    "EXP": "export: graphics only, not on CDNA",
    "VINTRP": "interpolation: graphics only, not on CDNA",
}

# The MIMG opcodes kfdsim decodes (and runs, sim/isa/exec_image.c): covered like any other.
MIMG_MODELLED = {"image_load", "image_load_mip", "image_store", "image_store_mip",
                 "image_get_resinfo", "image_sample"}


def excluded(enc, text):
    """Is the canonical opcode text of encoding enc one kfdsim must reject?"""
    return enc in EXCLUDED and not (enc == "MIMG" and base_name(tokenize(text)[0]) in MIMG_MODELLED)


# Assembler-only spellings (the disassembler prints the canonical name), found by the audit
# (--audit). Each is assembled with the first operand shape of ALIAS_SHAPES llvm-mc accepts and
# must decode to the canonical opcode; an alias that assembles with no shape is uncovered.
_OLD_MFMA = ["v_mfma_f32_%s" % n for n in (
    "16x16x16bf16", "16x16x16bf16_1k", "16x16x16f16", "16x16x1f32", "16x16x4bf16", "16x16x4bf16_1k",
    "16x16x4f16", "16x16x4f32", "16x16x8xf32", "32x32x1f32", "32x32x2f32", "32x32x4bf16",
    "32x32x4bf16_1k", "32x32x4f16", "32x32x4xf32", "32x32x8bf16", "32x32x8bf16_1k", "32x32x8f16",
    "4x4x1f32", "4x4x4bf16", "4x4x4bf16_1k", "4x4x4f16")] + [
    "v_mfma_f64_16x16x4f64", "v_mfma_f64_4x4x4f64", "v_mfma_i32_16x16x32i8", "v_mfma_i32_16x16x4i8",
    "v_mfma_i32_32x32x16i8", "v_mfma_i32_32x32x4i8", "v_mfma_i32_4x4x4i8"]
ALIASES = {
    "gfx90a": ["v_mul_lo_i32"],   # v_mul_lo_u32: the low half is the same for signed operands
    # gfx940 renamed the gfx908/gfx90a MFMA mnemonics; the old spellings still assemble
    "gfx942": ["v_mul_lo_i32"] + _OLD_MFMA,
}
ALIAS_SHAPES = ["v20, v8, v12"] + ["%s, %s, %s, %s" % (d, a, a, d)
                                   for d in ("v[0:31]", "v[0:15]", "v[0:7]", "v[0:3]", "v[0:1]")
                                   for a in ("v8", "v[8:9]")]


# ---- step 1: marker instruction words per encoding -------------------------------------------

D, S0, S1, S2, SD = 20, 8, 12, 16, 24


def z(zero, f, v):
    return 0 if f in zero else v


def sop2(op, zr):
    return [(2 << 30) | (op << 23) | (z(zr, "d", D) << 16) | (z(zr, "s1", S1) << 8) | z(zr, "s0", S0)]


def sopk(op, zr):
    w = [(0xB << 28) | (op << 23) | (z(zr, "d", D) << 16) | z(zr, "s0", 0x10)]
    return w + [0x12345678] if "x" in zr else w


def sop1(op, zr):
    return [(0x17D << 23) | (z(zr, "d", D) << 16) | (op << 8) | z(zr, "s0", S0)]


def sopc(op, zr):
    return [(0x17E << 23) | (op << 16) | (z(zr, "s1", S1) << 8) | z(zr, "s0", S0)]


def sopp(op, zr):
    return [(0x17F << 23) | (op << 16) | z(zr, "s0", 3)]


def smem(op, zr):
    imm = 0 if "s1" in zr else 1
    return [(0x30 << 26) | (op << 18) | (imm << 17) | (z(zr, "d", D) << 6) | z(zr, "s0", S0 // 2),
            0 if "s1" in zr else 0x10]


def vop1(op, zr):
    # v_nop and v_clrexcp decode only with every field zero
    return [(0x3F << 25) | (z(zr, "d", D) << 17) | (op << 9) | z(zr, "s0", V + S0)]


def vop2(op, zr):
    w = [(op << 25) | (D << 17) | (S1 << 9) | (V + S0)]
    return w + [0x1234] if "x" in zr else w   # a K constant that fits the f16 forms too


def vopc(op, zr):
    return [(0x3E << 25) | (op << 17) | (S1 << 9) | (V + S0)]


def vop3(op, zr):
    """'t0'/'t1'/'t2': that source is an SGPR marker (v_readlane, v_cndmask's mask, ...)."""
    sd = SD << 8 if "x" in zr else 0
    v0, v1, v2 = (0 if "t%d" % i in zr else V for i in range(3))
    return [(0x34 << 26) | (op << 16) | sd | z(zr, "d", D),
            z(zr, "s0", v0 + S0) | (z(zr, "s1", v1 + S1) << 9) | (z(zr, "s2", v2 + S2) << 18)]


def vop3p(op, zr):
    return [(0x1A7 << 23) | (op << 16) | (1 << 14) | z(zr, "d", D),
            (V + S0) | (z(zr, "s1", V + S1) << 9) | (z(zr, "s2", V + S2) << 18) | (3 << 27)]


def ds(op, zr):
    gds = 1 if "x" in zr else 0
    return [(0x36 << 26) | (op << 17) | (gds << 16),
            z(zr, "s0", S0) | (z(zr, "s1", S1) << 8) | (z(zr, "s2", S2) << 16) | (z(zr, "d", D) << 24)]


def flat_seg(seg):
    def enc(op, zr):
        # FLAT has no SADDR: LLVM wants the field 0 (or 0x7f, "off")
        saddr = (0 if "s2" in zr else 0x7F) if seg == 0 else 0x7F if "s2" in zr else S2
        sve = 1 if "x" in zr else 0  # gfx942 scratch: SVE; gfx90a: LDS
        return [(0x37 << 26) | (op << 18) | (seg << 14) | (sve << 13),
                z(zr, "s0", S0) | (z(zr, "s1", S1) << 8) | (saddr << 16) | (z(zr, "d", D) << 24)]
    return enc


def mubuf(op, zr):
    offen = 0 if "s0" in zr else 1
    lds = 1 if "x" in zr else 0
    return [(0x38 << 26) | (op << 18) | (lds << 16) | (offen << 12),
            z(zr, "s0", S0) | (z(zr, "d", D) << 8) | (z(zr, "s1", S1 // 4) << 16) | (z(zr, "s2", S2) << 24)]


def mtbuf(op, zr):
    return [(0x3A << 26) | (7 << 23) | (4 << 19) | (op << 15) | (1 << 12),
            S0 | (z(zr, "d", D) << 8) | ((S1 // 4) << 16) | (S2 << 24)]


def mimg(op, zr):
    dmask = 1 if "x" in zr else 0xF
    return [(0x3C << 26) | (op << 18) | (dmask << 8),
            z(zr, "s0", S0) | (z(zr, "d", D) << 8) | ((S1 // 4) << 16) | (z(zr, "s2", S2 // 4) << 21)]


def exp(op, zr):
    return [(0x31 << 26) | 0xF | (op << 4), z(zr, "s0", 0x08080808)]


def vintrp(op, zr):
    return [(0x35 << 26) | (z(zr, "d", D) << 18) | (op << 16) | z(zr, "s0", S0)]


# Opcode counts stop where the next encoding's prefix begins (SOP2 opcodes 0x60+ are SOPK
# words, SOPK 0x1d+ are SOP1/SOPC/SOPP, VOP2 0x3e/0x3f are VOPC/VOP1, VOP3 0x380+ are VOP3P).
ENCODINGS = [
    ("SOP2", 96, sop2, "d s0 s1"), ("SOPK", 29, sopk, "d s0 x"), ("SOP1", 256, sop1, "d s0"),
    ("SOPC", 128, sopc, "s0 s1"), ("SOPP", 128, sopp, "s0"), ("SMEM", 256, smem, "d s0 s1"),
    ("VOP1", 256, vop1, "d s0"), ("VOP2", 62, vop2, "x"), ("VOPC", 256, vopc, ""),
    ("VOP3", 896, vop3, "d s0 s1 s2 x"), ("VOP3P", 128, vop3p, "d s1 s2"),
    ("DS", 256, ds, "d s0 s1 s2 x"), ("FLAT", 128, flat_seg(0), "d s0 s1 s2"),
    ("SCRATCH", 128, flat_seg(1), "d s0 s1 s2 x"), ("GLOBAL", 128, flat_seg(2), "d s0 s1 s2"),
    ("MUBUF", 128, mubuf, "d s0 s1 s2 x"), ("MTBUF", 16, mtbuf, "d"),
    ("MIMG", 128, mimg, "d s0 s2 x"), ("EXP", 64, exp, "s0"), ("VINTRP", 4, vintrp, "d s0"),
]


def variants(fields, flag_first):
    """Field subsets to zero, fewest first. 'x' is an extra flag bit of the encoding (a literal,
    GDS, LDS, SVE, the VOP3B carry-out): tried set first when it adds an operand, else last."""
    fs = [f for f in fields.split() if f != "x"]
    out = []
    for k in range(len(fs) + 1):
        out += [set(zero) for zero in combinations(fs, k)]
    if "x" not in fields.split():
        return out
    flagged = [v | {"x"} for v in out]
    return flagged + out if flag_first else out + flagged


class GenError(Exception):
    """Something about llvm-mc the generator cannot work with: recorded as an "error" line that
    fails test_isa_decode, rather than failing the build of everything else."""


PAD_A, PAD_B = 0xBF800007, 0xBF800006   # s_nop 7, s_nop 6: never a candidate


def hex_bytes(words):
    return " ".join("0x%02x" % (w >> (8 * i) & 0xFF) for w in words for i in range(4))


def parse_encoding(enc):
    b = [int(x, 16) for x in enc.strip().strip("[]").split(",")]
    return tuple(b[i] | b[i + 1] << 8 | b[i + 2] << 16 | b[i + 3] << 24 for i in range(0, len(b), 4))


def mc_disassemble(mc, target, wordlists, exact=True):
    """{words tuple: printed text} for the word lists LLVM decodes as one whole instruction.

    llvm-mc reads its input as one byte stream, so every candidate is followed by s_nop 7 and
    s_nop 6: a candidate that decodes to one instruction of exactly its own length prints one
    line, then both s_nops. With `exact`, LLVM must also encode its reading back to the same
    words (the enumeration wants canonical encodings); without it, an instruction LLVM reads
    but encodes differently (an i16 operand holding a float inline constant) is kept."""
    lines = []
    for ws in wordlists:
        lines += [hex_bytes(ws), hex_bytes([PAD_A]), hex_bytes([PAD_B])]
    res = subprocess.run([mc, "-arch=amdgcn", "-mcpu=" + target, "-disassemble", "-show-encoding"],
                         input="\n".join(lines) + "\n", capture_output=True, text=True, check=False)
    warned = {int(m.group(1)) - 1 for m in re.finditer(r"^<stdin>:(\d+):\d+: warning", res.stderr, re.M)}
    out, group, i = {}, [], 0
    for line in res.stdout.splitlines():
        if "; encoding:" not in line:
            continue
        text, enc = line.split("; encoding:")
        words = parse_encoding(enc)
        if words != (PAD_B,):
            group.append((text.strip(), words))
            continue
        if i < len(wordlists):
            mine = [(t, w) for t, w in group if w != (PAD_A,)]
            whole = len(mine) == 1 and len(group) == 2 and group[1][1] == (PAD_A,) and 3 * i not in warned
            ws = tuple(wordlists[i])
            # "/*": LLVM flags an operand as invalid for the instruction, not a decode
            if whole and "/*" not in mine[0][0] and (not exact or mine[0][1] == ws):
                out.setdefault(ws, mine[0][0])
        group, i = [], i + 1
    if i != len(wordlists):   # the markers must line up, or the readings would be misassigned
        raise GenError("llvm-mc's disassembly lost step (%d of %d markers) for %s" % (i, len(wordlists), target))
    return out


def enumerate_opcodes(mc, target):
    """[(enc, opcode, words, text)]: the first (richest) marker variant LLVM decodes."""
    found = []
    for enc, count, fn, fields in ENCODINGS:
        # GDS, MUBUF LDS and gfx90a scratch LDS are rarely-used modes, tried last
        vs = variants(fields, enc not in ("DS", "MUBUF", "MIMG") and (enc != "SCRATCH" or target == "gfx942"))
        if enc == "VOP3":   # sources that must be SGPRs, tried after the all-VGPR forms
            vs += [v | t for t in ({"t1"}, {"t2"}, {"t0", "t1"}, {"t1", "t2"}) for v in vs[:1] + vs[-16:-15]]
        cand = [[fn(op, v) for v in vs] for op in range(count)]
        dis = mc_disassemble(mc, target, [w for ws in cand for w in ws])
        for op, ws in enumerate(cand):
            for w in ws:
                t = dis.get(tuple(w))
                if t is None:
                    continue
                if enc == "VOP3" and (w[0] >> 8 & 0x7F) == SD and "s[24:25]" not in t:
                    continue  # the carry-out marker must show up, else it was read as modifiers
                found.append((enc, op, tuple(w), t))
                break
    return found


# ---- text handling ---------------------------------------------------------------------------

def split_top(s, seps):
    """Split at characters in seps outside brackets and parentheses."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch in seps and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return [x.strip() for x in out if x.strip()]


def tokenize(text):
    """(mnemonic, operands, modifiers)."""
    parts = text.split(None, 1)
    mn, rest = parts[0], parts[1] if len(parts) > 1 else ""
    chunks = split_top(rest, ",")
    ops, mods = [], []
    for i, c in enumerate(chunks):
        sub = split_top(c, " ")
        if i < len(chunks) - 1:
            ops.append(c)
        else:
            ops.append(sub[0])
            mods = sub[1:]
    if not rest:
        ops = []
    return mn, ops, mods


def join(mn, ops, mods):
    return " ".join([mn + (" " + ", ".join(ops) if ops else "")] + list(mods))


REG = re.compile(r"^([svat]|ttmp)(?:(\d+)|\[(\d+):(\d+)\])$")
SPECIAL = {"vcc": 106, "vcc_lo": 106, "vcc_hi": 107, "exec": 126, "exec_lo": 126, "exec_hi": 127,
           "m0": 124, "scc": 253, "src_scc": 253, "flat_scratch": 102, "flat_scratch_lo": 102,
           "flat_scratch_hi": 103, "xnack_mask": 104, "xnack_mask_lo": 104, "xnack_mask_hi": 105,
           "src_shared_base": 235, "src_shared_limit": 236, "src_private_base": 237,
           "src_private_limit": 238, "src_pops_exiting_wave_id": 239, "src_vccz": 251,
           "src_execz": 252, "vccz": 251, "execz": 252, "lds_direct": 254, "src_lds_direct": 254,
           "off": 0x7F}
FLOATS = {"0.5": 240, "-0.5": 241, "1.0": 242, "-1.0": 243, "2.0": 244, "-2.0": 245, "4.0": 246,
          "-4.0": 247, "0.15915494": 248}


def strip_mods(tok):
    """(bare operand, neg, abs, sext)."""
    neg = ab = sx = 0
    t = tok
    while True:
        if t.startswith("sext(") and t.endswith(")"):
            sx, t = 1, t[5:-1]
        elif t.startswith("neg(") and t.endswith(")"):
            neg, t = 1, t[4:-1]
        elif t.startswith("abs(") and t.endswith(")"):
            ab, t = 1, t[4:-1]
        elif t.startswith("-|") and t.endswith("|"):
            neg, ab, t = 1, 1, t[2:-1]
        elif t.startswith("|") and t.endswith("|") and len(t) > 1:
            ab, t = 1, t[1:-1]
        elif t.startswith("-") and len(t) > 1 and not t[1].isdigit():
            neg, t = 1, t[1:]
        else:
            return t, neg, ab, sx


def reg_of(tok):
    """(kind, first, count) of a register token, or None."""
    m = REG.match(tok)
    if not m:
        return None
    if m.group(2) is not None:
        return m.group(1), int(m.group(2)), 1
    return m.group(1), int(m.group(3)), int(m.group(4)) - int(m.group(3)) + 1


def number(tok):
    try:
        return int(tok, 0)
    except ValueError:
        return None


def operand_code(tok):
    """Operand code as struct isa_inst holds it, ('lit', value) for a literal, or None."""
    r = reg_of(tok)
    if r:
        kind, n, _ = r
        return {"s": n, "ttmp": 108 + n, "v": V + n, "a": 512 + n}[kind]
    if tok in SPECIAL:
        return SPECIAL[tok]
    if tok in FLOATS:
        return FLOATS[tok]
    v = number(tok)
    if v is None:
        try:
            float(tok)
            return ("lit", None)   # a float literal: value checked by the words only
        except ValueError:
            return None
    if 0 <= v <= 64:
        return 128 + v
    if -16 <= v < 0:
        return 192 - v
    return ("lit", v)


# ---- roles: which printed operand is which decoder field -------------------------------------

def roles_of(enc, ops, mn=""):
    """Role per operand position, from the marker register numbers of the canonical text."""
    marks = {"SMEM": {D: "dst", S0: "addr", S1: "soffset"},
             "DS": {D: "dst", S0: "addr", S1: "data0", S2: "data1"},
             "MUBUF": {D: "data0", S0: "addr", S1: "srsrc", S2: "soffset"},
             "MTBUF": {D: "data0", S0: "addr", S1: "srsrc", S2: "soffset"},
             "MIMG": {D: "data0", S0: "addr", S1: "srsrc", S2: "saddr"}}
    flat = {D: "dst", S0: "addr", S1: "data0", S2: "saddr"}
    m = marks.get(enc, flat if enc in ("FLAT", "SCRATCH", "GLOBAL") else
                  {D: "dst", S0: "src0", S1: "src1", S2: "src2", SD: "sdst"})
    roles = []
    for i, tok in enumerate(ops):
        bare = strip_mods(tok)[0]
        r = reg_of(bare)
        role = m.get(r[1]) if r else None
        if enc == "VOPC" and i == 0:
            role = "dst"
        if role is None and number(bare) is not None:
            role = {"SMEM": "offset", "SOPK": "simm16", "SOPP": "simm16", "VOP2": "literal"}.get(enc)
            if mn.startswith("s_setreg_imm32"):
                role = "literal"
        if enc == "GLOBAL" and bare == "off" and i >= 2:
            role = "saddr"
        if enc == "SCRATCH" and i == len(ops) - 1 and bare == "off":
            role = "saddr"
        roles.append(role)
    return roles


# ---- step 2: variants ------------------------------------------------------------------------

def shift_reg(tok, kind, by, limit):
    r = reg_of(tok)
    if not r or r[0] != kind:
        return None
    _, n, c = r
    n2 = n + by
    if n2 + c - 1 > limit:
        return None
    return "%s%d" % (kind, n2) if c == 1 and "[" not in tok else "%s[%d:%d]" % (kind, n2, n2 + c - 1)


def retype(tok, kind):
    r = reg_of(tok)
    if not r:
        return None
    _, n, c = r
    return "%s%d" % (kind, n) if "[" not in tok else "%s[%d:%d]" % (kind, n, n + c - 1)


def with_op(ops, i, tok):
    o = list(ops)
    o[i] = tok
    return o


def pick(items, k, seed):
    """k of the items, rotated by seed: every item is exercised by some opcodes, and each opcode
    gets a few, which keeps the case count (and the test) small."""
    if len(items) <= k:
        return list(items)
    start = seed % len(items)
    return [items[(start + i) % len(items)] for i in range(k)]


def scalar_sources(tok):
    """Replacements for a source operand: scalar registers, inline constants, literals."""
    bare = strip_mods(tok)[0]
    r = reg_of(bare)
    n = r[2] if r else 1
    if n == 1:
        regs = ["s40", "s101", "vcc_lo", "m0", "exec_hi", "ttmp3", "src_scc", "vcc_hi", "exec_lo"]
    elif n == 2:
        regs = ["s[40:41]", "vcc", "exec", "ttmp[4:5]", "flat_scratch", "s[100:101]"]
    else:
        regs = ["s[40:%d]" % (40 + n - 1), "ttmp[4:%d]" % (4 + n - 1)]
    return regs, ["0", "64", "-16", "0.5", "-4.0", "0.15915494", "1.0", "-1", "src_shared_base",
                  "src_private_limit"], ["0x4d2", "0x3e4ccccd", "-1234", "0xffff0000"]


def source_variants(mn, ops, mods, i, seed):
    regs, inl, lits = scalar_sources(ops[i])
    return [join(mn, with_op(ops, i, rep), mods)
            for rep in pick(regs, 2, seed) + pick(inl, 2, seed + i) + pick(lits, 1, seed + 2 * i)]


SRC_ROLES = ("src0", "src1", "src2")
# Literals that are 0.5 in one operand type only: llvm-mc encodes them as the inline constant 0.5
# exactly when the operand has that type, and the decoder must then read inline constants the
# same way (fp16: half precision; a 64-bit source: double).
TYPE_PROBES = {"0x3800": ("fp16", 1), "0x3f000000": ("fp16", 0), "0x3fe00000": ("src_w", 2)}
FLAT_BITS = {"gfx90a": [["glc"], ["slc"], ["glc", "slc"], ["scc"], ["glc", "slc", "scc"]],
             "gfx942": [["sc0"], ["sc1"], ["nt"], ["sc0", "sc1", "nt"], ["sc0", "nt"]]}
DPP_CTRLS = ["quad_perm:[1,2,3,0] row_mask:0x5 bank_mask:0xa bound_ctrl:1",
             "row_shl:1", "row_shr:15 row_mask:0x3", "row_ror:7 bank_mask:0x1", "wave_shl:1",
             "wave_rol:1", "wave_shr:1", "wave_ror:1", "row_mirror", "row_half_mirror",
             "row_bcast:15", "row_bcast:31", "row_newbcast:5 row_mask:0xc", "row_newbcast:15",
             "quad_perm:[3,3,0,1]"]
SDWA_MODS = ["dst_sel:BYTE_1 dst_unused:UNUSED_SEXT src0_sel:WORD_1 src1_sel:BYTE_3",
             "dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_2 src1_sel:WORD_0",
             "dst_sel:BYTE_3 dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD clamp",
             "src0_sel:WORD_0 src1_sel:BYTE_1", "dst_sel:WORD_0 src0_sel:BYTE_3 src1_sel:WORD_1 mul:2",
             "dst_sel:BYTE_2 dst_unused:UNUSED_PRESERVE src0_sel:DWORD src1_sel:WORD_1 div:2"]
VOP3_MODS = [["clamp"], ["mul:2"], ["mul:4"], ["div:2"], ["clamp", "div:2"], ["op_sel:[1,0,0,0]"],
             ["op_sel:[0,1,1,1]"], ["op_sel:[1,1]"], ["op_sel:[0,1,1]"], ["op_sel:[1,0,1]"],
             ["op_sel:[0,0,0,1]"], ["op_sel:[0,1,0]"], ["clamp", "mul:4"]]
VOP3P_MODS = [["op_sel:[1,0,1]", "op_sel_hi:[0,1,0]", "neg_lo:[1,0,1]", "neg_hi:[0,1,1]", "clamp"],
              ["op_sel:[0,1]", "op_sel_hi:[1,0]", "neg_lo:[0,1]", "neg_hi:[1,0]"],
              ["op_sel_hi:[0,0,0]"], ["op_sel_hi:[0,0]"], ["neg_lo:[1,1,1]"], ["clamp"],
              ["op_sel:[1,1,0]", "neg_hi:[1,0,0]"], ["op_sel:[1,0]", "neg_lo:[1,1]"]]
MAI_MODS = [["cbsz:3", "abid:5", "blgp:6"], ["cbsz:1", "abid:1"], ["blgp:1"], ["neg:[1,0,1]"],
            ["neg:[0,1,0]"], ["cbsz:4", "abid:15", "blgp:7"], ["abid:2"]]


def vgpr_variants(mn, ops, mods, roles):
    out = []
    hi = [shift_reg(t, "v", 200, 255) or shift_reg(t, "s", 40, 101) or shift_reg(t, "a", 200, 255) or t
          for t in ops]
    out.append(join(mn, hi, mods))
    isv = [bool(roles[i]) and (reg_of(t) or ("",))[0] == "v" for i, t in enumerate(ops)]
    for i, t in enumerate(ops):   # one operand at a time in AGPRs
        if isv[i]:
            out.append(join(mn, with_op(ops, i, retype(t, "a")), mods))
    allacc = [retype(t, "a") if isv[i] and roles[i] in ("dst", "data0", "data1", "src2") else t
              for i, t in enumerate(ops)]
    out.append(join(mn, allacc, mods))
    top = [shift_reg(retype(t, "a"), "a", 230, 255) if isv[i] else t for i, t in enumerate(ops)]
    if None not in top:
        out.append(join(mn, top, mods))
    return out


def valu_variants(enc, mn, ops, mods, roles, seed):
    out = vgpr_variants(mn, ops, mods, roles)
    srcs = [i for i, r in enumerate(roles) if r in SRC_ROLES]
    for i in srcs:
        out += source_variants(mn, ops, mods, i, seed)
        out += [join(mn, with_op(ops, i, probe), mods) for probe in TYPE_PROBES]
    if enc in ("VOP3", "VOP3P") or mn.endswith("_e64"):
        o, o2 = list(ops), list(ops)
        for k, i in enumerate(srcs):
            o[i] = ("-%s" if k % 2 == 0 else "|%s|") % ops[i]
            o2[i] = ("-|%s|" if k % 2 == 0 else "-%s") % ops[i]
        out += [join(mn, o, mods), join(mn, o2, mods)]
        out += [join(mn, ops, mods + m) for m in pick(VOP3_MODS, 5, seed)]
        if srcs:
            out.append(join(mn, with_op(ops, srcs[0], "neg(%s)" % ops[srcs[0]]), mods + ["clamp"]))
            out.append(join(mn, with_op(o2, srcs[-1], "s40"), mods + ["mul:2"]))
    if enc == "VOP3P":
        out += [join(mn, ops, mods + m) for m in pick(VOP3P_MODS, 4, seed) + pick(MAI_MODS, 3, seed)]
    if enc in ("VOP1", "VOP2", "VOPC") and mn.endswith("_e32"):
        base = mn[:-4]
        out += [join(base + "_dpp", ops, mods + m.split()) for m in pick(DPP_CTRLS, 4, seed)]
        out.append(join(base + "_dpp", ops, mods + ["row_newbcast:9"]))
        out += [join(base + "_sdwa", ops, mods + m.split()) for m in pick(SDWA_MODS, 2, seed)]
        if srcs:
            o = with_op(ops, srcs[0], "-" + ops[srcs[0]])
            if len(srcs) > 1:
                o = with_op(o, srcs[1], "|%s|" % ops[srcs[1]])
            out.append(join(base + "_dpp", o, mods + ["row_shl:3"]))
            out.append(join(base + "_sdwa", with_op(ops, srcs[0], "sext(%s)" % ops[srcs[0]]),
                            mods + ["src0_sel:BYTE_1"]))
            o = with_op(ops, srcs[0], "-|%s|" % ops[srcs[0]])
            if len(srcs) > 1:
                o = with_op(o, srcs[1], "-%s" % ops[srcs[1]])
            out.append(join(base + "_sdwa", o, mods))
            for rep in pick(["s40", "s[40:41]", "vcc_lo", "0", "-1", "0.5", "ttmp1", "exec_hi"], 2, seed):
                out.append(join(base + "_sdwa", with_op(ops, srcs[0], rep), mods + ["src0_sel:WORD_1"]))
                if len(srcs) > 1:
                    out.append(join(base + "_sdwa", with_op(ops, srcs[1], rep), mods + ["src1_sel:BYTE_2"]))
            if len(srcs) > 1:
                out.append(join(base + "_sdwa", with_op(ops, srcs[1], "sext(%s)" % ops[srcs[1]]), mods))
            if enc == "VOPC":
                out.append(join(base + "_sdwa", with_op(ops, 0, "s[40:41]"), mods + ["src0_sel:WORD_1"]))
                out.append(join(base + "_sdwa", with_op(ops, 0, "ttmp[2:3]"), mods))
    return out


def salu_variants(enc, mn, ops, mods, roles, seed):
    out = [join(mn, [shift_reg(t, "s", 60, 101) or t for t in ops], mods)]
    for i, r in enumerate(roles):
        if r in ("src0", "src1"):
            out += source_variants(mn, ops, mods, i, seed)
        if r == "dst":
            out += [join(mn, with_op(ops, i, rep), mods) for rep in
                    pick(["vcc", "exec", "m0", "vcc_hi", "ttmp[8:9]", "ttmp7", "flat_scratch", "exec_lo"], 2, seed)]
        if r == "simm16":
            out += [join(mn, with_op(ops, i, rep), mods) for rep in
                    pick(["0", "1", "-1", "0x7fff", "-32768", "0xfffe", "-3", "12", "0x1234"], 3, seed)]
    return out


def mem_variants(enc, mn, ops, mods, roles, target, seed):
    out = vgpr_variants(mn, ops, mods, roles)
    bits = FLAT_BITS[target]
    if enc == "MIMG":   # each modifier bit alone, then together (lines llvm-mc refuses drop out)
        for extra in (["unorm"], ["glc"], ["slc"], ["da"], ["lwe"], ["a16"], ["unorm", "glc", "slc", "da"]):
            out.append(join(mn, ops, [m for m in mods if m not in extra] + extra))
    if enc == "SMEM":
        for i, r in enumerate(roles):
            if r == "offset":
                out += [join(mn, with_op(ops, i, rep), mods) for rep in
                        pick(["0", "0x7ff", "0xfffff", "-16", "-0x100000", "s40", "m0", "0x80000"], 3, seed)]
                out.append(join(mn, with_op(ops, i, "s40"), mods + ["offset:0x1234"]))
            if r == "soffset":
                out.append(join(mn, ops, mods + ["offset:0x1234"]))
        out.append(join(mn, ops, mods + ["glc"]))
        out.append(join(mn, [shift_reg(t, "s", 60, 101) or t for t in ops], mods + ["glc"]))
    if enc == "DS":
        out += [join(mn, ops, mods + m) for m in
                pick([["offset:65535"], ["offset:4"], ["offset0:3", "offset1:250"], ["offset1:1"], ["gds"],
                      ["offset:100", "gds"], ["offset0:255", "offset1:7", "gds"], ["offset:0x8001"]], 4, seed)]
    if enc in ("FLAT", "GLOBAL", "SCRATCH"):
        out += [join(mn, ops, mods + m) for m in
                pick([["offset:4095"], ["offset:-4096"], ["offset:16"], ["offset:-1"], ["offset:2048"]], 2, seed)]
        out += [join(mn, ops, mods + ["offset:8"] + b) for b in pick(bits, 2, seed)]
        for i, r in enumerate(roles):
            if r == "saddr":
                out.append(join(mn, with_op(ops, i, "s[40:41]" if enc == "GLOBAL" else "s40"), mods))
                out.append(join(mn, with_op(ops, i, "off"), mods + ["offset:-8"]))
                if enc == "SCRATCH":
                    out.append(join(mn, with_op(ops, i, "vcc_hi"), mods))
            if r == "addr" and enc == "SCRATCH":
                out.append(join(mn, with_op(ops, i, "off"), mods))
                if "saddr" in roles:
                    j = roles.index("saddr")
                    out.append(join(mn, with_op(with_op(ops, i, "off"), j, "s40"), mods + ["offset:12"]))
            if r == "addr" and enc == "GLOBAL" and "saddr" in roles:
                j = roles.index("saddr")
                out.append(join(mn, with_op(with_op(ops, i, "v200"), j, "s[40:41]"), mods + ["offset:-12"]))
    if enc in ("MUBUF", "MTBUF") and len(ops) < 2:   # cache maintenance: no operands
        out += [join(mn, ops, mods + b) for b in bits]
    elif enc in ("MUBUF", "MTBUF"):
        addr = roles.index("addr") if "addr" in roles else 1
        bare = [m for m in mods if m not in ("offen", "idxen") and not m.startswith("format:")]
        for a, m in (("off", []), ("v8", ["offen"]), ("v9", ["idxen"]), ("v[8:9]", ["idxen", "offen"])):
            out.append(join(mn, with_op(ops, addr, a), bare + m + pick([[], ["offset:4095"], ["offset:1"]], 1, seed)[0]))
        for b in pick(bits, 2, seed) + [["lds"]]:
            out.append(join(mn, with_op(ops, addr, "v8"), bare + ["offen", "offset:52"] + b))
        for i, r in enumerate(roles):
            if r == "soffset":
                out += [join(mn, with_op(ops, i, rep), mods) for rep in
                        pick(["s101", "m0", "0", "64", "-1", "vcc_lo", "ttmp5"], 2, seed)]
            if r == "srsrc":
                out += [join(mn, with_op(ops, i, rep), mods) for rep in pick(["s[96:99]", "ttmp[4:7]"], 1, seed)]
        if enc == "MTBUF":
            out += [join(mn, ops, bare + ["offen"] + f) for f in
                    pick([["format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT]"], ["format:[BUF_NUM_FORMAT_SINT]"],
                          ["format:[BUF_DATA_FORMAT_8_8_8_8]"], ["format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_SNORM]"],
                          ["format:[BUF_DATA_FORMAT_RESERVED_15,BUF_NUM_FORMAT_USCALED]"]], 3, seed)]
    return out


def make_variants(enc, text, target):
    mn, ops, mods = tokenize(text)
    roles = roles_of(enc, ops, mn)
    seed = zlib.crc32(text.encode())
    out = [text]
    if enc in ("VOP1", "VOP2", "VOPC", "VOP3", "VOP3P"):
        out += valu_variants(enc, mn, ops, mods, roles, seed)
    elif enc in ("SOP1", "SOP2", "SOPC", "SOPK", "SOPP"):
        out += salu_variants(enc, mn, ops, mods, roles, seed)
    else:
        out += mem_variants(enc, mn, ops, mods, roles, target, seed)
    seen, uniq = set(), []
    for t in out:
        if t not in seen:
            seen.add(t)
            uniq.append(t)
    return uniq


def mc_assemble(mc, target, lines):
    """[(line index, words)] for the lines llvm-mc accepts (rejected lines are dropped). A
    `.long <index>` after every line tells which output belongs to which input line."""
    src = "".join("%s\n.long %d\n" % (t, i) for i, t in enumerate(lines))
    res = subprocess.run([mc, "-triple=amdgcn-amd-amdhsa", "-mcpu=" + target, "-show-encoding"],
                         input=src, capture_output=True, text=True, check=False)
    out, pending = [], []
    for line in res.stdout.splitlines():
        if "; encoding:" in line:
            b = [int(x, 16) for x in line.split("; encoding:")[1].strip().strip("[]").split(",")]
            pending.append(tuple(b[i] | b[i + 1] << 8 | b[i + 2] << 16 | b[i + 3] << 24
                                 for i in range(0, len(b), 4)))
            continue
        m = re.match(r"^\s*\.long\s+(\d+)\s*$", line)
        if m:
            if len(pending) == 1:
                out.append((int(m.group(1)), pending[0]))
            pending = []
    return out


# ---- step 3: expectations from LLVM's text ---------------------------------------------------

F16_INLINE = {0x3800: 240, 0xB800: 241, 0x3C00: 242, 0xBC00: 243, 0x4000: 244, 0xC000: 245,
              0x4400: 246, 0xC400: 247, 0x3118: 248}   # 0.5 -0.5 1 -1 2 -2 4 -4 1/(2pi) as f16
SEL = {"BYTE_0": 0, "BYTE_1": 1, "BYTE_2": 2, "BYTE_3": 3, "WORD_0": 4, "WORD_1": 5, "DWORD": 6}
UNUSED = {"UNUSED_PAD": 0, "UNUSED_SEXT": 1, "UNUSED_PRESERVE": 2}
DFMT = {"INVALID": 0, "8": 1, "16": 2, "8_8": 3, "32": 4, "16_16": 5, "10_11_11": 6, "11_11_10": 7,
        "10_10_10_2": 8, "2_10_10_10": 9, "8_8_8_8": 10, "32_32": 11, "16_16_16_16": 12,
        "32_32_32": 13, "32_32_32_32": 14, "RESERVED_15": 15}
NFMT = {"UNORM": 0, "SNORM": 1, "USCALED": 2, "SSCALED": 3, "UINT": 4, "SINT": 5, "RESERVED_6": 6,
        "FLOAT": 7}
DPP_SIMPLE = {"wave_shl": 0x130, "wave_rol": 0x134, "wave_shr": 0x138, "wave_ror": 0x13C,
              "row_mirror": 0x140, "row_half_mirror": 0x141}
DPP_N = {"row_shl": 0x100, "row_shr": 0x110, "row_ror": 0x120, "row_newbcast": 0x150}

# C field identifiers (enum decode_field in test_isa_decode.c, same order)
FIELDS = ["dst", "sdst", "src0", "src1", "src2", "addr", "data0", "data1", "saddr", "srsrc",
          "soffset", "literal", "abs", "neg", "neg_hi", "opsel", "opsel_hi", "opsel_hi2", "clamp",
          "omod", "cbsz", "abid", "blgp", "dpp_kind", "dpp_ctrl", "row_mask", "bank_mask",
          "bound_ctrl", "sdwa_dst_sel", "sdwa_dst_unused", "sdwa_sel0", "sdwa_sel1", "sdwa_sext0",
          "sdwa_sext1", "offset", "glc", "slc", "sc1", "gds", "offen", "idxen", "lds", "sve",
          "simm16", "dfmt", "nfmt", "dst_w", "src0_w", "src1_w", "src2_w", "fp16"]


def bits_of(lst):
    return sum(int(b) << i for i, b in enumerate(lst.strip("[]").split(",")))


def mod_dict(mods):
    d = {}
    for m in mods:
        if ":" in m:
            k, v = m.split(":", 1)
            d[k] = v
        else:
            d[m] = True
    return d


def probe_types(e, mn, canon_roles, ops, source):
    """A TYPE_PROBES literal that LLVM turned into an inline constant tells the operand's type,
    which fixes what an inline float constant means there (see TYPE_PROBES)."""
    sops = tokenize(source)[1]
    if len(sops) != len(ops) or "_mix" in mn:   # mix ops: the type follows op_sel_hi
        return
    for role, given, printed in zip(canon_roles, sops, ops):
        if role in SRC_ROLES and given in TYPE_PROBES and strip_mods(printed)[0] in FLOATS:
            field, value = TYPE_PROBES[given]
            if field == "fp16":
                e["fp16"], e["probe_src"] = value, role
            else:
                e[role + "_w"] = value


def expect(enc, target, canon_roles, text, words, source=""):
    """{field: value} from LLVM's printed instruction, or None when it cannot be read."""
    mn, ops, mods = tokenize(text)
    # Where a literal can be: after a 32-bit encoding (not DPP/SDWA). gfx9 VOP3 has none.
    has_literal = (len(words) == 2 and enc in ("SOP1", "SOP2", "SOPC", "SOPK", "VOP1", "VOP2", "VOPC")
                   and not mn.endswith(("_dpp", "_sdwa")))
    if not canon_roles:   # no operands (buffer_wbl2 sc1): every token is a modifier
        ops, mods = [], ops + mods
    if not ops and canon_roles == ["simm16"]:   # s_endpgm, s_nop 0...: a zero immediate is not printed
        ops = ["0"]
    if len(ops) != len(canon_roles):
        return None
    md = mod_dict(mods)
    e = {}
    is_dpp, is_sdwa = mn.endswith("_dpp"), mn.endswith("_sdwa")
    mai = mn.startswith(("v_mfma", "v_smfmac"))
    negb = absb = sext = 0
    literal = None
    for i, (role, tok) in enumerate(zip(canon_roles, ops)):
        if role is None:
            continue
        bare, n, a, sx = strip_mods(tok)
        if role in SRC_ROLES:
            k = SRC_ROLES.index(role)
            negb |= n << k
            absb |= a << k
            sext |= sx << k
        if role == "simm16":
            v = number(bare)
            if v is not None:
                e["simm16"] = ((v & 0xFFFF) ^ 0x8000) - 0x8000
            continue
        if role == "offset" and number(bare) is not None:
            e["offset"] = number(bare)
            continue
        if role == "offset":   # an SGPR (or M0) in the SMEM offset operand
            role = "soffset"
        if role == "literal":
            literal = number(bare)
            e["literal"] = literal & 0xFFFFFFFF
            continue
        code = operand_code(bare)
        if code is None:
            continue
        r = reg_of(bare)
        if r and enc in ("SOP1", "SOP2", "SOPC", "SOPK", "VOP1", "VOP2", "VOPC", "VOP3", "VOP3P") and \
                role in ("dst",) + SRC_ROLES:
            e[role + "_w"] = r[2]   # register operand width in dwords, as the table must say
        if isinstance(code, tuple) and not has_literal and code[1] in F16_INLINE:
            # no literal in the words: LLVM prints a float inline constant of a 16-bit integer
            # operand as the half-precision bits it stands for (0.5 -> 0x3800)
            e[role] = F16_INLINE[code[1]]
            if role == "src0":
                e["fp16"] = 1
            continue
        if isinstance(code, tuple):
            if code[1] is not None:
                literal = code[1]
            e[role] = 255
            continue
        if role == "srsrc" or role == "addr" and enc == "SMEM" or role == "saddr" and enc == "MIMG":
            e[role] = code
            continue
        if role == "saddr" and enc == "SCRATCH" and bare == "off":
            e[role] = 0x7F
            continue
        if role == "addr" and bare == "off":
            continue
        e[role] = code
    if enc in ("VOP1", "VOP2", "VOPC"):
        e["dpp_kind"] = 1 if is_dpp else 2 if is_sdwa else 0
        if is_dpp:
            ctrl = None
            for k, v in md.items():
                if k == "quad_perm":
                    p = [int(x) for x in v.strip("[]").split(",")]
                    ctrl = p[0] | p[1] << 2 | p[2] << 4 | p[3] << 6
                elif k in DPP_SIMPLE:
                    ctrl = DPP_SIMPLE[k]
                elif k in DPP_N:
                    ctrl = DPP_N[k] + int(v, 0)
                elif k == "row_bcast":
                    ctrl = 0x142 if v == "15" else 0x143
            if ctrl is None:
                return None
            e.update(dpp_ctrl=ctrl, row_mask=int(md.get("row_mask", "0xf"), 0),
                     bank_mask=int(md.get("bank_mask", "0xf"), 0), bound_ctrl=int(md.get("bound_ctrl", 0)))
            e.update(neg=negb & 3, abs=absb & 3)
        elif is_sdwa:
            e.update(sdwa_sel0=SEL[md.get("src0_sel", "DWORD")], sdwa_sext0=sext & 1, neg=negb & 3, abs=absb & 3)
            if enc != "VOP1":
                e.update(sdwa_sel1=SEL[md.get("src1_sel", "DWORD")], sdwa_sext1=sext >> 1 & 1)
            if enc != "VOPC":
                e.update(sdwa_dst_sel=SEL[md.get("dst_sel", "DWORD")],
                         sdwa_dst_unused=UNUSED[md.get("dst_unused", "UNUSED_PAD")],
                         clamp=int("clamp" in md), omod=omod_of(md))
        elif literal is not None:
            e["literal"] = literal & 0xFFFFFFFF
    elif enc == "VOP3":
        e.update(neg=negb, clamp=int("clamp" in md), omod=omod_of(md))
        if "sdst" not in e:
            e.update(abs=absb, opsel=vop3_opsel(md.get("op_sel"), canon_roles))
    elif enc == "VOP3P":
        if mai:
            e.update(cbsz=int(md.get("cbsz", "0"), 0), abid=int(md.get("abid", "0"), 0),
                     blgp=bits_of(md["neg"]) if "neg" in md else int(md.get("blgp", "0"), 0))
        elif "_mix" in mn:
            # v_fma_mix*/v_mad_mix*: NEG and NEG_HI hold the sources' neg and abs modifiers
            e.update(clamp=int("clamp" in md), opsel=bits_of(md["op_sel"]) if "op_sel" in md else 0,
                     neg=negb, neg_hi=absb)
            nsrc = sum(1 for r in canon_roles if r in SRC_ROLES)
            e["opsel_hi"] = bits_of(md["op_sel_hi"]) if "op_sel_hi" in md else 0
        else:
            nsrc = sum(1 for r in canon_roles if r in SRC_ROLES)
            full = (1 << nsrc) - 1
            e.update(clamp=int("clamp" in md), opsel=bits_of(md["op_sel"]) if "op_sel" in md else 0,
                     neg=bits_of(md["neg_lo"]) if "neg_lo" in md else 0,
                     neg_hi=bits_of(md["neg_hi"]) if "neg_hi" in md else 0)
            hi = bits_of(md["op_sel_hi"]) if "op_sel_hi" in md else full
            if nsrc == 3:
                e["opsel_hi"] = hi
            elif nsrc == 2:
                e["opsel_hi2"] = hi
    elif enc == "SOPK" and literal is not None:
        e["literal"] = literal & 0xFFFFFFFF
    elif enc in ("SOP1", "SOP2", "SOPC") and literal is not None:
        e["literal"] = literal & 0xFFFFFFFF
    elif enc == "SMEM":
        if "offset" in md:
            e["offset"] = int(md["offset"], 0)
        if "offset" in canon_roles:   # s_memtime, s_dcache_*: no offset operand at all
            e.setdefault("offset", 0)
            e.setdefault("soffset", 0xFFFF)
        e["glc"] = int("glc" in md)
    elif enc == "DS":
        parts = [number(md.get(k, "0")) for k in ("offset", "offset0", "offset1")]
        if None not in parts:   # ds_swizzle prints its offset symbolically: not checked
            e["offset"] = parts[0] | parts[1] | parts[2] << 8
        # the GWS instructions exist only with GDS set, and LLVM does not print it
        e["gds"] = int("gds" in md or mn.startswith("ds_gws"))
    elif enc in ("FLAT", "GLOBAL", "SCRATCH", "MUBUF", "MTBUF"):
        e["offset"] = int(md.get("offset", "0"), 0)
        e["glc"] = int("glc" in md or "sc0" in md)
        if enc != "MTBUF":
            e["slc"] = int("slc" in md or "nt" in md)
        e["sc1"] = int("scc" in md or "sc1" in md)
        if enc in ("MUBUF", "MTBUF"):
            e.update(offen=int("offen" in md), idxen=int("idxen" in md))
            if enc == "MUBUF":
                e["lds"] = int("lds" in md)
            if "data0" in e:
                e["dst"] = e["data0"]
        if enc == "SCRATCH" and target == "gfx942":
            e["sve"] = int("addr" in e)
        elif enc in ("FLAT", "GLOBAL", "SCRATCH"):
            e["lds"] = int("lds" in md)   # bit 13; gfx942's *_load_lds_* are opcodes of their own
        if enc == "MTBUF":
            df, nf = 1, 0
            f = md.get("format")
            if f is not None:
                if f.startswith("["):
                    for part in f.strip("[]").split(","):
                        if part.startswith("BUF_DATA_FORMAT_"):
                            df = DFMT[part[16:]]
                        elif part.startswith("BUF_NUM_FORMAT_"):
                            nf = NFMT[part[15:]]
                else:
                    df, nf = int(f, 0) & 0xF, int(f, 0) >> 4
            e.update(dfmt=df, nfmt=nf)
    elif enc == "MIMG":
        # decode_mimg.c packs DMASK, UNORM, DA, A16, LWE, D16 into `offset` (sim/isa/image.h)
        e["offset"] = (int(md.get("dmask", "0x1"), 0) | int("unorm" in md) << 4 | int("da" in md) << 5 |
                       int("a16" in md) << 6 | int("lwe" in md) << 7 | int("d16" in md) << 8)
        e.update(glc=int("glc" in md), slc=int("slc" in md))
        if "data0" in e:
            e["dst"] = e["data0"]
    if source:
        probe_types(e, mn, canon_roles, ops, source)
    return e


def vop3_opsel(text, roles):
    """VOP3 op_sel:[src0,src1,(src2,)dst]: one element per source, then the destination (bit 3)."""
    if text is None:
        return 0
    b = [int(x) for x in text.strip("[]").split(",")]
    nsrc = sum(1 for r in roles if r in SRC_ROLES)
    if len(b) != nsrc + 1:   # all four bits printed (v_cvt_sr_*8_f32's byte select)
        return sum(bit << i for i, bit in enumerate(b))
    return sum(bit << i for i, bit in enumerate(b[:nsrc])) | b[nsrc] << 3


def omod_of(md):
    return 1 if md.get("mul") == "2" else 2 if md.get("mul") == "4" else 3 if md.get("div") == "2" else 0


# ---- driver ----------------------------------------------------------------------------------

def base_name(mn):
    return re.sub(r"_(e32|e64|dpp|sdwa)$", "", mn)


def encoding_of(words):
    """The encoding class of an instruction word (the ISA's prefix table), for bookkeeping: a
    variant llvm-mc chose to encode differently from its opcode (v_nop written from v_nop_e64
    comes out as VOP1) is dropped rather than read with the wrong encoding's fields."""
    w = words[0]
    if w >> 31 == 0:
        return {0x3F: "VOP1", 0x3E: "VOPC"}.get(w >> 25, "VOP2")
    top9 = {0x17D: "SOP1", 0x17E: "SOPC", 0x17F: "SOPP", 0x1A7: "VOP3P"}.get(w >> 23)
    if top9:
        return top9
    if w >> 28 == 0xB:
        return "SOPK"
    if w >> 30 == 2:
        return "SOP2"
    if w >> 26 == 0x37:
        return ("FLAT", "SCRATCH", "GLOBAL", "?")[w >> 14 & 3]
    return {0x30: "SMEM", 0x31: "EXP", 0x34: "VOP3", 0x35: "VINTRP", 0x36: "DS", 0x38: "MUBUF",
            0x3A: "MTBUF", 0x3C: "MIMG"}.get(w >> 26, "?")


def build_target(mc, target):
    canon = enumerate_opcodes(mc, target)
    cases, covered, excluded_ops = [], {}, {}
    seen = set()
    lines, src = [], []   # assembly lines and the canonical entry each came from
    for ci, (enc, op, words, text) in enumerate(canon):
        seen.add(words)
        if excluded(enc, text):
            excluded_ops[(enc, op)] = base_name(tokenize(text)[0])
            cases.append((words, None, {}))
            continue
        # the marker words themselves, as LLVM's disassembler read them
        e = expect(enc, target, roles_of(enc, tokenize(text)[1], tokenize(text)[0]), text, words)
        if e is not None:
            cases.append((words, tokenize(text)[0], e))
            covered[(enc, op)] = 1
        for t in make_variants(enc, text, target):
            lines.append(t)
            src.append(ci)
    for ai, alias in enumerate(ALIASES[target]):
        for shape in ALIAS_SHAPES:
            lines.append(alias + " " + shape)
            src.append(-1 - ai)
    assembled = mc_assemble(mc, target, lines)
    dis = mc_disassemble(mc, target, [list(w) for _, w in assembled], exact=False)
    dropped = 0
    aliases_ok = set()
    for li, words in assembled:
        if words in seen and src[li] >= 0:
            continue
        seen.add(words)
        text = dis.get(words)
        ci = src[li]
        if text is None:
            dropped += 1
            continue
        if ci < 0:   # an alias: only the name LLVM's disassembler gives is expected
            cases.append((words, base_name(tokenize(text)[0]), {}))
            aliases_ok.add(-1 - ci)
            continue
        enc, op, _, ctext = canon[ci]
        cmn, cops, _ = tokenize(ctext)
        mn = tokenize(text)[0]
        if base_name(mn) != base_name(cmn) or encoding_of(words) != enc:
            dropped += 1
            continue
        e = expect(enc, target, roles_of(enc, cops, cmn), text, words, lines[li])
        if e is None:
            dropped += 1
            continue
        cases.append((words, mn, e))
        covered[(enc, op)] = covered.get((enc, op), 0) + 1
    # The decoder's fp16 flag is per opcode and describes src0: other sources may be typed
    # differently (v_cmp_class_f16's mask, the f32 accumulator of v_dot2_f32_f16 and the f16
    # MFMAs, the u32 addend of v_sad_u16), so only src0's probes are held against it.
    for _, name, e in cases:
        if e.pop("probe_src", "src0") != "src0":
            del e["fp16"]
    uncovered = [(enc, op, tokenize(t)[0]) for enc, op, _, t in canon
                 if not excluded(enc, t) and (enc, op) not in covered]
    uncovered += [("alias", 0, a) for ai, a in enumerate(ALIASES[target]) if ai not in aliases_ok]
    names = {base_name(tokenize(t)[0]) for enc, op, _, t in canon if (enc, op) in covered}
    summary = ("%s: %d opcodes (%d mnemonics) covered by %d cases, %d excluded (%s), %d uncovered, "
               "%d assembler aliases, %d variants dropped" %
               (target, len(covered), len(names), sum(1 for c in cases if c[1]), len(excluded_ops),
                ", ".join(sorted({e for e, _ in excluded_ops})) or "none", len(uncovered), len(aliases_ok), dropped))
    return cases, uncovered, summary


def mnemonic_table(lib):
    """The AMDGPU assembler's mnemonic table out of libLLVM: length-prefixed names in one blob,
    found by a name it must hold. Only for --audit; the build never reads libLLVM."""
    data = open(lib, "rb").read()
    at = data.find(b"\x0cv_pk_fma_f32")
    if at < 0:
        sys.exit("audit: no AMDGPU mnemonic table in " + lib)
    ok = re.compile(rb"^[a-z][a-z0-9_.]*$")

    def chain(p):
        names = []
        while p < len(data) and 0 < data[p] < 64 and ok.match(data[p + 1:p + 1 + data[p]]):
            names.append(data[p + 1:p + 1 + data[p]].decode())
            p += 1 + data[p]
        return names, p
    best = []
    for start in range(at, max(0, at - 300000), -1):   # the earliest start that chains through
        names, end = chain(start)
        if end > at and len(names) > len(best):
            best = names
    return best


def audit(mc, lib):
    """Every mnemonic llvm-mc accepts for a target (with any operands) must be an enumerated
    opcode or an alias. Run by hand: gen_decode_opcodes.py --audit <libLLVM.so> [llvm-mc]."""
    names = mnemonic_table(lib)
    bad = 0
    for t in TARGETS:
        res = subprocess.run([mc, "-triple=amdgcn-amd-amdhsa", "-mcpu=" + t], input="\n".join(names) + "\n",
                             capture_output=True, text=True, check=False)
        refused = {int(m.group(1)) - 1 for m in
                   re.finditer(r"^<stdin>:(\d+):\d+: error: instruction not supported on this GPU", res.stderr, re.M)}
        accepted = {base_name(n) for i, n in enumerate(names) if i not in refused}
        known = {base_name(tokenize(x)[0]) for _, _, _, x in enumerate_opcodes(mc, t)} | set(ALIASES[t])
        missing = sorted(accepted - known)
        print("audit %s: %d mnemonics in LLVM's table, %d accepted, %d enumerated or aliased; missing: %s" %
              (t, len(names), len(accepted), len(accepted & known), " ".join(missing) or "none"))
        bad += len(missing)
    return 1 if bad else 0


def main():
    if sys.argv[1] == "--audit":
        sys.exit(audit(sys.argv[3] if len(sys.argv) > 3 else "llvm-mc-19", sys.argv[2]))
    mc, out_path = sys.argv[1], sys.argv[2]
    lines = ["# Generated by tests/isa/gen_decode_opcodes.py from llvm-mc-19: do not edit.",
             "# case <target> <LLVM mnemonic, or - for an opcode kfdsim must reject> <words> "
             "<decoder field>=<value>..."]
    body = []
    for t in TARGETS:
        try:
            cases, unc, summary = build_target(mc, t)
        except (GenError, OSError) as err:
            print("gen_decode_opcodes: %s: %s" % (t, err))
            lines.append("error %s: %s" % (t, err))
            continue
        print("gen_decode_opcodes: " + summary)
        lines.append("summary " + summary)
        lines += ["uncovered %s %s opcode %d (%s)" % (t, enc, op, mn) for enc, op, mn in unc]
        for words, name, e in cases:
            fields = " ".join("%s=%d" % (f, v) for f, v in sorted(e.items(), key=lambda kv: FIELDS.index(kv[0])))
            body.append("case %s %s %s %s" % (t, name or "-", ",".join("%08x" % w for w in words), fields))
    with open(out_path, "w") as o:
        o.write("\n".join(lines + body) + "\n")


if __name__ == "__main__":
    main()
