#!/usr/bin/env python3
"""Build the decoder test cases from llvm-objdump-19's disassembly of the test code objects.

Usage: gen_decode_cases.py <llvm-objdump> <out.h> <code objects...>

Every distinct instruction clang-19 (or llvm-mc) produced for the HIP and assembly test kernels
becomes one case: its words, LLVM's mnemonic, and the operand registers LLVM printed, each
tagged with the decoder field it must land in. The target comes from the file name.
"""
import re
import subprocess
import sys

ROLE = {"dst": 0, "sdst": 1, "src0": 2, "src1": 3, "src2": 4, "addr": 5, "data0": 6, "data1": 7,
        "saddr": 8, "srsrc": 9, "soffset": 10, "sbase": 11}
SPECIAL = {"vcc": 106, "vcc_lo": 106, "vcc_hi": 107, "exec": 126, "exec_lo": 126, "exec_hi": 127,
           "m0": 124, "scc": 253, "flat_scratch": 102, "flat_scratch_lo": 102, "flat_scratch_hi": 103,
           "src_shared_base": 235, "src_shared_limit": 236, "src_private_base": 237,
           "src_private_limit": 238, "vccz": 251, "execz": 252, "off": 0x7F, "xnack_mask": 104}
FLOATS = {"0.5": 240, "-0.5": 241, "1.0": 242, "-1.0": 243, "2.0": 244, "-2.0": 245, "4.0": 246,
          "-4.0": 247, "0.15915494": 248}
VOP3B = {"v_add_co_u32", "v_sub_co_u32", "v_subrev_co_u32", "v_addc_co_u32", "v_subb_co_u32",
         "v_subbrev_co_u32", "v_div_scale_f32", "v_div_scale_f64", "v_mad_u64_u32", "v_mad_i64_i32"}
LINE = re.compile(r"^\s+([a-z_0-9]+)(.*?)\s*//\s*[0-9a-fA-F]+:\s*((?:[0-9A-F]{8}\s*)+)$")
REG = re.compile(r"^([svat])(?:(\d+)|\[(\d+):\d+\])$")


def operand_code(tok):
    tok = tok.strip()
    for pre in ("neg(", "abs(", "sext(", "-|", "|", "-"):
        if tok.startswith(pre) and len(tok) > len(pre) and not tok[len(pre):][0].isdigit():
            tok = tok[len(pre):]
    tok = tok.rstrip(")|")
    m = REG.match(tok)
    if m:
        n = int(m.group(2) if m.group(2) is not None else m.group(3))
        return {"s": n, "t": 108 + n, "v": 256 + n, "a": 512 + n}[m.group(1)]
    if tok in SPECIAL:
        return SPECIAL[tok]
    if tok in FLOATS:
        return FLOATS[tok]
    try:
        v = int(tok, 0)
    except ValueError:
        return None
    if 0 <= v <= 64:
        return 128 + v
    if -16 <= v < 0:
        return 192 - v
    return 255


def split_operands(rest):
    """Comma-separated operands up to the first modifier (a token with ':' or a bare word)."""
    out = []
    for tok in rest.split(","):
        tok = tok.strip()
        if not tok:
            continue
        first = tok.split()[0]
        out.append(first)
        if len(tok.split()) > 1:  # modifiers follow the last operand
            break
    return out


def encoding(w):
    if w >> 31 == 0:
        p = w >> 25
        return "VOP1" if p == 0x3F else "VOPC" if p == 0x3E else "VOP2"
    top9 = w >> 23
    if top9 in (0x17D, 0x17E, 0x17F):
        return {0x17D: "SOP1", 0x17E: "SOPC", 0x17F: "SOPP"}[top9]
    if top9 == 0x1A7:
        return "VOP3P"
    if w >> 28 == 0xB:
        return "SOPK"
    if w >> 30 == 2:
        return "SOP2"
    return {0x30: "SMEM", 0x34: "VOP3", 0x36: "DS", 0x37: "FLAT", 0x38: "MUBUF", 0x3A: "MTBUF"}.get(w >> 26, "?")


def roles_for(enc, name, ops, words):
    base = re.sub(r"_(e32|e64|sdwa|dpp)$", "", name)
    if enc in ("VOP1", "VOP2", "VOPC", "VOP3", "VOP3P"):
        if enc == "VOP2" and not name.endswith("_dpp") and not name.endswith("_sdwa"):
            ops = [o for o in ops if o != "vcc"] if base in VOP3B or base == "v_cndmask_b32" else ops
        if enc == "VOP2" and (name.endswith("_dpp") or name.endswith("_sdwa")):
            ops = [o for o in ops if o != "vcc"]
        if enc == "VOP1" and base == "v_nop":
            return []
        names = ["dst"] + (["sdst"] if enc == "VOP3" and base in VOP3B else []) + ["src0", "src1", "src2"]
        if base in ("v_madmk_f32", "v_fmamk_f32", "v_madmk_f16"):
            names = ["dst", "src0", "literal", "src1"]
        if base in ("v_readlane_b32", "v_writelane_b32", "v_readfirstlane_b32"):
            names = ["dst", "src0", "src1"]
        return list(zip(names, ops))
    if enc in ("SOP1", "SOP2"):
        if enc == "SOP1" and base in ("s_setpc_b64", "s_rfe_b64", "s_cbranch_join"):
            return [("src0", ops[0])] if ops else []
        if enc == "SOP1" and base == "s_getpc_b64":
            return [("dst", ops[0])]
        return list(zip(["dst", "src0", "src1"], ops))
    if enc == "SOPC":
        if base.startswith("s_set_gpr_idx_on"):
            return [("src0", ops[0])]
        return list(zip(["src0", "src1"], ops))
    if enc == "SOPK":
        if base.startswith("s_setreg") or base.startswith("s_getreg") or base.startswith("s_call"):
            return [("dst", ops[0])] if base.startswith(("s_getreg", "s_call")) else []
        return [("dst", ops[0])] if ops else []
    if enc == "SMEM":
        if base.startswith("s_load") or base.startswith("s_buffer_load") or base.startswith("s_store"):
            return list(zip(["dst", "sbase"], ops))
        if base in ("s_memtime", "s_memrealtime"):
            return [("dst", ops[0])]
        return []
    if enc == "DS":
        if base in ("ds_bpermute_b32", "ds_permute_b32"):
            return list(zip(["dst", "addr", "data0"], ops))
        if base == "ds_swizzle_b32":
            return list(zip(["dst", "addr"], ops))
        if base.startswith("ds_gws"):
            return [("addr", ops[0])] if ops else []
        if base.startswith("ds_read"):
            return list(zip(["dst", "addr"], ops))
        if base.startswith("ds_write") and "xchg" not in base:
            return list(zip(["addr", "data0", "data1"], ops))
        if "_rtn_" in base:
            return list(zip(["dst", "addr", "data0", "data1"], ops))
        return list(zip(["addr", "data0", "data1"], ops))
    if enc == "FLAT":
        seg = words[0] >> 14 & 3
        glc = words[0] >> 16 & 1
        if "_load" in base:
            r = ["dst", "addr", "saddr"]
        elif "_store" in base:
            r = ["addr", "data0", "saddr"]
        elif glc:
            r = ["dst", "addr", "data0", "saddr"]
        else:
            r = ["addr", "data0", "saddr"]
        if seg == 0:
            r = [x for x in r if x != "saddr"]
        return [(a, b) for a, b in zip(r, ops) if not (a == "addr" and b == "off")]
    if enc == "MUBUF":
        if not ops:
            return []
        return [(a, b) for a, b in zip(["dst", "addr", "srsrc", "soffset"], ops) if b != "off"]
    return []


def main():
    objdump, out_path, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    seen = set()
    cases = []
    for f in files:
        target = "gfx942" if "gfx942" in f else "gfx90a"
        res = subprocess.run([objdump, "-d", "--mcpu=" + target, f], capture_output=True, text=True, check=True)
        for line in res.stdout.splitlines():
            m = LINE.match(line)
            if not m:
                continue
            name, rest, hexwords = m.group(1), m.group(2), m.group(3).split()
            words = [int(h, 16) for h in hexwords]
            key = (target, tuple(words))
            if key in seen or name.startswith("."):
                continue
            seen.add(key)
            enc = encoding(words[0])
            ops = split_operands(rest)
            roles = []
            # a 32-bit encoding followed by a literal: LLVM prints the literal's value, which may
            # look like an inline constant ("-1"), so numbers are not checked there
            has_literal = len(words) == 2 and enc in ("SOP1", "SOP2", "SOPC", "VOP1", "VOP2", "VOPC")
            for role, tok in roles_for(enc, name, ops, words):
                if role == "literal":
                    continue
                code = operand_code(tok)
                if has_literal and code is not None and code >= 128 and code < 256:
                    continue
                if code is not None and code != 255:
                    roles.append((ROLE[role], code))
            cases.append((target, words, name, roles))
    with open(out_path, "w") as o:
        o.write("/* Generated by tests/isa/gen_decode_cases.py from llvm-objdump-19: do not edit. */\n")
        o.write("static const struct decode_case decode_cases[] = {\n")
        for target, words, name, roles in cases:
            w = ", ".join("0x%08x" % x for x in words)
            r = ", ".join("{%d, %d}" % x for x in roles)
            o.write('  {%s, %d, {%s}, "%s", %d, {%s}},\n' % ("ISA_GFX942" if target == "gfx942" else "ISA_GFX90A",
                                                       len(words), w, name, len(roles), r))
        o.write("};\n")


if __name__ == "__main__":
    main()
