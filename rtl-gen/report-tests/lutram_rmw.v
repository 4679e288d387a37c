// report self-test: 64 x 8 synchronous-read RAM (distributed RAM + read register) whose
// write data is the last read value + 1. The RAM's write side is clocked: the path is
// read register -> adder -> RAM data input and ends there; it must not continue to the
// RAM's read output. 3 x RAM64M (12 LUTs) + INV; INV/CARRY4/CARRY4 = 3 levels, not 4.
// Estimated clock: the same path, 0.456 + route 0.6 + INV 0.124 + S0->CO3 0.508 + CI->O1
// 0.334 + route 0.6 + RAM data setup 0.453 = 3.07 ns (325 MHz).
// expect: 13 8 0 3 0 3.07 325
`default_nettype none
module lutram_rmw (
    input wire clk,
    input wire we,
    input wire [5:0] waddr,
    input wire [5:0] raddr,
    output wire [7:0] rdata
);
    reg [7:0] cells [0:63];
    reg [7:0] rd;
    always @(posedge clk) begin
        if (we) cells[waddr] <= rd + 8'd1;
        rd <= cells[raddr];
    end
    assign rdata = rd;
endmodule
