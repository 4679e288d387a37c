"""The delay model of netlist_stats.py: nanoseconds per 7-series cell and timing arc, speed -1.

docs/area-report.md ("Estimated clock") lists every figure with its source. Two sources:
- yosys' own Xilinx cell library (share/yosys/xilinx/cells_sim.v, its `specify` blocks), whose
  figures come from Project X-Ray's database of Vivado's Artix-7 timing (prjxray-db): the CARRY4
  arcs, MUXF7/MUXF8, distributed RAM and SRL, block RAM, DSP48E1 and the setup times;
- routed Vivado timing reports of 7-series -1 parts: flip-flop clock-to-out 0.456 ns, a LUT
  0.124 ns (its fast pins; the placer puts the late signal there), D setup 0.031 ns, and the
  spread of routed net delays from which NET_HOP is taken.
NET_HOP, one figure per connection, is an estimate and the model's largest simplification: a
real net's delay depends on placement and fan-out (0.3 to 1.3 ns in those reports).
"""

NET_HOP = 0.60          # routing, per connection between two cells (estimate)

FF_CLK_TO_Q = 0.456     # FDRE/FDSE/FDCE/FDPE C -> Q
FF_SETUP = {"D": 0.031, "CE": 0.109, "R": 0.404, "S": 0.404, "CLR": 0.404, "PRE": 0.404,
            "GE": 0.109}   # GE: a latch's gate enable (its gate G is its clock)

LUT = 0.124             # LUT1..LUT6 and INV, any input to O
MUXF7 = {"I0": 0.223, "I1": 0.223, "S": 0.296}
MUXF8 = {"I0": 0.104, "I1": 0.104, "S": 0.273}

# CARRY4: (input pin, output pin) -> ns; pins as "S0", "DI2", "CI", "CYINIT", "O3", "CO1".
# An output depends only on the carry-in and the bits at or below it; a sum output O[i] does not
# depend on DI[i]. CI -> CO3 (0.114) is what one more 4-bit slice of a long add costs.
CARRY4 = {
    ("CYINIT", "O0"): 0.482, ("S0", "O0"): 0.223, ("CI", "O0"): 0.222,
    ("CYINIT", "O1"): 0.598, ("DI0", "O1"): 0.407, ("S0", "O1"): 0.400, ("S1", "O1"): 0.205,
    ("CI", "O1"): 0.334,
    ("CYINIT", "O2"): 0.584, ("DI0", "O2"): 0.556, ("DI1", "O2"): 0.537, ("S0", "O2"): 0.523,
    ("S1", "O2"): 0.558, ("S2", "O2"): 0.226, ("CI", "O2"): 0.239,
    ("CYINIT", "O3"): 0.642, ("DI0", "O3"): 0.615, ("DI1", "O3"): 0.596, ("DI2", "O3"): 0.438,
    ("S0", "O3"): 0.582, ("S1", "O3"): 0.618, ("S2", "O3"): 0.330, ("S3", "O3"): 0.227,
    ("CI", "O3"): 0.313,
    ("CYINIT", "CO0"): 0.536, ("DI0", "CO0"): 0.379, ("S0", "CO0"): 0.340, ("CI", "CO0"): 0.271,
    ("CYINIT", "CO1"): 0.494, ("DI0", "CO1"): 0.465, ("DI1", "CO1"): 0.445, ("S0", "CO1"): 0.433,
    ("S1", "CO1"): 0.469, ("CI", "CO1"): 0.157,
    ("CYINIT", "CO2"): 0.592, ("DI0", "CO2"): 0.540, ("DI1", "CO2"): 0.520, ("DI2", "CO2"): 0.356,
    ("S0", "CO2"): 0.512, ("S1", "CO2"): 0.548, ("S2", "CO2"): 0.292, ("CI", "CO2"): 0.228,
    ("CYINIT", "CO3"): 0.580, ("DI0", "CO3"): 0.526, ("DI1", "CO3"): 0.507, ("DI2", "CO3"): 0.398,
    ("DI3", "CO3"): 0.385, ("S0", "CO3"): 0.508, ("S1", "CO3"): 0.528, ("S2", "CO3"): 0.378,
    ("S3", "CO3"): 0.380, ("CI", "CO3"): 0.114,
}

# Distributed RAM and SRL. A read (address -> data) is a LUT; RAM128* adds the F7 mux and the
# slice output mux, RAM256X1S also the F8 mux (the latter an estimate from the MUXF figures).
LUTRAM_READ_EXTRA = {"RAM128X1S": 0.368, "RAM128X1D": 0.368, "RAM256X1S": 0.519}
LUTRAM_CLK_TO_OUT = 1.153   # WCLK -> SPO/DPO/DO*: the output changes when a write lands
LUTRAM_SETUP = {"data": 0.453, "we": 0.654, "addr": 0.362}  # addr: RAM64's (32: 0.245, 128: 0.616)
SRL_CLK_TO_Q = 1.472        # CLK -> Q (the tap the address selects)
SRL_CLK_TO_Q31 = 1.114      # CLK -> Q31 (the cascade output, a register)
SRL_SETUP = {"D": 0.173, "CE": 0.109}

# Block RAM: clock -> DO without / with the output register (DOA_REG / DOB_REG).
BRAM_CLK_TO_OUT = 2.454
BRAM_CLK_TO_OUT_REG = 0.882
BRAM_SETUP = {"ADDR": 0.566, "WE": 0.532, "DI": 0.737, "REGCE": 0.360, "RSTREG": 0.342}
BRAM_SETUP_OTHER = 0.566    # enables and the rest: taken as the address figure (estimate)

# DSP48E1 (a multiply without the pre-adder): A -> P fully combinational; P's arrival after an
# inner register (MREG, else AREG/BREG); P clock-to-out with PREG; setup at a registered input.
DSP_COMB = 2.823
DSP_AFTER_MREG = 1.671
DSP_AFTER_INREG = 2.952
DSP_CLK_TO_P = 0.329
DSP_SETUP_INREG = 0.254
DSP_SETUP_MREG = 1.416
DSP_SETUP_PREG = 2.739

UNKNOWN_CELL = LUT          # a primitive this model does not know: one LUT (estimate)

LUT_TYPES = {"LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6", "INV"}
# Outputs that may sit in the same slice as the flip-flop they feed: no routing between them.
SLICE_DRIVERS = LUT_TYPES | {"MUXF7", "MUXF8", "CARRY4"}


def net_hop(driver_type, driver_port, fanout, sink_type, sink_port):
    """Routing delay of one connection: NET_HOP, or 0 for a slice's dedicated wires (a LUT into
    its MUXF7 or carry chain, MUXF7 into MUXF8, carry-out into the next CARRY4's carry-in) and
    for a single-load slice output into a flip-flop's D (packed in the same slice)."""
    if sink_type == "MUXF7" and sink_port in ("I0", "I1") and driver_type in LUT_TYPES:
        return 0.0
    if sink_type == "MUXF8" and sink_port in ("I0", "I1") and driver_type == "MUXF7":
        return 0.0
    if sink_type == "CARRY4":
        if sink_port == "CI" and driver_type == "CARRY4" and driver_port == "CO":
            return 0.0
        if sink_port in ("S", "DI") and driver_type in LUT_TYPES:
            return 0.0
    if sink_port == "D" and sink_type.startswith("FD") and fanout == 1 \
            and driver_type in SLICE_DRIVERS:
        return 0.0
    return NET_HOP


def carry4_arc(in_pin, out_pin):
    """CARRY4 delay from in_pin (e.g. 'S2') to out_pin (e.g. 'CO3'), None where no arc exists."""
    return CARRY4.get((in_pin, out_pin))


def bram_setup(port):
    for prefix, ns in (("ADDR", BRAM_SETUP["ADDR"]), ("WE", BRAM_SETUP["WE"]),
                       ("DI", BRAM_SETUP["DI"]), ("REGCE", BRAM_SETUP["REGCE"]),
                       ("RSTREG", BRAM_SETUP["RSTREG"])):
        if port.startswith(prefix):
            return ns
    return BRAM_SETUP_OTHER
