#!/usr/bin/env python3
"""Generates the gate: one wrapper per exported hip* entry point (see src/runtime/observe.h).

usage: gen_gate.py --cc CC --include DIR --table hip_api_functions.tsv
                   --always tools/gate/sticky_allowed.tsv --rename OUT.h --wrappers OUT.c
                   HEADER...

The implementation of every wrapped entry point NAME is compiled as hipkfd_impl_NAME: OUT.h (a
list of #defines) is force-included into every runtime object, so the headers declare, the
sources define and internal callers call hipkfd_impl_NAME. OUT.c defines the exported NAME: it
tests hip_observe_flags and, when that word is 0, tail-calls the implementation; otherwise a
cold out-of-line path runs. When only the trace observes, that path writes the call's arguments
straight into the thread's ring (runtime/observe.h, hip_trace_call_begin) and stamps it: no
formatting, no observer dispatch. Otherwise it stops the call on a sticky error, lets the
observers see it and serializes launches and copies. Either way the arguments are kept in a
per-call struct, with what output pointers received (and input strings) captured into it, so the
per-call format function written here reads nothing else and can run long after the call.

Signatures come from the headers themselves, run through the C preprocessor (so #if blocks and
parameter macros such as __dparm resolve as a C compiler sees them). Wrapped: every name of the
API table declared in C as returning hipError_t and not itself a macro (the unversioned
hipGetDeviceProperties/hipChooseDevice are, and src/api/abi_compat.c defines those by hand).
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "abi"))
from prototypes import split_params  # noqa: E402

QUALIFIERS = {"const", "volatile", "restrict", "struct", "enum", "union", "__restrict"}
BUILTIN = {"void", "char", "short", "int", "long", "float", "double", "signed", "unsigned",
           "_Bool", "bool"}


def preprocess(cc, include, headers):
    src = "".join("#include <%s>\n" % h for h in headers)
    out = subprocess.run([cc, "-E", "-P", "-I", include, "-x", "c", "-"], input=src,
                         capture_output=True, text=True)
    if out.returncode:
        sys.exit("gen_gate.py: preprocessing failed:\n" + out.stderr)
    return out.stdout


def declarations(text):
    """Top-level declarations (text between ';' or braces at depth 0)."""
    depth, cur = 0, []
    for c in text:
        if c == "{":
            depth += 1
            cur = [] if depth == 1 else cur
            continue
        if c == "}":
            depth -= 1
            cur = []
            continue
        if depth:
            continue
        if c == ";":
            yield " ".join("".join(cur).split())
            cur = []
        else:
            cur.append(c)




def param_type(p):
    """The parameter's type with its name removed ('int *count' -> 'int*')."""
    fp = re.search(r"\(\s*\*\s*(\w+)?\s*\)", p)
    if fp:  # a function pointer written out
        return p[:fp.start()] + "(*)" + p[fp.end():], fp.group(1)
    p = re.sub(r"\[[^\]]*\]", "*", p).replace("*", " * ")
    toks = p.split()
    idents = [t for t in toks if t != "*" and t not in QUALIFIERS]
    name = None
    if toks and toks[-1] != "*" and len(idents) >= 2 and idents[-1] not in BUILTIN:
        name = toks[-1]
        toks = toks[:-1]
    return " ".join(toks).replace(" *", "*"), name


def parse(text, wanted):
    found = {}
    for d in declarations(text):
        m = re.match(r"^(?:extern\s+)?(?:__attribute__\s*\(\(.*?\)\)\s*)*hipError_t\s+(\w+)\s*\((.*)\)"
                     r"\s*(?:__attribute__\s*\(\(.*\)\))?$", d)
        if not m or m.group(1) not in wanted or m.group(1) in found:
            continue
        typed = [param_type(p) for p in split_params(m.group(2))]
        found[m.group(1)] = ([t for t, _ in typed],
                             [n or "arg%d" % i for i, (_, n) in enumerate(typed)])
    return found


def pointer_typedefs(text):
    """Typedef names that are pointers (handles, function pointers, hipDeviceptr_t)."""
    names = set()
    for d in declarations(text):
        if not d.startswith("typedef"):
            continue
        m = re.search(r"\(\s*\*\s*(\w+)\s*\)\s*\(", d)
        if m:
            names.add(m.group(1))
            continue
        m = re.search(r"\*\s*(\w+)\s*$", d)
        if m:
            names.add(m.group(1))
    return names


def bare(t):
    return " ".join(w for w in t.replace("*", " * ").split() if w not in QUALIFIERS)


def is_pointer(t, ptrs):
    return "*" in t or bare(t) in ptrs


def param_kind(t, ptrs):
    """How a parameter is shown, and what the wrapper captures of it:
    val     a value (shown by its C type)              nothing captured
    ptr     an address (pointers to inputs, handles)   nothing
    instr   a const char * input string                its text, before the call
    outstr  a char * output string                     its text, after a success
    outptr  an output pointer to a pointer or handle   the pointer written, after a success
    outval  an output pointer to a value               the value's bytes, after a success"""
    base = bare(t)
    if "(*)" in t:
        return "ptr"
    if base == "char *" and t.replace(" ", "").startswith("constchar*"):
        return "instr"
    if base == "char *":
        return "outstr"
    if "*" not in t:
        return "ptr" if is_pointer(t, ptrs) else "val"
    pointee = t.rsplit("*", 1)[0].strip()
    if is_pointer(pointee, ptrs):  # T** or handle*: an output pointer unless "* const *"
        return "ptr" if pointee.endswith("const") else "outptr"
    if "const" in pointee.split() or bare(pointee) == "void":
        return "ptr"
    return "outval"


CAPTURE_FIELD = {
    "instr": "char c%d[HIP_GATE_STR_MAX]",
    "outstr": "char c%d[HIP_GATE_STR_MAX]",
    "outptr": "const void *c%d",
    "outval": "uint64_t c%d[HIP_GATE_OUT_MAX / 8]",
}


def fmt_param(i, t, pname, ptrs):
    """One line of the generated format function for parameter a<i> of type t. It reads only the
    argument struct: what the pointers pointed to was captured into it (c<i>)."""
    name = '"%s"' % pname
    kind = param_kind(t, ptrs)
    if kind == "val":
        return "HIP_GATE_PUT_VAL(&f, %s, a->a%d);" % (name, i)
    if kind == "ptr":
        return "hip_gate_put_ptr(&f, %s, (const void *)(uintptr_t)a->a%d);" % (name, i)
    if kind == "instr":
        return "hip_gate_put_str(&f, %s, a->a%d ? a->c%d : NULL, 1);" % (name, i, i)
    if kind == "outstr":  # hipDeviceGetName: the text once the call succeeded
        return ("if (ok && a->a%d) hip_gate_put_str(&f, %s, a->c%d, 1); "
                "else hip_gate_put_ptr(&f, %s, a->a%d);" % (i, name, i, name, i))
    if kind == "outptr":
        return "hip_gate_put_out_ptr(&f, %s, (const void *)a->a%d, a->c%d, ok);" % (name, i, i)
    return "HIP_GATE_PUT_OUT_VAL(&f, %s, a->a%d, a->c%d, ok);" % (name, i, i)


def captures(params, ptrs, after):
    """The wrapper's lines that copy what the arguments point to into the struct `a`: input
    strings before the call (after=False), outputs after a success (after=True)."""
    out = []
    for i, t in enumerate(params):
        kind = param_kind(t, ptrs)
        if not after and kind == "instr":
            out.append("hip_gate_capture_str(a->c%d, a%d);" % (i, i))
        elif after and kind == "outstr":
            out.append("if (a%d) hip_gate_capture_str(a->c%d, a%d);" % (i, i, i))
        elif after and kind == "outptr":
            out.append("if (a%d) memcpy(&a->c%d, a%d, sizeof(a->c%d));" % (i, i, i, i))
        elif after and kind == "outval":
            out.append("if (a%d) memcpy(a->c%d, a%d, HIP_GATE_OUT_BYTES(a%d));" % (i, i, i, i))
    return out


def serial_kind(name):
    """HIP_GATE_KERNEL for launches, HIP_GATE_COPY for copies and fills, 0 otherwise."""
    n = re.sub(r"_spt$", "", name)
    if re.search(r"Launch", n) and n not in ("hipLaunchHostFunc",):
        return "HIP_GATE_KERNEL"
    if re.match(r"^hip(Drv)?Mem(cpy|set)", n):
        return "HIP_GATE_COPY"
    return "0"


def stream_arg(name, params):
    """The stream a serialized call waits for: its first stream parameter (stream 0 of a _spt
    entry point is the per-thread stream), else the whole device."""
    for i, t in enumerate(params):
        if bare(t) == "hipStream_t":
            if name.endswith("_spt"):
                return "(a%d ? a%d : hipStreamPerThread)" % (i, i)
            return "a%d" % i
    return "HIP_GATE_ALL_STREAMS"


def wrapper(idx, name, sig, stops, ptrs):
    params, pnames = sig
    decl = ", ".join(t.replace("(*)", "(*a%d)" % i) if "(*)" in t else "%s a%d" % (t, i)
                     for i, t in enumerate(params)) or "void"
    args = ", ".join("a%d" % i for i in range(len(params)))
    impl = "hipkfd_impl_" + name
    st = "gate_a_" + name
    out = ["/* %s */" % name, "hipError_t %s(%s);" % (impl, decl)]
    fields = "".join(" %s;" % (t.replace("(*)", "(*a%d)" % i) if "(*)" in t else "%s a%d" % (t, i))
                     for i, t in enumerate(params))
    fields += "".join(" %s;" % (CAPTURE_FIELD[param_kind(t, ptrs)] % i)
                      for i, t in enumerate(params) if param_kind(t, ptrs) in CAPTURE_FIELD)
    out.append("struct %s { struct hip_gate_args h;%s };" % (st, fields))
    out.append("_Static_assert(_Alignof(struct %s) <= 8, \"a ring record is 8-byte aligned\");" % st)
    fmt = "NULL"
    if params:
        fmt = "gate_f_" + name
        out.append("static int %s(const void *p, char *buf, size_t size)" % fmt)
        out.append("{")
        out.append("  const struct %s *a = p;" % st)
        out.append("  struct hip_gate_fmt f = {buf, size, 0};")
        out.append("  int ok = a->h.done && a->h.result == hipSuccess;")
        out.append("  (void)ok;")
        for i, t in enumerate(params):
            out.append("  " + fmt_param(i, t, pnames[i], ptrs))
        out.append("  return (int)f.len;")
        out.append("}")
    before = captures(params, ptrs, False)
    after = captures(params, ptrs, True)
    kind = serial_kind(name)
    stream = stream_arg(name, params) if kind != "0" else "NULL"
    out.append("HIP_GATE_SLOW hipError_t gate_s_%s(%s);" % (name, decl))
    out.append("HIP_GATE_SLOW hipError_t gate_s_%s(%s)" % (name, decl))
    out.append("{")
    # Only the trace observes: the arguments go straight into the thread's ring.
    out.append("  if (sizeof(struct %s) <= HIP_API_ARGS_MAX &&" % st)
    out.append("      atomic_load_explicit(&hip_observe_flags, memory_order_relaxed) == HIP_OBSERVE_TRACE) {")
    out.append("    struct hip_trace_frame t;")
    out.append("    struct %s s, *a = hip_trace_call_begin(&t, %d, \"%s\", %s, sizeof(s), &s);"
               % (st, idx, name, fmt))
    out.append("    a->h = (struct hip_gate_args){hipSuccess, 0, 0, 0};")
    out.extend("    a->a%d = a%d;" % (i, i) for i in range(len(params)))
    out.extend("    " + l for l in before)
    out.append("    hipError_t r = %s(%s);" % (impl, args))
    out.append("    a->h.result = r;")
    out.append("    a->h.done = 1;")
    if after:
        out.append("    if (r == hipSuccess) {")
        out.extend("      " + l for l in after)
        out.append("    }")
    out.append("    hip_trace_call_end(&t);")
    out.append("    return r;")
    out.append("  }")
    out.append("  struct %s v = {.h = {hipSuccess, 0, 0, 0}%s}, *a = &v;"
               % (st, "".join(", .a%d = a%d" % (i, i) for i in range(len(params)))))
    out.append("  (void)a;")
    out.extend("  " + l for l in before)
    out.append("  struct hip_api_call c = {.id = %d, .args_size = sizeof(v), .name = \"%s\", .args = &v, .format_args = %s};"
               % (idx, name, fmt))
    out.append("  if (hip_gate_begin(&c, &v.h, %d, %s, %s))" % (stops, kind, stream))
    out.append("    return v.h.result;")
    out.append("  v.h.result = %s(%s);" % (impl, args))
    if after:
        out.append("  if (v.h.result == hipSuccess) {")
        out.extend("    " + l for l in after)
        out.append("  }")
    out.append("  return hip_gate_end(&c, &v.h, %s, %s);" % (kind, stream))
    out.append("}")
    out.append("#ifdef HIP_GATE_ASM")
    out.append("HIP_GATE_ASM(%s)" % name)
    out.append("#else")
    out.append("__attribute__((visibility(\"default\"))) hipError_t %s(%s)" % (name, decl))
    out.append("{")
    out.append("  if (__builtin_expect(atomic_load_explicit(&hip_observe_flags, memory_order_relaxed) != 0, 0))")
    out.append("    return gate_s_%s(%s);" % (name, args))
    out.append("  return %s(%s);" % (impl, args))
    out.append("}")
    out.append("#endif")
    return "\n".join(out)


# The fast path of every wrapper. In C it is "if (hip_observe_flags) slow(args); else impl(args)",
# but GCC then reloads and stores back every argument passed on the stack (hipModuleLaunchKernel
# has five) before its tail call. On x86-64 the wrapper is written out instead: it touches only
# %rax (scratch in the SysV ABI, no argument in it: no entry point is variadic) and jumps with the
# caller's registers and stack as they came, to the slow path (same signature) or the
# implementation: five instructions whatever the signature.
PROLOGUE = r"""#define HIP_GATE_SLOW __attribute__((visibility("hidden"), noinline, cold))
#if defined(__x86_64__) && defined(__ELF__)
#define HIP_GATE_ASM(name)                                             \
  __asm__(".text\n\t.globl " #name "\n\t.type " #name ", @function\n" \
          "\t.p2align 4\n" #name ":\n"                                 \
          "\tmovq hip_observe_flags@GOTPCREL(%rip), %rax\n"            \
          "\tmovl (%rax), %eax\n\ttestl %eax, %eax\n"                 \
          "\tjne gate_s_" #name "\n\tjmp hipkfd_impl_" #name "\n"       \
          "\t.size " #name ", .-" #name "\n");
#endif

"""


def read_table(path):
    rows = []
    with open(path, encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            cols = line.rstrip("\n").split("\t")
            if i == 0 or not cols[0]:
                continue
            rows.append(cols)
    return rows


def read_always(path):
    names = set()
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip() and not line.startswith("#"):
                names.add(line.split("\t")[0].strip())
    return names


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cc", required=True)
    ap.add_argument("--include", required=True)
    ap.add_argument("--table", required=True)
    ap.add_argument("--always", required=True)
    ap.add_argument("--rename", required=True)
    ap.add_argument("--wrappers", required=True)
    ap.add_argument("headers", nargs="+")
    opt = ap.parse_args()

    text = preprocess(opt.cc, opt.include, opt.headers)
    rows = read_table(opt.table)
    always = read_always(opt.always)
    ids = {r[0]: i for i, r in enumerate(rows)}
    # hip_init is hip_impl::hip_init of ROCm 5 (a C++ symbol, src/api/abi_compat.c).
    found = parse(text, {n for n in ids if re.match(r"^(__)?hip[A-Z]", n)})
    unknown = always - set(ids)
    if unknown:
        sys.exit("gen_gate.py: %s lists names the API table does not have: %s"
                 % (opt.always, ", ".join(sorted(unknown))))
    ptrs = pointer_typedefs(text)
    names = sorted(found, key=lambda n: ids[n])

    with open(opt.rename, "w", encoding="utf-8") as fh:
        fh.write("/* Generated by tools/gate/gen_gate.py. Do not edit. Force-included into the\n"
                 " * runtime's objects: each entry point's implementation is hipkfd_impl_<name>;\n"
                 " * the exported <name> is the gate's wrapper (gate_wrappers.c). */\n")
        fh.write("#if !defined(HIPKFD_GATE_RENAME_H) && !defined(HIPKFD_GATE_WRAPPERS)\n"
                 "#define HIPKFD_GATE_RENAME_H\n")
        for n in names:
            fh.write("#define %s hipkfd_impl_%s\n" % (n, n))
        fh.write("#endif\n")

    with open(opt.wrappers, "w", encoding="utf-8") as fh:
        fh.write("/* Generated by tools/gate/gen_gate.py from the API table and the headers. Do not\n"
                 " * edit. %d entry points; see src/runtime/observe.h. */\n" % len(names))
        fh.write("#include <stdatomic.h>\n#include <stdint.h>\n#include <stddef.h>\n#include <string.h>\n")
        fh.write("#include <hip/hip_runtime_api.h>\n#include <hip/hip_ext.h>\n")
        fh.write("#include <hip/hip_gl_interop.h>\n#include <hip/hip_deprecated.h>\n")
        fh.write("#include \"runtime/observe.h\"\n\n")
        fh.write("#pragma GCC diagnostic ignored \"-Wdeprecated-declarations\"\n\n")
        fh.write(PROLOGUE)
        for n in names:
            fh.write(wrapper(ids[n], n, found[n], 0 if n in always else 1, ptrs) + "\n\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
