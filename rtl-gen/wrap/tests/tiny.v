// tiny.v — written by hand in rtl-gen's conventions (docs/rtl-gen.md) as the Verilog of
// tiny.c, so the Verilator flow is tested without rtl-gen. tests/run mutates one operator
// of it at a time and expects equiv to report the mismatch.
`default_nettype none
module tiny (
    input wire clk,
    input wire rst,
    input wire cmd_valid,
    input wire [15:0] cmd_data,
    input wire [12:0] delta,
    input wire [99:0] wide,
    input wire res_ready,
    output wire cmd_ready,
    output wire res_valid,
    output wire [31:0] res_data,
    output wire [12:0] acc,
    output wire [99:0] wide_x
);

    // State registers (the state struct), reset to 0.
    reg [12:0] st_acc;
    reg [99:0] st_w;
    reg st_pending;
    reg st_res_valid;
    reg [7:0] st_cnt__n;
    reg [31:0] st_res;

    // HLS_MEM st_m: 8 x 32 bits, synchronous read-first RAM.
    reg [31:0] st_m_cells [0:7];
    reg [31:0] st_m_rdata;

    assign cmd_ready = !st_res_valid && !st_pending;
    assign res_valid = st_res_valid;
    assign res_data = st_res;
    assign acc = st_acc;
    assign wide_x = wide ^ st_w;

    wire take = cmd_valid && cmd_ready;
    wire is_write = cmd_data[15];
    wire [2:0] addr = cmd_data[2:0];
    wire [31:0] wdata = {16'd0, cmd_data} * 32'd3 + {{19{st_acc[12]}}, st_acc};

    always @(posedge clk) begin
        if (rst) begin
            st_acc <= 13'd0;
            st_w <= 100'd0;
            st_pending <= 1'b0;
            st_res_valid <= 1'b0;
            st_cnt__n <= 8'd0;
            st_res <= 32'd0;
        end else begin
            if (st_pending) begin
                st_res <= st_m_rdata;
                st_res_valid <= 1'b1;
                st_pending <= 1'b0;
            end else if (st_res_valid && res_ready) begin
                st_res_valid <= 1'b0;
            end
            if (take && !is_write) st_pending <= 1'b1;
            if (take) st_cnt__n <= st_cnt__n + 8'd1;
            st_acc <= st_acc + delta;
            st_w <= {st_w[98:0], 1'b0} ^ wide;
        end
    end

    // st_m ports: one read, one write per cycle, read-first.
    always @(posedge clk) begin
        if (!rst && take && is_write) st_m_cells[addr] <= wdata;
        if (!rst && take && !is_write) st_m_rdata <= st_m_cells[addr];
    end
    // Power-up contents: all zero (the C model's state starts zeroed).
    integer st_m_init;
    initial begin
        for (st_m_init = 0; st_m_init < 8; st_m_init = st_m_init + 1)
            st_m_cells[st_m_init] = 32'd0;
        st_m_rdata = 32'd0;
    end

    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_bits = &{1'b0, cmd_data[14:3], 1'b0};
    /* verilator lint_on UNUSEDSIGNAL */
endmodule
`default_nettype wire
