// report self-test: not valid Verilog; the report must show a FAIL row, not skip it.
// expect: FAIL
module broken (input wire a, output wire y);
    assign y = a +;
endmodule
