#!/usr/bin/env python3
"""Lists every entry point of the HIP API headers that takes a handle by value, and writes a C
table that calls each one with a chosen handle in every handle parameter (test_api_bad_handles.c).

usage: gen_handle_calls.py OUT.inc HEADER...
       gen_handle_calls.py --out-params OUT.inc HEADER...   (test_api_out_params.c)

The list comes from the headers, not from a hand-picked set, so a new entry point is tested as
soon as it is declared. Each entry becomes a thunk that looks the symbol up with dlsym (an entry
point declared but not exported is reported, not a link error) and calls it with:
  - every parameter of a handle type: the handle under test (cast to that parameter's type);
  - every pointer parameter: a zeroed scratch buffer (an empty string, a zero count, a NULL
    callback), so only the handle can make the call fail;
  - every other parameter: zero of its type, as a compound literal.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, os.pardir, "tools", "abi"))
from prototypes import split_params  # noqa: E402

# Handle types whose validity the runtime must establish without reading through the handle
# (issue 12 item 4). Streams and events have their own suites; IPC handles are structs.
HANDLE_TYPES = [
    "hipModule_t", "hipFunction_t", "hipGraph_t", "hipGraphNode_t", "hipGraphExec_t",
    "hipMemPool_t", "hipArray_t", "hipArray_const_t", "hipMipmappedArray_t",
    "hipmipmappedArray", "hipMipmappedArray_const_t", "hipTextureObject_t",
    "hipSurfaceObject_t", "hipLibrary_t", "hipKernel_t", "hipUserObject_t", "hipCtx_t",
    "hipMemGenericAllocationHandle_t", "hipExternalMemory_t", "hipExternalSemaphore_t",
]


def strip(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return "\n".join(l for l in text.split("\n") if not l.lstrip().startswith("#"))


def prototypes(text):
    """(name, [param text]) for each `hipError_t name(...);` declaration."""
    for m in re.finditer(r"\bhipError_t\s+(\w+)\s*\(", text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        rest = text[i:i + 200].lstrip()
        rest = re.sub(r"^(__attribute__\s*\(\(.*?\)\)\s*|\w+(\s*\([^)]*\))?\s*)*", "", rest)
        if not rest.startswith(";"):
            continue  # a definition or something else
        yield m.group(1), split_params(text[m.end():i - 1])




def param_type(p):
    """The parameter's type with its name removed ('int *count' -> 'int *')."""
    p = re.sub(r"\s*=\s*[^,]*$", "", p)  # default arguments (C++ only)
    if "(" in p:
        return None  # a function pointer written out: not expected in these headers
    p = re.sub(r"\[[^\]]*\]", "*", p)
    m = re.match(r"^(.*?)(\w+)\s*$", p)
    if not m or not m.group(1).strip():
        return p.strip()
    return m.group(1).strip()


def arg(ptype):
    bare = re.sub(r"\bconst\b", "", ptype).strip()
    if bare in HANDLE_TYPES:
        return "(%s)h" % bare, True
    if "*" in ptype:
        return "(%s)(void *)scratch" % ptype, False
    return "(%s){0}" % bare, False


def is_output(ptype):
    """A pointer the call writes through: not const, not an untyped buffer (data, user data)."""
    return "*" in ptype and not re.search(r"\bconst\b", ptype) and \
        re.sub(r"\s", "", ptype) != "void*"


DEVICE_NAMES = {"device", "deviceId", "dev", "ordinal", "srcDevice", "dstDevice", "peerDevice",
                "deviceOrdinal", "dstDeviceId", "srcDeviceId"}


# Types passed by value that are structs, not enums or integers.
STRUCT_TYPES = {"hipIpcMemHandle_t", "hipIpcEventHandle_t", "dim3", "hipMemLocation",
                "hipChannelFormatDesc", "hipUUID", "hipPitchedPtr", "hipPos",
                "hipMemAllocationProp", "hipLaunchConfig_t"}


def bad_arg(ptype, bare, pname):
    """An argument no call accepts, for entry points with no handle, stream, event or device to
    make invalid: NULL for every input pointer, all bits set in flags, the largest size, an
    enumerator past every valid one, -1 for other integers."""
    if "*" in ptype:
        return "(%s)NULL" % ptype
    if "flag" in pname.lower():
        return "(%s)~0u" % bare
    if bare == "size_t":
        return "(size_t)-1"
    if bare == "hipExtent":
        return "(hipExtent){(size_t)-1, (size_t)-1, (size_t)-1}"
    if bare in STRUCT_TYPES:
        return "(%s){0}" % bare  # an all-zero IPC handle, location or description
    if bare.startswith("hip") or bare.startswith("HIP"):
        return "(%s)0x7ffffff0" % bare
    if bare in ("int", "unsigned int", "unsigned", "long", "long long", "unsigned long long",
                "uint32_t", "uint64_t", "int32_t", "int64_t", "float", "double", "char",
                "unsigned char", "short", "unsigned short"):
        return "(%s)-1" % bare
    return "(%s){0}" % bare


def out_param_entry(name, params):
    """Arguments that reach an error path while every output points at a sentinel, and the
    path's name ("args" when no handle, stream, event or device can be made invalid: bad_arg);
    None when the call has no output."""
    parsed = []
    for p in params:
        t = param_type(p)
        if t is None:
            return None
        pname = re.sub(r"\s*=.*$", "", p).split()[-1].lstrip("*") if p.split() else ""
        parsed.append((t, re.sub(r"\bconst\b", "", t).strip(), pname))
    bares = [b for _, b, _ in parsed]
    if any(b in HANDLE_TYPES for b in bares):
        path = "handle"
    elif "hipStream_t" in bares:
        path = "stream"
    elif "hipEvent_t" in bares:
        path = "event"
    elif any(b in ("int", "hipDevice_t") and n in DEVICE_NAMES for _, b, n in parsed):
        path = "device"
    else:
        path = "args"
    args, nout = [], 0
    for t, bare, pname in parsed:
        if is_output(t):
            args.append("(%s)(void *)outs[%d]" % (t, nout))
            nout += 1
        elif path == "args":
            args.append(bad_arg(t, bare, pname))
        elif bare in HANDLE_TYPES or (path == "stream" and bare == "hipStream_t") or \
                (path == "event" and bare == "hipEvent_t"):
            args.append("(%s)bad" % bare)
        elif path == "device" and bare in ("int", "hipDevice_t") and pname in DEVICE_NAMES:
            args.append("(%s)9999" % bare)
        else:
            args.append(arg(t)[0])
    if not nout:
        return None
    return path, nout, args


def write_out_params(out, text):
    seen, entries = set(), []
    for name, params in prototypes(text):
        if name in seen:
            continue
        seen.add(name)
        e = out_param_entry(name, params)
        if e:
            entries.append((name,) + e)
    with open(out, "w") as f:
        f.write("/* Generated by tests/api/gen_handle_calls.py from the HIP headers. */\n")
        for name, path, nout, args in entries:
            f.write("static int out_%s(void *bad, unsigned char (*outs)[OUT_BYTES], "
                    "hipError_t *err)\n{\n" % name)
            f.write("\t__typeof__(&%s) fn = (__typeof__(&%s))dlsym(RTLD_DEFAULT, XSTR(%s));\n"
                    % (name, name, name))
            f.write("\t(void)bad;\n\t(void)outs;\n\tif (!fn)\n\t\treturn -1;\n")
            f.write("\t*err = fn(%s);\n\treturn 0;\n}\n" % ", ".join(args))
        f.write("static const struct out_call out_calls[] = {\n")
        for name, path, nout, _ in entries:
            f.write('\t{"%s", out_%s, "%s", %d},\n' % (name, name, path, nout))
        f.write("};\n")


def main():
    if sys.argv[1] == "--out-params":
        write_out_params(sys.argv[2],
                         "\n".join(strip(open(h).read()) for h in sys.argv[3:]))
        return
    out, headers = sys.argv[1], sys.argv[2:]
    text = "\n".join(strip(open(h).read()) for h in headers)
    seen, entries = set(), []
    for name, params in prototypes(text):
        if name in seen:
            continue
        args, takes, types = [], False, []
        for p in params:
            t = param_type(p)
            if t is None:
                args = None
                break
            a, is_handle = arg(t)
            args.append(a)
            takes |= is_handle
            if is_handle:
                types.append(re.sub(r"\bconst\b", "", t).strip())
        if args is None or not takes:
            continue
        seen.add(name)
        entries.append((name, args, " ".join(types)))
    with open(out, "w") as f:
        f.write("/* Generated by tests/api/gen_handle_calls.py from the HIP headers. */\n")
        for name, args, _ in entries:
            f.write("static int call_%s(void *h, hipError_t *err)\n{\n" % name)
            f.write("\t__typeof__(&%s) fn = (__typeof__(&%s))dlsym(RTLD_DEFAULT, XSTR(%s));\n"
                    % (name, name, name))
            f.write("\tif (!fn)\n\t\treturn -1;\n")
            f.write("\t*err = fn(%s);\n\treturn 0;\n}\n" % ", ".join(args))
        f.write("static const struct handle_call handle_calls[] = {\n")
        for name, _, types in entries:
            f.write('\t{"%s", call_%s, "%s"},\n' % (name, name, types))
        f.write("};\n")


if __name__ == "__main__":
    main()
