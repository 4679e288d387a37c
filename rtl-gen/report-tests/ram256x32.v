// report self-test: 256 x 32 synchronous read-first RAM, one write and one read port.
// Expect one RAMB18E1 (0.5 BRAM), no LUTs, no FFs (the read register is the BRAM's),
// 0 logic levels.
// Estimated clock: block RAM clock-to-out without its output register, 2.454 ns, to the
// output port (407 MHz).
// expect: 0 0 0.5 0 0 2.45 407
`default_nettype none
module ram256x32 (
    input wire clk,
    input wire we,
    input wire [7:0] waddr,
    input wire [31:0] wdata,
    input wire [7:0] raddr,
    output wire [31:0] rdata
);
    reg [31:0] cells [0:255];
    reg [31:0] rd;
    always @(posedge clk) begin
        if (we) cells[waddr] <= wdata;
        rd <= cells[raddr];
    end
    assign rdata = rd;
endmodule
