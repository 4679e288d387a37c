// report self-test: a 32-bit counter with enable and synchronous reset.
// A carry chain: 1 LUT (INV) + 8 CARRY4 = 9 logic levels, 32 FFs, no BRAM.
// expect: 1 32 0 9 0
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
