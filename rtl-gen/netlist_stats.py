#!/usr/bin/env python3
"""Area and logic depth of one module synthesized by yosys `synth_xilinx` (7-series cells).

usage: netlist_stats.py NETLIST.json TOP

Reads the JSON netlist (yosys `write_json`) and prints one line:

    LUTS FFS BRAMS LEVELS DSPS NS MHZ

LUTS    slice LUTs: LUT1..LUT6 and INV (a LUT1), plus the LUT sites of distributed RAMs and SRLs
FFS     flip-flops and latches: FDRE FDSE FDCE FDPE (+ _1 variants), LDCE LDPE
BRAMS   RAMB36E1 = 1, RAMB18E1 = 0.5 (FIFO36E1/FIFO18E1 likewise)
LEVELS  logic levels: the most combinational cells on any path from a start point (input port,
        flip-flop Q, block-RAM output, registered DSP output) to an end point (output port,
        flip-flop D/CE/R/S, RAM write side or address). LUT, INV, MUXF7/8, CARRY4, DSP48E1 and a
        distributed-RAM / SRL read each count 1; buffers count 0. "loop" if a combinational
        loop exists.
DSPS    DSP48E1 count
NS      estimated delay of the slowest path in ns: clock-to-out of its start point, each cell's
        delay for the arc taken (cell_delays.py, 7-series speed -1), a fixed routing delay per
        connection (none on a slice's dedicated wires), the setup time of its end point. The
        slowest path need not be the deepest: a 64-bit add is 17 levels but faster than 10 LUTs.
        "-" if a combinational loop exists.
MHZ     1000 / NS, the estimated clock the block would close at ("-" if NS is "-" or 0)

Then the cell histogram, one '# TYPE COUNT' line per cell type (for the log), the deepest path,
one '# path LEVEL CELL_TYPE NET' line per cell from its start point to its end point (NET: a
name yosys kept for the cell's output bit, which names the Verilog wire it came from), and the
slowest path, one '# slow NS CELL_TYPE NET' line per cell with the arrival time at its output,
from 'start' (the start point's clock-to-out) to 'end' (with the end point's setup time).

Why not yosys `ltp -noff`: after synth_xilinx the flip-flops are FDRE/FDSE/... instances,
which -noff does not know as flip-flops (it only skips yosys' internal $dff types), so ltp walks
through every register, reports "Detected loop" for each feedback and prints a length that
mixes many clock cycles; it also counts every cell as depending on every input, so a
distributed RAM's write data would look like it feeds its read data combinationally.
docs/area-report.md has the details.
"""
import json
import sys

import cell_delays as cd

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
LOGIC_TYPES = cd.LUT_TYPES | {"MUXF7", "MUXF8"}
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


def bits(conn):
    return [b for b in conn if isinstance(b, int)]


def pins(ins, *names):
    """(port, bit) pairs of the named input ports."""
    return [(p, b) for p in names for b in ins.get(p, [])]


class Graph:
    """Timing graph over bits: arcs[src] = [(dst, levels, ns, cell type)]: combinational arcs,
    and arcs into end points ("end", cell, port) and ("out", bit), which add no level.
    Sequential cells add no arc through themselves: their outputs start paths (start_ns: their
    clock-to-out), their inputs end them (the arc's ns includes the setup time). A register
    inside a RAM or DSP whose output is read combinationally is a pseudo start point
    (kind, cell name) with an arc to the outputs."""

    def __init__(self, mod):
        self.arcs = {}
        self.start_ns = {}
        self.what = {}         # start bit, pseudo start or end point -> what it is, for listings
        self.driver = {}       # bit -> (cell type, port)
        self.fanout = {}
        for c in mod.get("cells", {}).values():
            for p, v in c.get("connections", {}).items():
                d = c.get("port_directions", {}).get(p)
                for b in bits(v):
                    if d == "output":
                        self.driver[b] = (c["type"], p)
                    elif d == "input":
                        self.fanout[b] = self.fanout.get(b, 0) + 1
        for name, p in mod.get("ports", {}).items():
            for b in bits(p["bits"]):
                if p["direction"] == "input":
                    self.driver[b] = ("input", name)
                    self.what[b] = "input"
                else:
                    self.fanout[b] = self.fanout.get(b, 0) + 1
                    self.what[("out", b)] = "output"
                    self.add(b, ("out", b), 0, 0.0, "output")

    def add(self, src, dst, levels, ns, ctype):
        self.arcs.setdefault(src, []).append((dst, levels, ns, ctype))

    def hop(self, b, ctype, port):
        """Routing delay from bit b's driver into input `port` of a cell of type ctype."""
        if not isinstance(b, int):
            return 0.0  # a pseudo start point: inside the cell
        dtype, dport = self.driver.get(b, ("input", ""))
        return cd.net_hop(dtype, dport, self.fanout.get(b, 0), ctype, port)

    def through(self, ins, outs, levels, ns, ctype):
        """Arcs from every (port, bit) of ins to every bit of outs; ns: the cell's delay."""
        for p, b in ins:
            hop = self.hop(b, ctype, p)
            for o in outs:
                self.add(b, o, levels, hop + ns, ctype)

    def start(self, outs, ns, what):
        for b in outs:
            self.start_ns[b] = ns
            self.what[b] = what

    def ends(self, cname, ctype, ins, setup):
        """End points at the (port, bit) pairs ins; setup(port) in ns."""
        for p, b in ins:
            e = ("end", cname, p)
            self.what[e] = f"{ctype}.{p}"
            self.add(b, e, 0, self.hop(b, ctype, p) + setup(p), ctype)


def lutram(g, cname, t, ins, outs):
    """Distributed RAM / SRL: a read (address -> data) is one LUT level; the write side is
    clocked and ends paths; the output also changes on the clock (a write landing, a shift)."""
    extra = cd.LUTRAM_READ_EXTRA.get(t, 0.0)
    srl = t.startswith("SRL")
    clk = ("ramread", cname)
    g.what[clk] = f"{t} clock-to-out"
    for p, ob in outs.items():
        if p == "Q31":  # shift-register cascade output: a register
            g.start(ob, cd.SRL_CLK_TO_Q31, f"{t}.Q31")
            continue
        if srl:
            addr = pins(ins, "A", "A0", "A1", "A2", "A3", "A4")
        elif t.endswith("M"):  # RAM32M/RAM64M: DOx reads ADDRx
            addr = pins(ins, "ADDR" + p[-1])
        elif p == "DPO":
            addr = [(k, b) for k, v in ins.items() if k.startswith("DPRA") for b in v]
        else:  # SPO / O: the write/single port address
            addr = [(k, b) for k, v in ins.items()
                    if k == "A" or (k.startswith("A") and k[1:].isdigit()) for b in v]
        # a read with a constant address still costs the LUT level
        clk_ns = cd.SRL_CLK_TO_Q if srl else cd.LUTRAM_CLK_TO_OUT + extra
        for o in ob:
            g.add(clk, o, 1, clk_ns, t)
        g.through(addr, ob, 1, cd.LUT + extra, t)
    if srl:
        g.ends(cname, t, pins(ins, "D", "CE"), lambda p: cd.SRL_SETUP[p])
        return
    # the write side: data, write enable, write address (ADDRD, A*); not the read-only DPRA/ADDRA-C
    wr = [(k, b) for k, v in ins.items()
          if (k != "WCLK" and not k.startswith("DPRA") and k[:4] != "ADDR") or k == "ADDRD"
          for b in v]

    def setup(p):
        if p == "D" or p.startswith("DI"):
            return cd.LUTRAM_SETUP["data"]
        return cd.LUTRAM_SETUP["we" if p == "WE" else "addr"]
    g.ends(cname, t, wr, setup)


def carry4(g, ins, conns):
    """CARRY4 bit i: O[i] = S[i] ^ c[i], CO[i] = S[i] ? c[i] : DI[i], c[0] = CI | CYINIT,
    c[i+1] = CO[i]: an output depends on the carry-in and the bits at or below it only (the
    sum O[i] not on DI[i]); cell_delays.CARRY4 has the delay of each such arc."""
    cin = pins(ins, "CI", "CYINIT")
    S, DI = conns.get("S", []), conns.get("DI", [])
    for i in range(4):
        for out, di_upto in (("O", i), ("CO", i + 1)):
            ob = bits(conns.get(out, [])[i:i + 1])
            srcs = [(p, p, b) for p, b in cin]
            srcs += [("S", f"S{j}", b) for j in range(i + 1) for b in bits(S[j:j + 1])]
            srcs += [("DI", f"DI{j}", b) for j in range(di_upto) for b in bits(DI[j:j + 1])]
            for port, pin, b in srcs:
                ns = g.hop(b, "CARRY4", port) + cd.carry4_arc(pin, f"{out}{i}")
                for o in ob:
                    g.add(b, o, 1, ns, "CARRY4")


def bram(g, cname, c, t, ins, outs):
    """Block RAM / FIFO: outputs start paths after the clock-to-out (shorter with the output
    register DOx_REG), every input but a clock ends one."""
    for p, ob in outs.items():
        reg = param_int(c, "DOA_REG" if p.startswith(("DOA", "DOPA")) else "DOB_REG")
        g.start(ob, cd.BRAM_CLK_TO_OUT_REG if reg else cd.BRAM_CLK_TO_OUT, f"{t}.{p}")
    g.ends(cname, t, [(p, b) for p, v in ins.items() if not p.startswith(("CLK", "RDCLK", "WRCLK"))
                      for b in v], cd.bram_setup)


def dsp(g, cname, c, ins, outs, all_out):
    """DSP48E1: combinational, registered inside (a pseudo start inside), or registered at P."""
    inner = any(param_int(c, k) for k in DSP_REG_PARAMS)
    mreg = param_int(c, "MREG")
    data_in = [(p, b) for p, v in ins.items() if p != "CLK" for b in v]
    if not (param_int(c, "PREG") or inner):
        g.through(data_in, all_out, 1, cd.DSP_COMB, "DSP48E1")
        return
    if param_int(c, "PREG"):  # output register: P starts paths, inputs end them
        for p, ob in outs.items():
            g.start(ob, cd.DSP_CLK_TO_P, f"DSP48E1.{p}")
    else:  # registered inside, combinational after: the outputs start one level in
        reg = ("dspreg", cname)
        g.what[reg] = "DSP48E1 inner register"
        for o in all_out:
            g.add(reg, o, 1, cd.DSP_AFTER_MREG if mreg else cd.DSP_AFTER_INREG, "DSP48E1")
    setup = (cd.DSP_SETUP_INREG if any(param_int(c, k) for k in DSP_REG_PARAMS if k != "MREG")
             else cd.DSP_SETUP_MREG if mreg else cd.DSP_SETUP_PREG)
    g.ends(cname, "DSP48E1", data_in, lambda p: setup)


def longest(g):
    """Longest path by levels and by delay in the DAG of bits (Kahn's algorithm): per node the
    most levels and the latest arrival, and the arc each came over. None if there is a loop."""
    indeg = {}
    for s, lst in g.arcs.items():
        indeg.setdefault(s, 0)
        for d, *_ in lst:
            indeg[d] = indeg.get(d, 0) + 1
    # Start points (ports, FF outputs, RAM outputs) have no arcs into them, so every bit with
    # no incoming arc starts a path: those, and undriven or constant bits.
    level = {b: 0 for b, n in indeg.items() if n == 0}
    arrival = {b: g.start_ns.get(b, 0.0) for b in level}
    by_level, by_delay = {}, {}  # bit -> (bit before it on its deepest / slowest path, cell type)
    ready = list(level)
    seen = 0
    while ready:
        b = ready.pop()
        seen += 1
        lb, ab = level[b], arrival[b]
        for d, w, ns, ct in g.arcs.get(b, ()):
            if lb + w > level.get(d, -1):
                level[d] = lb + w
                by_level[d] = (b, ct)
            if ab + ns > arrival.get(d, -1.0):
                arrival[d] = ab + ns
                by_delay[d] = (b, ct)
            indeg[d] -= 1
            if indeg[d] == 0:
                ready.append(d)
    if seen < len(indeg):
        return None
    return level, arrival, by_level, by_delay


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
    g = Graph(mod)
    unknown = set()
    for cname, c in mod.get("cells", {}).items():
        t = c["type"]
        hist[t] = hist.get(t, 0) + 1
        conns = c.get("connections", {})
        dirs = c.get("port_directions", {})
        ins = {p: bits(v) for p, v in conns.items() if dirs.get(p) == "input"}
        outs = {p: bits(v) for p, v in conns.items() if dirs.get(p) == "output"}
        in_pins = [(p, b) for p, v in ins.items() for b in v]
        all_out = [b for v in outs.values() for b in v]

        if t in cd.LUT_TYPES:
            luts += 1
            g.through(in_pins, all_out, 1, cd.LUT, t)
        elif t in ("MUXF7", "MUXF8"):
            fig = cd.MUXF7 if t == "MUXF7" else cd.MUXF8
            for p, b in in_pins:
                g.through([(p, b)], all_out, 1, fig.get(p, cd.LUT), t)
        elif t in BUFFER_TYPES:
            g.through(in_pins, all_out, 0, 0.0, t)
        elif t in FF_TYPES:
            ffs += 1
            g.start(all_out, cd.FF_CLK_TO_Q, f"{t}.Q")
            g.ends(cname, t, [(p, b) for p, b in in_pins if p in cd.FF_SETUP],
                   lambda p: cd.FF_SETUP[p])
        elif t in BRAM_WEIGHT:
            brams += BRAM_WEIGHT[t]  # synchronous read: outputs start paths
            bram(g, cname, c, t, ins, outs)
        elif t in LUTRAM_SITES:
            luts += LUTRAM_SITES[t]
            lutram(g, cname, t, ins, outs)
        elif t == "CARRY4":
            carry4(g, ins, conns)
        elif t == "DSP48E1":
            dsps += 1
            dsp(g, cname, c, ins, outs, all_out)
        else:
            # unknown primitive: count it as one combinational level, all inputs to all outputs
            unknown.add(t)
            g.through(in_pins, all_out, 1, cd.UNKNOWN_CELL, t)

    walk = longest(g)
    b = f"{brams:g}"
    if walk is None:
        print(f"{luts} {ffs} {b} loop {dsps} - -")
    else:
        level, arrival, by_level, by_delay = walk
        ends = [x for x in arrival if isinstance(x, tuple) and x[0] in ("end", "out")]
        worst = max((arrival[x] for x in ends), default=0.0)
        mhz = f"{1000 / worst:.0f}" if worst > 0 else "-"
        print(f"{luts} {ffs} {b} {max(level.values(), default=0)} {dsps} {worst:.2f} {mhz}")
    for t in sorted(hist):
        print(f"# {t} {hist[t]}")
    for t in sorted(unknown):
        print(f"# unknown-cell {t} (counted as one combinational level and one LUT's delay)")
    if walk is not None:
        print_paths(mod, g, level, arrival, by_level, by_delay, ends)


def print_paths(mod, g, level, arrival, by_level, by_delay, ends):
    net_of = {}
    for n, d in sorted(mod.get("netnames", {}).items(), key=lambda x: x[1].get("hide_name", 0)):
        for i, bit in enumerate(d["bits"]):
            if isinstance(bit, int):
                net_of.setdefault(bit, f"{n}[{i}]" if len(d["bits"]) > 1 else n)

    def name(x):
        return net_of.get(x, str(x)) if isinstance(x, int) else f"{x[0]}:{x[1]}"

    nodes = [x for x in level if not (isinstance(x, tuple) and x[0] in ("end", "out"))]
    if nodes and max(level[x] for x in nodes):
        b = max(nodes, key=lambda x: (level[x], str(x)))
        path = []
        while b in by_level:
            prev, ct = by_level[b]
            if level[b] != level[prev]:
                path.append((level[b], ct, name(b)))
            b = prev
        path.append((0, "start", name(b)))
        for lv, ct, net in reversed(path):
            print(f"# path {lv} {ct} {net}")
    if ends:
        b = max(ends, key=lambda x: (arrival[x], str(x)))
        path = [(arrival[b], "end", g.what.get(b, "?") + (" " + name(b[1]) if b[0] == "out" else ""))]
        b = by_delay[b][0]
        while b in by_delay:
            prev, ct = by_delay[b]
            path.append((arrival[b], ct, name(b)))
            b = prev
        path.append((arrival[b], "start", f"{g.what.get(b, 'constant')} {name(b)}"))
        for ns, ct, net in reversed(path):
            print(f"# slow {ns:.3f} {ct} {net}")


if __name__ == "__main__":
    main()
