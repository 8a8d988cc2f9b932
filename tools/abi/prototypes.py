"""Pieces of C prototype parsing shared by the build's generators (tools/gate/gen_gate.py) and
the tests' generators (tests/api/gen_handle_calls.py)."""


def split_params(s):
    """The parameters of a prototype's list, split at the commas outside parentheses and
    brackets (a function-pointer parameter keeps its own commas); [] for '(void)' and '()'."""
    out, depth, cur = [], 0, ""
    for c in s:
        if c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += {"(": 1, ")": -1, "[": 1, "]": -1}.get(c, 0)
        cur += c
    if cur.strip():
        out.append(cur.strip())
    return [] if out == ["void"] else out
