/* api_test — a plain C testbench driving the verilated tiny through tiny_rtl.h with the C
 * model's own struct types (tiny.h), linked as docs/verilator-flow.md says. Directed
 * checks of what the API promises: reset state, signed and >64-bit leaves in their C
 * storage, a memory write seen by read_state, a read answered on the output stream, the
 * "__" register, and a waveform written to argv[1]. Exit 1 (after saying what) on failure. */
#include <stdio.h>
#include <string.h>

#include "tiny.h"
#include "tiny_rtl.h"

_Static_assert(sizeof(tiny_in) == TINY_RTL_IN_SIZE, "in struct size");
_Static_assert(sizeof(tiny_out) == TINY_RTL_OUT_SIZE, "out struct size");
_Static_assert(sizeof(tiny_state) == TINY_RTL_STATE_SIZE, "state struct size");

static int failures;

#define EXPECT(cond)                                                  \
    do {                                                              \
        if (!(cond)) {                                                \
            printf("api_test:%d: expected %s\n", __LINE__, #cond);    \
            failures++;                                               \
        }                                                             \
    } while (0)

static void cycle(tiny_rtl *m, const tiny_in *in, tiny_out *out) {
    tiny_rtl_eval(m, in, out);
    tiny_rtl_edge(m);
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    tiny_rtl *m = tiny_rtl_new();
    tiny_rtl_trace(m, argv[1]);
    tiny_in in;
    tiny_out out;
    tiny_state st;
    memset(&in, 0, sizeof in);

    tiny_rtl_eval(m, &in, &out); /* after reset */
    EXPECT(out.cmd_ready && !out.res.valid && out.acc == 0);

    in.delta = -1; /* acc: 0 -> -1, stored with sign copies in both bytes */
    in.wide = ((hls_uint(100))1 << 99) | 5;
    cycle(m, &in, &out);
    in.delta = 0;
    in.wide = 0;
    tiny_rtl_eval(m, &in, &out);
    EXPECT(out.acc == -1);
    uint8_t raw[2];
    memcpy(raw, &out.acc, 2);
    EXPECT(raw[0] == 0xff && raw[1] == 0xff);
    EXPECT(out.wide_x == (((hls_uint(100))1 << 99) | 5));
    tiny_rtl_read_state(m, &st);
    EXPECT(st.acc == -1 && st.w == (((hls_uint(100))1 << 99) | 5));

    in.cmd.valid = 1; /* write m[5] = 0x8005 * 3 + acc */
    in.cmd.data = 0x8005;
    cycle(m, &in, &out);
    EXPECT(out.cmd_ready);
    uint32_t word = 0x8005u * 3u - 1u;
    tiny_rtl_read_state(m, &st);
    EXPECT(st.m.hls_mem_cell[5] == word && st.cnt_.n == 1);

    in.cmd.data = 5; /* read m[5]: pending, then offered on res until res_ready */
    cycle(m, &in, &out);
    in.cmd.valid = 0;
    cycle(m, &in, &out);
    EXPECT(!out.cmd_ready);
    tiny_rtl_read_regs(m, &st);
    EXPECT(st.m.hls_mem_rdata == word && st.res_valid && st.cnt_.n == 2);
    tiny_rtl_eval(m, &in, &out);
    EXPECT(out.res.valid && out.res.data == word && !out.cmd_ready);
    in.res_ready = 1;
    cycle(m, &in, &out);
    tiny_rtl_eval(m, &in, &out);
    EXPECT(!out.res.valid && out.cmd_ready);

    tiny_rtl_free(m); /* closes the waveform */
    FILE *f = fopen(argv[1], "rb");
    EXPECT(f && fseek(f, 0, SEEK_END) == 0 && ftell(f) > 0);
    if (f) fclose(f);
    return failures ? 1 : 0;
}
