// report self-test: the slowest path is not the deepest. A registered 64-bit add is 17 levels
// (1 LUT + 16 CARRY4) but its carry runs on the slice's dedicated wires: 3.6 ns by the delay
// model. Beside it, a chain of 10 two-input XORs (LUT2 primitives) is 10 levels, each LUT
// reached over general routing: 7.7 ns. Levels pick the add; the estimated clock must come
// from the chain (129 MHz, not the add's 273).
// expect: 74 204 0 17 0 7.73 129
`default_nettype none
module add64_vs_chain (
    input wire clk,
    input wire [63:0] a,
    input wire [63:0] b,
    input wire [10:0] x,
    output wire [63:0] sum,
    output wire parity
);
    reg [63:0] ra, rb, rs;
    reg [10:0] rx;
    reg rp;
    wire [10:0] chain;
    assign chain[0] = rx[0];
    genvar i;
    generate  // LUT2 primitives: synthesis maps them as they are, one LUT per link
        for (i = 1; i <= 10; i = i + 1) begin : link
            LUT2 #(.INIT(4'b0110)) xor2 (.I0(chain[i - 1]), .I1(rx[i]), .O(chain[i]));
        end
    endgenerate
    always @(posedge clk) begin
        ra <= a;
        rb <= b;
        rx <= x;
        rs <= ra + rb;
        rp <= chain[10];
    end
    assign sum = rs;
    assign parity = rp;
endmodule
