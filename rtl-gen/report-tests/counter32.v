// report self-test: a 32-bit counter with enable and synchronous reset.
// A carry chain: 1 LUT (INV) + 8 CARRY4 = 9 logic levels, 32 FFs, no BRAM.
// Estimated clock: FF clock-to-out 0.456 + route 0.6 + INV 0.124 + CARRY4 S0->CO3 0.508
// + 6 x CI->CO3 0.114 + CI->O1 0.334 + D setup 0.031 = 2.74 ns (365 MHz): 9 levels, but the
// carry chain's dedicated wires cost no routing.
// expect: 1 32 0 9 0 2.74 365
`default_nettype none
module counter32 (
    input wire clk,
    input wire rst,
    input wire en,
    output wire [31:0] q
);
    reg [31:0] c;
    always @(posedge clk)
        if (rst) c <= 32'd0;
        else if (en) c <= c + 32'd1;
    assign q = c;
endmodule
