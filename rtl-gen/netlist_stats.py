#!/usr/bin/env python3
"""Area and logic depth of one module synthesized by yosys `synth_xilinx` (7-series cells).

usage: netlist_stats.py NETLIST.json TOP

Reads the JSON netlist (yosys `write_json`) and prints one line:

    LUTS FFS BRAMS LEVELS DSPS

LUTS    slice LUTs: LUT1..LUT6 and INV (a LUT1), plus the LUT sites of distributed RAMs and SRLs
FFS     flip-flops and latches: FDRE FDSE FDCE FDPE (+ _1 variants), LDCE LDPE
BRAMS   RAMB36E1 = 1, RAMB18E1 = 0.5 (FIFO36E1/FIFO18E1 likewise)
LEVELS  logic levels: the most combinational cells on any path from a start point (input port,
        flip-flop Q, block-RAM output, registered DSP output) to an end point (output port,
        flip-flop D/CE/R/S, RAM write side or address). LUT, INV, MUXF7/8, CARRY4, DSP48E1 and a
        distributed-RAM / SRL read each count 1; buffers count 0. "loop" if a combinational
        loop exists.
DSPS    DSP48E1 count

Then the cell histogram, one '# TYPE COUNT' line per cell type (for the log), and the longest
path, one '# path LEVEL CELL_TYPE NET' line per cell from its start point to its end point
(NET: a name yosys kept for the cell's output bit, which names the Verilog wire it came from).

Why not yosys `ltp -noff`: after synth_xilinx the flip-flops are FDRE/FDSE/... instances,
which -noff does not know as flip-flops (it only skips yosys' internal $dff types), so ltp walks
through every register, reports "Detected loop" for each feedback and prints a length that
mixes many clock cycles; it also counts every cell as depending on every input, so a
distributed RAM's write data would look like it feeds its read data combinationally.
docs/area-report.md has the details.
"""
import json
import sys

# LUT sites used by distributed-RAM and shift-register primitives (7-series).
LUTRAM_SITES = {
    "RAM16X1S": 1, "RAM32X1S": 1, "RAM64X1S": 1, "RAM128X1S": 2, "RAM256X1S": 4,
    "RAM16X1D": 2, "RAM32X1D": 2, "RAM64X1D": 2, "RAM128X1D": 4,
    "RAM32M": 4, "RAM64M": 4,
    "SRL16E": 1, "SRLC16E": 1, "SRLC32E": 1,
}
FF_TYPES = {"FDRE", "FDSE", "FDCE", "FDPE", "FDRE_1", "FDSE_1", "FDCE_1", "FDPE_1",
            "LDCE", "LDPE"}
BRAM_WEIGHT = {"RAMB36E1": 1.0, "RAMB18E1": 0.5, "FIFO36E1": 1.0, "FIFO18E1": 0.5}
LOGIC_TYPES = {"LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6", "INV", "MUXF7", "MUXF8"}
BUFFER_TYPES = {"BUF", "BUFG", "BUFGCTRL", "BUFH", "BUFR", "IBUF", "OBUF", "IBUFG", "OBUFT",
                "IOBUF", "IBUFDS", "OBUFDS"}
DSP_REG_PARAMS = ("AREG", "BREG", "ACASCREG", "BCASCREG", "MREG", "CREG", "DREG", "ADREG")


def param_int(cell, name):
    v = cell.get("parameters", {}).get(name)
    if v is None:
        return 0
    if isinstance(v, int):
        return v
    s = str(v).strip()
    try:
        return int(s, 2) if set(s) <= set("01") and len(s) > 1 else int(s)
    except ValueError:
        return 0


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: netlist_stats.py NETLIST.json TOP")
    with open(sys.argv[1]) as f:
        design = json.load(f)
    top = sys.argv[2]
    mods = design["modules"]
    if top not in mods:
        # yosys escapes nothing for plain identifiers; accept a single non-blackbox module
        cands = [m for m, d in mods.items() if not d.get("attributes", {}).get("blackbox")]
        if len(cands) != 1:
            sys.exit(f"netlist_stats: module {top} not in {sys.argv[1]}")
        top = cands[0]
    mod = mods[top]

    hist = {}
    luts = ffs = dsps = 0
    brams = 0.0
    # Timing graph over bits: arcs[src bit] = [(dst bit, levels)], combinational arcs only.
    # Sequential cells add no arc: their outputs start paths, their inputs end them.
    arcs = {}
    unknown = set()

    def bits(conn):
        return [b for b in conn if isinstance(b, int)]

    def arc(srcs, dsts, w):
        for s in srcs:
            lst = arcs.setdefault(s, [])
            for d in dsts:
                lst.append((d, w, t))

    for cname, c in mod.get("cells", {}).items():
        t = c["type"]
        hist[t] = hist.get(t, 0) + 1
        conns = c.get("connections", {})
        dirs = c.get("port_directions", {})
        ins = {p: bits(v) for p, v in conns.items() if dirs.get(p) == "input"}
        outs = {p: bits(v) for p, v in conns.items() if dirs.get(p) == "output"}
        all_in = [b for v in ins.values() for b in v]
        all_out = [b for v in outs.values() for b in v]

        if t in LOGIC_TYPES:
            if t != "MUXF7" and t != "MUXF8":
                luts += 1
            arc(all_in, all_out, 1)
        elif t in BUFFER_TYPES:
            arc(all_in, all_out, 0)
        elif t in FF_TYPES:
            ffs += 1
        elif t in BRAM_WEIGHT:
            brams += BRAM_WEIGHT[t]  # synchronous read: outputs start paths
        elif t in LUTRAM_SITES:
            luts += LUTRAM_SITES[t]
            # read: address -> data out is one LUT level; write side (D/DI*/WE) is clocked.
            # SRL: A -> Q is a read of the shift register; Q31 is a register output.
            for p, ob in outs.items():
                if p == "Q31":  # shift-register output: a register
                    continue
                if t.startswith("SRL"):
                    addr = ins.get("A", []) + [b for k in ("A0", "A1", "A2", "A3", "A4")
                                               for b in ins.get(k, [])]
                elif t.endswith("M"):  # RAM32M/RAM64M: DOx reads ADDRx
                    addr = ins.get("ADDR" + p[-1], [])
                elif p == "DPO":
                    addr = [b for k, v in ins.items() if k.startswith("DPRA") for b in v]
                else:  # SPO / O: the write/single port address
                    addr = [b for k, v in ins.items()
                            if k == "A" or (k.startswith("A") and k[1:].isdigit()) for b in v]
                # a read with a constant address still costs the LUT level
                arc([("ramread", cname)] + addr, ob, 1)
        elif t == "CARRY4":
            # O[i] = S[i] ^ c[i], CO[i] = S[i] ? c[i] : DI[i], c[0] = CI | CYINIT, c[i+1] = CO[i]
            ci = ins.get("CI", []) + ins.get("CYINIT", [])
            S = conns.get("S", [])
            DI = conns.get("DI", [])
            O = conns.get("O", [])
            CO = conns.get("CO", [])
            acc = list(ci)
            for i in range(4):
                acc = acc + bits(S[i:i + 1]) + bits(DI[i:i + 1])
                arc(acc, bits(O[i:i + 1]) + bits(CO[i:i + 1]), 1)
        elif t == "DSP48E1":
            dsps += 1
            preg = param_int(c, "PREG")
            inner = any(param_int(c, k) for k in DSP_REG_PARAMS)
            if preg:
                pass  # output register: P starts paths, inputs end them
            elif inner:
                # registered inside, combinational after: the outputs start one level in
                arc([("dspreg", cname)], all_out, 1)
            else:
                arc(all_in, all_out, 1)
        else:
            # unknown primitive: count it as one combinational level, all inputs to all outputs
            unknown.add(t)
            arc(all_in, all_out, 1)

    # Longest path in the DAG of bits (Kahn's algorithm).
    indeg = {}
    for s, lst in arcs.items():
        indeg.setdefault(s, 0)
        for d, *_ in lst:
            indeg[d] = indeg.get(d, 0) + 1
    # Start points (ports, FF outputs, RAM outputs) have no arcs into them, so every bit with
    # no incoming arc starts at level 0: those, and undriven or constant bits.
    level = {b: 0 for b, n in indeg.items() if n == 0}
    came_from = {}  # bit -> (bit before it on its longest path, the cell type between)
    ready = list(level)
    seen = 0
    while ready:
        b = ready.pop()
        seen += 1
        lb = level[b]
        for d, w, ct in arcs.get(b, ()):
            if lb + w > level.get(d, -1):
                level[d] = lb + w
                came_from[d] = (b, ct)
            indeg[d] -= 1
            if indeg[d] == 0:
                ready.append(d)
    loop = seen < len(indeg)
    best = max(level.values(), default=0)

    b = f"{brams:g}"
    print(f"{luts} {ffs} {b} {'loop' if loop else best} {dsps}")
    for t in sorted(hist):
        print(f"# {t} {hist[t]}")
    for t in sorted(unknown):
        print(f"# unknown-cell {t} (counted as one combinational level)")
    if not loop and best:
        net_of = {}
        for n, d in sorted(mod.get("netnames", {}).items(), key=lambda x: x[1].get("hide_name", 0)):
            for i, bit in enumerate(d["bits"]):
                if isinstance(bit, int):
                    net_of.setdefault(bit, f"{n}[{i}]" if len(d["bits"]) > 1 else n)
        b = max(level, key=lambda x: (level[x], str(x)))
        path = []
        while b in came_from:
            prev, ct = came_from[b]
            if level[b] != level[prev]:
                path.append((level[b], ct, net_of.get(b, str(b))))
            b = prev
        path.append((0, "start", net_of.get(b, str(b))))
        for lv, ct, net in reversed(path):
            print(f"# path {lv} {ct} {net}")


if __name__ == "__main__":
    main()
