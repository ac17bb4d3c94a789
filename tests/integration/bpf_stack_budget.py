#!/usr/bin/env python3
"""The BPF stack each program's deepest call chain needs, read from the object.

The verifier adds up the stack of every frame of a call chain (a program,
the subprograms it calls, the callbacks it hands bpf_loop) and refuses the
program past 512 bytes. Kernels round each frame differently (to 16 bytes
when JITed on newer ones, to 32 on older ones) and the host's own kernel may
give programs a private stack, so loading here does not show what an older
kernel says: this reads it from the code instead, rounding each frame to 32.

usage: bpf_stack_budget.py OBJ   prints "BYTES PROGRAM: frame(depth) > ..." per
program, deepest first. Exits 2 when the object cannot be read.
"""
import re
import shutil
import subprocess
import sys

INSN = re.compile(r"^\s*(\d+):\s+((?:[0-9a-f]{2} )+)\s*(.*)$")
FUNC = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
SECTION = re.compile(r"^Disassembly of section (\S+):$")
RELOC = re.compile(r"^\s+[0-9a-f]+:\s+(R_BPF_\w+)\s+(\S+)$")
STACK_SLOT = re.compile(r"\(r10 - (\d+)\)")
FROM_FP = re.compile(r"^(r\d+) = r10$")
FP_OFFSET = re.compile(r"^(r\d+) \+= -(\d+)$")


def objdump():
    for name in ["llvm-objdump"] + [f"llvm-objdump-{v}" for v in range(20, 10, -1)]:
        if shutil.which(name):
            return name
    sys.exit("bpf_stack_budget: no llvm-objdump")


def parse(path):
    tool = objdump()
    try:
        syms = subprocess.run([tool, "-t", path], capture_output=True, text=True, check=True).stdout
        text = subprocess.run([tool, "-d", "-r", path], capture_output=True, text=True, check=True).stdout
    except subprocess.CalledProcessError as e:
        print(f"bpf_stack_budget: {path}: {e.stderr.strip()}", file=sys.stderr)
        sys.exit(2)
    # functions of .text by their byte offset: what calls and callbacks name by offset
    text_funcs = {}
    for line in syms.splitlines():
        f = line.split()
        if len(f) >= 6 and f[2] == "F" and f[3] == ".text":
            text_funcs[int(f[0], 16)] = f[5]
    funcs = {}  # name -> {"section", "depth", "calls": set}
    section = fn = None
    fp_regs = set()
    last = None  # (kind, insn index, imm) of the instruction a relocation may follow
    first_insn = {}  # name -> index of its first instruction (within its section)
    for line in text.splitlines():
        m = SECTION.match(line)
        if m:
            section, fn = m.group(1), None
            continue
        m = FUNC.match(line)
        if m:
            name = m.group(2)
            if name.startswith("LBB") or name.startswith(".L"):
                continue  # a branch label inside the function
            fn = name
            funcs[fn] = {"section": section, "depth": 0, "calls": set()}
            fp_regs = set()
            first_insn[fn] = None
            continue
        if fn is None:
            continue
        m = RELOC.match(line)
        if m and last:
            kind, idx, imm = last
            sym = m.group(2)
            if kind == "call" and m.group(1) == "R_BPF_64_32":
                funcs[fn]["calls"].add(text_funcs.get((imm + 1) * 8, "?") if sym == ".text" else sym)
            elif kind == "ld" and m.group(1) == "R_BPF_64_64" and sym == ".text":
                funcs[fn]["calls"].add(text_funcs.get(imm, "?"))  # a callback's address
            last = None
            continue
        m = INSN.match(line)
        if not m:
            continue
        idx, raw, asm = int(m.group(1)), m.group(2).split(), m.group(3).strip()
        if first_insn[fn] is None:
            first_insn[fn] = idx
        last = None
        for s in STACK_SLOT.findall(asm):
            funcs[fn]["depth"] = max(funcs[fn]["depth"], int(s))
        fm = FROM_FP.match(asm)
        if fm:
            fp_regs.add(fm.group(1))
        else:
            om = FP_OFFSET.match(asm)
            if om and om.group(1) in fp_regs:
                funcs[fn]["depth"] = max(funcs[fn]["depth"], int(om.group(2)))
            dest = asm.split(" ", 1)[0]
            if dest in fp_regs and not om:
                fp_regs.discard(dest)
        if raw[0] == "85":
            imm = int.from_bytes(bytes(int(b, 16) for b in raw[4:8]), "little", signed=True)
            src = int(raw[1], 16) >> 4
            if src == 1:  # a BPF-to-BPF call; relocated ones are resolved by the relocation
                last = ("call", idx, imm)
                funcs[fn].setdefault("pcrel", []).append((section, idx + imm + 1))
        elif raw[0] == "18" and len(raw) >= 8:
            imm = int.from_bytes(bytes(int(b, 16) for b in raw[4:8]), "little", signed=True)
            last = ("ld", idx, imm)
    # pc-relative calls with no relocation: the function starting at that instruction
    by_start = {(f["section"], first_insn[n]): n for n, f in funcs.items()}
    for n, f in funcs.items():
        for target in f.pop("pcrel", []):
            callee = by_start.get(target)
            if callee:
                f["calls"].add(callee)
    return funcs


def frame(depth):
    return (max(depth, 1) + 31) // 32 * 32


def deepest(funcs, name, seen=()):
    """(bytes, chain) of the deepest chain from name."""
    f = funcs.get(name)
    if f is None or name in seen:
        return 0, []
    best = (0, [])
    for c in f["calls"]:
        best = max(best, deepest(funcs, c, seen + (name,)), key=lambda b: b[0])
    return frame(f["depth"]) + best[0], [f"{name}({f['depth']})"] + best[1]


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        sys.exit(2)
    funcs = parse(sys.argv[1])
    rows = [(*deepest(funcs, n), n) for n, f in funcs.items() if f["section"] != ".text"]
    for total, chain, n in sorted(rows, key=lambda r: -r[0]):
        print(f"{total} {n}: {' > '.join(chain)}")


if __name__ == "__main__":
    main()
