"""How often each basic block of a kernel's PTX runs for one launch's arguments: the PTX's instructions
weighted by trip count, for ``tests/conformance/compiled_counts.py`` (``nox -s compiled``).

Static counts (every block once) are a kernel's executed warp instructions only when every loop runs
once. Here the PTX is run instead, one warp at a time, for every program of the launch: the integer and
predicate registers each lane holds (from the parameters, ``%ctaid``, ``%tid`` and the arithmetic on them)
as numpy vectors, everything read from memory or computed in floating point unknown. A branch goes
where its predicate says when the predicate is known and the same in every lane of the warp; a block's
count is how many times warps entered it. A branch on an unknown predicate (a loop over loaded data, a
spin lock) or one that splits a warp means the arguments do not fix the trip counts: :func:`weights`
returns None and the caller keeps the static counts. A predicated-off instruction still runs (Nsight
Compute's ``inst_executed`` counts it): only branches change the counts.

No GPU and no Triton are needed: the PTX text is enough.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

WARP = 32
LABEL = re.compile(r"^\s*(\$?[A-Za-z_][\w$]*):\s*$")
PARAM = re.compile(r"\.param\s+([^,)]*?)(\w+)\s*[,)]")
REG = re.compile(r"%[a-z]+\d*|%[a-z]+\.[xyz]")


class Unfixed(Exception):
    """The launch's trip counts are not fixed by its arguments (a branch on loaded data, or a warp that
    splits)."""


def _lines(ptx: str, name: str | None = None) -> tuple[list, list]:
    """``(parameter names, instruction lines)`` of the entry function (comments, directives and inline-asm
    braces dropped; labels kept as ``"LABEL:"``)."""
    start = ptx.index(".entry")
    head, body = ptx[start:].split("{", 1)
    params = [m.group(2) for m in PARAM.finditer(head)]
    out = []
    for raw in body.splitlines():
        line = raw.split("//", 1)[0].strip()
        if not line or line.startswith((".loc", ".reg", ".local", ".shared", ".file", ".pragma")) or line in ("{", "}"):
            continue
        if LABEL.match(line):
            out.append(line)
            continue
        for part in line.split(";"):
            part = part.strip().strip("{}").strip()
            if part and not part.startswith((".reg", ".loc")):
                out.append(part)
    return params, out


def blocks(ptx: str) -> tuple[list, dict, list]:
    """``(parameter names, label → block index, blocks)``; a block is a list of instruction strings, ending
    at a branch, a return or before a label."""
    params, lines = _lines(ptx)
    out, labels, cur = [], {}, []
    for line in lines:
        if line.endswith(":"):
            if cur:
                out.append(cur)
                cur = []
            labels[line[:-1]] = len(out)
            continue
        cur.append(line)
        op = _opcode(line)
        if op.startswith(("bra", "ret", "exit", "trap")):
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return params, labels, out


def _opcode(line: str) -> str:
    s = line
    if s.startswith("@"):
        s = s.split(None, 1)[1] if " " in s else ""
    return s.split(None, 1)[0] if s else ""


_MASK = {8: 0xFF, 16: 0xFFFF, 32: 0xFFFFFFFF}


def _unsigned(x, bits):
    """``x`` read as an unsigned ``bits``-bit integer (64 bits through a uint64 view)."""
    x = np.asarray(x, np.int64)
    if bits in _MASK:
        return x & _MASK[bits]
    return x.view(np.uint64) if bits == 64 else x


def _bits(op: str) -> int:
    for t in reversed(op.split(".")):
        if t[1:].isdigit() and t[0] in "subf":
            return int(t[1:])
        if t == "pred":
            return 1
    return 32


def _signed(op: str) -> bool:
    return any(t.startswith("s") and t[1:].isdigit() for t in op.split("."))


class Warp:
    """The integer and predicate registers of one warp's lanes: ``value`` int64 vectors, or None when
    unknown."""

    def __init__(self, special: dict, params: dict):
        self.r: dict = {}
        self.special = special
        self.params = params

    def get(self, tok: str):
        tok = tok.strip()
        if tok.startswith("%"):
            if tok in self.special:
                return self.special[tok]
            return self.r.get(tok)
        m = re.fullmatch(r"(-?)(0[xX][0-9a-fA-F]+|\d+)U?", tok)
        if m:  # an integer literal (hex or decimal, an optional U), kept as its 64-bit two's complement
            v = int(m.group(1) + m.group(2), 16 if m.group(2)[:2].lower() == "0x" else 10) & 0xFFFFFFFFFFFFFFFF
            return np.full(WARP, v - (1 << 64) if v >> 63 else v, np.int64)
        return None  # a float literal, a symbol

    def set(self, reg: str, value, pred=None):
        if pred is not None:
            old = self.r.get(reg)
            if value is None or old is None:
                if pred.all():
                    self.r[reg] = value
                elif not pred.any():
                    return
                else:
                    self.r[reg] = None
                return
            value = np.where(pred, value, old)
        self.r[reg] = value


def _wrap(v, bits: int, signed: bool):
    if v is None:
        return None
    if bits >= 64:
        return v.astype(np.int64)
    m = (1 << bits) - 1
    v = v & m
    if signed:
        v = np.where(v >= 1 << (bits - 1), v - (1 << bits), v)
    return v


def _operands(rest: str) -> list[str]:
    return [t.strip() for t in rest.split(",")]


_UNKNOWN = object()  # a predicate no argument fixes


def step(w: Warp, line: str):
    """Run one instruction on the warp's integer registers."""
    pred = None
    if line.startswith("@"):
        guard, line = line.split(None, 1)
        neg = guard.startswith("@!")
        p = w.get(guard[2:] if neg else guard[1:])
        if p is None:
            pred = _UNKNOWN
        else:
            pred = (p == 0) if neg else (p != 0)
    op, _, rest = line.partition(" ")
    args = _operands(rest)
    base = op.split(".")[0]
    if base in ("bra", "ret", "exit", "bar", "barrier", "fence", "membar", "trap") or not args or not args[0].startswith("%"):
        return
    dst = args[0]
    if pred is _UNKNOWN:
        w.r[dst] = None
        return
    bits, signed = _bits(op), _signed(op)
    a = [w.get(x) for x in args[1:]]
    val = None
    try:
        if base == "mov":
            val = a[0]
        elif base == "ld" and ".param" in op:
            val = w.params.get(args[1].strip("[]").split("+")[0].strip())
        elif base == "cvt" or base == "cvta":
            val = a[0]
            if val is not None and base == "cvt":
                dt = op.split(".")
                val = _wrap(val, _bits(".".join(dt[:-1])) if len(dt) > 2 else bits, signed)
        elif any(x is None for x in a):
            val = None
        elif base == "add":
            val = a[0] + a[1]
        elif base == "sub":
            val = a[0] - a[1]
        elif base == "mul":
            if ".hi" in op:
                val = (a[0] * a[1]) >> bits
            else:
                val = a[0] * a[1]
        elif base == "mad":
            val = a[0] * a[1] + a[2]
        elif base == "shl":
            val = a[0] << a[1]
        elif base == "shr":
            if signed:
                val = a[0] >> a[1]
            else:
                u = _unsigned(a[0], bits)
                val = (u >> np.asarray(a[1]).astype(u.dtype)).astype(np.int64)
        elif base == "and":
            val = a[0] & a[1]
        elif base == "or":
            val = a[0] | a[1]
        elif base == "xor":
            val = a[0] ^ a[1]
        elif base == "not":
            val = ~a[0] if bits > 1 else (a[0] == 0).astype(np.int64)
        elif base == "neg":
            val = -a[0]
        elif base == "abs":
            val = np.abs(a[0])
        elif base == "min":
            val = np.minimum(a[0], a[1])
        elif base == "max":
            val = np.maximum(a[0], a[1])
        elif base == "div":
            val = np.where(a[1] != 0, np.fix(a[0] / np.where(a[1] == 0, 1, a[1])).astype(np.int64), 0)
        elif base == "rem":
            q = np.fix(a[0] / np.where(a[1] == 0, 1, a[1])).astype(np.int64)
            val = a[0] - q * a[1]
        elif base == "selp":
            val = np.where(a[2] != 0, a[0], a[1])
        elif base == "bfe":
            val = (a[0] >> a[1]) & ((1 << a[2]) - 1)
        elif base == "setp":
            cmp = op.split(".")[1]
            x, y = a[0], a[1]
            if op.split(".")[2].startswith("u") or cmp in ("lo", "ls", "hi", "hs"):
                x, y = _unsigned(x, _bits(op)), _unsigned(y, _bits(op))
            c = {"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y,
                 "lo": x < y, "ls": x <= y, "hi": x > y, "hs": x >= y}.get(cmp)
            if c is None:
                val = None
            else:
                val = c.astype(np.int64)
                if len(a) > 2 and ("and" in op.split(".") or "or" in op.split(".") or "xor" in op.split(".")):
                    third = a[2]
                    comb = [t for t in op.split(".") if t in ("and", "or", "xor")][0]
                    val = {"and": val & third, "or": val | third, "xor": val ^ third}[comb]
        else:
            val = None
    except (IndexError, TypeError, ValueError, OverflowError):
        val = None
    if val is not None and base != "setp" and bits > 1:
        val = _wrap(np.asarray(val, np.int64), bits, signed)
    w.set(dst, val, None if pred is None else pred)


def run_warp(blks, labels, w: Warp, limit: int = 1 << 20) -> Counter:
    """Entries of each block by one warp."""
    seen = Counter()
    i, steps = 0, 0
    while 0 <= i < len(blks):
        seen[i] += 1
        steps += len(blks[i])
        if steps > limit:
            raise Unfixed("the warp runs too long")
        nxt = i + 1
        for line in blks[i]:
            op = _opcode(line)
            if op.startswith("bra"):
                target = line.split()[-1].rstrip(";")
                if line.startswith("@"):
                    guard = line.split()[0]
                    neg = guard.startswith("@!")
                    p = w.get(guard[2:] if neg else guard[1:])
                    if p is None:
                        raise Unfixed("a branch on a value the arguments do not fix")
                    take = (p == 0) if neg else (p != 0)
                    if take.all():
                        nxt = labels[target]
                    elif take.any():
                        raise Unfixed("a branch splits the warp")
                else:
                    nxt = labels[target]
                break
            if op.startswith(("ret", "exit")):
                nxt = -1
                break
            step(w, line)
        i = nxt
    return seen


def weights(ptx: str, args: list, grid: tuple, num_warps: int) -> list[int] | None:
    """How many warp-executions each block has over the whole launch (programs × warps), or None when the
    arguments do not fix them. ``args``: the PTX's parameters in order (an int, or None for an unknown
    value: a float, a pointer's address is given as an int)."""
    params, labels, blks = blocks(ptx)
    vals = {p: (None if v is None else np.full(WARP, int(v), np.int64)) for p, v in zip(params, args)}
    total = Counter()
    gx, gy, gz = (tuple(grid) + (1, 1))[:3]
    lane = np.arange(WARP, dtype=np.int64)
    try:
        for z in range(gz):
            for y in range(gy):
                for x in range(gx):
                    for wid in range(num_warps):
                        tid = wid * WARP + lane
                        special = {"%tid.x": tid, "%tid.y": lane * 0, "%tid.z": lane * 0,
                                   "%ctaid.x": lane * 0 + x, "%ctaid.y": lane * 0 + y, "%ctaid.z": lane * 0 + z,
                                   "%nctaid.x": lane * 0 + gx, "%nctaid.y": lane * 0 + gy, "%nctaid.z": lane * 0 + gz,
                                   "%ntid.x": lane * 0 + WARP * num_warps, "%laneid": lane, "%warpid": lane * 0 + wid}
                        total.update(run_warp(blks, labels, Warp(special, vals)))
    except Unfixed:
        return None
    return [total.get(i, 0) for i in range(len(blks))]


def weighted(ptx: str, count, args: list, grid: tuple, num_warps: int) -> dict | None:
    """``count(text)`` (a function of PTX text giving a dict of counts, such as compiled_counts's
    ``ptx_counts``) summed over the blocks, each block's counts times its warp-executions, divided by the
    programs: warp instructions per program; None when the arguments do not fix the trip counts."""
    params, labels, blks = blocks(ptx)
    ws = weights(ptx, args, grid, num_warps)
    if ws is None:
        return None
    programs = 1
    for g in (tuple(grid) + (1, 1))[:3]:
        programs *= g
    out: dict = {}
    for blk, w in zip(blks, ws):
        if not w:
            continue
        c = count("\n".join("\t" + line + ";" for line in blk))
        for k, v in c.items():
            if isinstance(v, dict):
                d = out.setdefault(k, {})
                for kk, vv in v.items():
                    d[kk] = d.get(kk, 0) + vv * w
            elif isinstance(v, (int, float)):
                out[k] = out.get(k, 0) + v * w
    for k, v in out.items():
        if isinstance(v, dict):
            out[k] = {kk: vv / programs for kk, vv in v.items()}
        else:
            out[k] = v / programs
    return out
