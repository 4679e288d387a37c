// report self-test: parity of a 64-bit register into a register. abc maps it as 8 wide
// 8-input XORs (4 LUT6 + 2 MUXF7 + 1 MUXF8 each) and a ninth on their 8 outputs: 36 LUTs, and
// LUT6 -> MUXF7 -> MUXF8 twice = 6 logic levels (MUXF7/8 count as levels, as in Vivado).
// Estimated clock: 0.456 + route 0.6 + (LUT6 0.124 + MUXF7 0.223 + MUXF8 0.104, no routing
// inside the slice) + route 0.6 + the same 0.451 + D setup 0.031 = 2.59 ns (386 MHz).
// expect: 36 65 0 6 0 2.59 386
`default_nettype none
module parity64 (
    input wire clk,
    input wire [63:0] d,
    output wire p
);
    reg [63:0] r;
    reg q;
    always @(posedge clk) begin
        r <= d;
        q <= ^r;
    end
    assign p = q;
endmodule
