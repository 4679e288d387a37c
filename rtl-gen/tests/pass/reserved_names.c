/* reserved_names — ports, fields and registers named as a C programmer names them, which
 * happen to be reserved words elsewhere: Verilog (reg, wire, module, begin), SystemVerilog
 * (logic, final), C++ and Verilator's model class (class_... is fine, but set, name, eval,
 * major collide), plus field paths that flatten to one name (a.b and a_b; an input st_cnt
 * and the register of state field cnt; a register m_rdata next to memory m's read data).
 *
 * In the corpus for the name-legalisation pass (src/names.c): every name is made legal
 * and distinct deterministically, the renamings are listed in the Verilog header, and the
 * C model and the RTL still agree through the .iface. */
#include "hls.h"

typedef struct {
    uint8_t reg, wire;
    bool set, begin;
    struct { uint8_t b; } a;
    uint8_t a_b;
    uint8_t clk, name, eval, major;
    uint8_t class_, st_cnt;
} reserved_names_in;

typedef struct {
    uint8_t reg, module;
    uint8_t a_b;
    uint16_t logic, int_, new_;
    bool final;
} reserved_names_out;

typedef struct {
    uint8_t cnt;
    HLS_MEM(uint8_t, 16) m;
    uint8_t m_rdata;
    uint8_t delete;
} reserved_names_state;

HLS_TOP void reserved_names(const reserved_names_in *in, reserved_names_out *out,
                            reserved_names_state *st) {
    out->reg = in->reg ^ in->wire;
    out->module = (uint8_t)(st->cnt + in->a.b + in->a_b);
    out->a_b = st->m.hls_mem_rdata ^ st->m_rdata;
    out->logic = (uint16_t)(in->clk * in->name + in->eval);
    out->int_ = in->major ^ in->class_ ^ in->st_cnt;
    out->new_ = st->delete;
    out->final = in->set && in->begin;
    if (in->set) st->cnt++;
    st->m_rdata = in->reg;
    st->delete = in->name;
    hls_mem_read(&st->m, in->reg);
    if (in->begin) hls_mem_write(&st->m, in->wire, in->eval);
}
