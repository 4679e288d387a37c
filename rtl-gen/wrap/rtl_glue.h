/* rtl_glue.h — the design-independent half of every generated FUNC_rtl.cpp.
 *
 * wrap-gen writes, per block, the leaf tables of its .iface and the extern "C" functions
 * of FUNC_rtl.h; they forward to rtl_glue<VFUNC> below, which moves the C structs' bytes
 * into and out of the verilated model.
 *
 * Signals are found by name in Verilator's scope tables (TOP_public.vlt puts exactly the
 * interface's signals there with public_flat_rw), not through the C++ member names: the
 * tables keep the Verilog names of the .iface, while members are mangled ("a__b" becomes
 * a___05Fb, C++ keywords get a prefix). The lookup also checks each width against the
 * .iface, so an interface that disagrees with its Verilog stops at FUNC_rtl_new, not as a
 * mysterious mismatch thousands of cycles later. Pointers are looked up once. */
#ifndef WRAP_RTL_GLUE_H
#define WRAP_RTL_GLUE_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bits.h"
#include "verilated.h"
#include "verilated_syms.h"
#if VM_TRACE
#include "verilated_fst_c.h"
#endif

struct rtl_leaf {
    const char *name;
    unsigned width, offset, size;
    bool is_signed;
};

struct rtl_mem {
    const char *name;
    unsigned width, depth, offset, elem_size;
};

/* A composite's FIFO storage: Verilog array NAME.entry, entry i at offset + entry_size * i. */
struct rtl_fifo {
    const char *name;
    unsigned width, depth, offset, entry_size;
};

struct rtl_design {
    const char *top;
    unsigned in_size, out_size, state_size;
    const rtl_leaf *in, *out, *regs;
    unsigned n_in, n_out, n_regs;
    const rtl_mem *mems;
    unsigned n_mems;
    const rtl_fifo *fifos;
    unsigned n_fifos;
    const unsigned *unreset; /* indices into regs of the registers without reset */
    unsigned n_unreset;
};

/* A VerilatedContext per model, so models share no simulation state and may be evaluated on
 * different threads at once (each model by one thread at a time): Verilator's own globals
 * are the thread-local current context and mutex-guarded registries. The context runs one
 * thread: rtl-gen/verilate builds single-threaded models, and Verilator 5.0 would otherwise
 * give every context a pool of hardware_concurrency - 1 idle worker threads. It records
 * waveform activity when the model was built with --trace-fst. Both must be set before the
 * model is constructed. */
struct rtl_context : VerilatedContext {
    rtl_context() {
        threads(1);
#if VM_TRACE
        traceEverOn(true);
#endif
    }
    /* Runs after the model is gone (rtl_glue declares it first). The destroying thread's
     * current context, and Verilator's "last context" that a thread without one falls back
     * to, named this one: leave them on the default context, which is never freed, so no
     * later lookup reaches freed memory. */
    ~rtl_context() { Verilated::threadContextp(Verilated::defaultContextp()); }
};

template <class Model>
class rtl_glue {
  public:
    explicit rtl_glue(const rtl_design &d) : d_(d), model_(&ctx_, "TOP") {
        /* Ports are in the scope of the model's root ("TOP.TOP"), the rest in the module's. */
        for (unsigned i = 0; i < d.n_in; i++)
            in_.push_back(find("TOP.TOP", d.in[i].name, d.in[i].width, 0));
        for (unsigned i = 0; i < d.n_out; i++)
            out_.push_back(find("TOP.TOP", d.out[i].name, d.out[i].width, 0));
        for (unsigned i = 0; i < d.n_regs; i++)
            reg_.push_back(internal(d.regs[i].name, "", d.regs[i].width, 0));
        for (unsigned i = 0; i < d.n_mems; i++) {
            const rtl_mem &m = d.mems[i];
            rdata_.push_back(internal(m.name, "_rdata", m.width, 0));
            cells_.push_back(internal(m.name, "_cells", m.width, m.depth));
        }
        for (unsigned i = 0; i < d.n_fifos; i++)
            entries_.push_back(internal(std::string(d.fifos[i].name) + ".entry", "",
                                        d.fifos[i].width, d.fifos[i].depth));
        /* Storage that is not reset starts as anything, as in hardware (Verilator would
         * start it at zero, and then a read before a write would go unnoticed). */
        scramble_unreset();
        /* Reset as the C harness starts: inputs zero, one edge with rst high. */
        for (unsigned i = 0; i < d.n_in; i++) std::memset(in_[i].p, 0, in_[i].bytes);
        model_.clk = 0;
        model_.rst = 1;
        model_.eval();
        model_.clk = 1;
        model_.eval();
        model_.rst = 0;
    }

    ~rtl_glue() {
        /* The model's scopes unregister through the destroying thread's current context:
         * make it ours, whichever model that thread built or ran last (a migration closes the
         * source from the thread that opened it, whose current context may be a freed one). */
        Verilated::threadContextp(&ctx_);
        model_.final();
#if VM_TRACE
        if (trace_) {
            trace_->close();
            delete trace_;
        }
#endif
    }

    /* Inputs from the in-struct, clk low, settle, outputs into the zeroed out-struct. */
    void eval(const void *in, void *out) {
        const uint8_t *src = static_cast<const uint8_t *>(in);
        for (unsigned i = 0; i < d_.n_in; i++) {
            const rtl_leaf &l = d_.in[i];
            std::memcpy(in_[i].p, src + l.offset, (l.width + 7) / 8);
            bits_extend(in_[i].p, l.width, in_[i].bytes, false);
        }
        model_.clk = 0;
        model_.eval();
        dump(time_);
        uint8_t *dst = static_cast<uint8_t *>(out);
        std::memset(dst, 0, d_.out_size);
        for (unsigned i = 0; i < d_.n_out; i++) get(out_[i].p, d_.out[i], dst);
    }

    void edge() {
        if (model_.clk) { /* edge() twice without eval(): fall first so this one rises */
            model_.clk = 0;
            model_.eval();
        }
        model_.clk = 1;
        model_.eval();
        dump(time_ + 5);
        time_ += 10;
    }

    /* The registers without reset take random values (seeded), as after a reset in hardware:
     * what equiv does before its first cycle. Not done by default: a model and its C twin
     * that start from zero stay equal register for register. */
    void scramble_registers(uint64_t seed) {
        uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
        for (unsigned k = 0; k < d_.n_unreset; k++) {
            unsigned i = d_.unreset[k];
            scramble(&x, reg_[i].p, d_.regs[i].width, reg_[i].bytes);
        }
    }

    /* Registers, memory read-data and FIFO entries: what equiv compares every cycle. */
    void read_regs(void *state) {
        uint8_t *dst = static_cast<uint8_t *>(state);
        for (unsigned i = 0; i < d_.n_regs; i++) get(reg_[i].p, d_.regs[i], dst);
        for (unsigned i = 0; i < d_.n_fifos; i++) {
            const rtl_fifo &q = d_.fifos[i];
            for (unsigned e = 0; e < q.depth; e++) {
                rtl_leaf entry = {q.name, q.width, q.offset + q.entry_size * e, q.entry_size, false};
                get(entries_[i].p + (size_t)entries_[i].bytes * e, entry, dst);
            }
        }
        for (unsigned i = 0; i < d_.n_mems; i++) {
            const rtl_mem &m = d_.mems[i];
            rtl_leaf rdata = {m.name, m.width, m.offset, m.elem_size, false};
            get(rdata_[i].p, rdata, dst);
        }
    }

    void read_state(void *state) {
        std::memset(state, 0, d_.state_size);
        read_regs(state);
        uint8_t *dst = static_cast<uint8_t *>(state);
        for (unsigned i = 0; i < d_.n_mems; i++) {
            const rtl_mem &m = d_.mems[i];
            for (unsigned c = 0; c < m.depth; c++) {
                unsigned at = m.offset + m.elem_size * (1 + c);
                rtl_leaf cell = {m.name, m.width, at, m.elem_size, false};
                get(cells_[i].p + (size_t)cells_[i].bytes * c, cell, dst);
            }
        }
    }

    void trace(const char *path) {
#if VM_TRACE
        if (trace_) {
            trace_->close();
        } else {
            trace_ = new VerilatedFstC;
            model_.trace(trace_, 99);
        }
        trace_->open(path);
#else
        std::fprintf(stderr, "%s_rtl_trace: no %s: model built without rtl-gen/verilate --trace\n",
                     d_.top, path);
#endif
    }

  private:
    struct var {
        uint8_t *p;
        unsigned bytes; /* of one element: 1, 2, 4, 8 or 4 * words */
    };

    [[noreturn]] void fail(const std::string &what) {
        std::fprintf(stderr, "%s_rtl: %s\n", d_.top, what.c_str());
        std::exit(1);
    }

    /* Variable NAME of scope SCOPE, checked against the .iface: WIDTH bits, and an
     * unpacked [0:DEPTH-1] array when DEPTH is not 0. */
    var find(const std::string &scope, const std::string &name, unsigned width, unsigned depth) {
        const VerilatedScope *s = ctx_.scopeFind(scope.c_str());
        if (!s) fail("no Verilator scope " + scope + " (was the model built with TOP_public.vlt?)");
        VerilatedVar *v = s->varFind(name.c_str());
        if (!v) fail("Verilog has no " + name + " in " + scope + " (or it is not public)");
        unsigned udims = depth ? 1 : 0;
        if ((unsigned)v->packed().elements() != width || (unsigned)v->udims() != udims ||
            (depth && (v->unpacked().low() != 0 || (unsigned)v->unpacked().elements() != depth)))
            fail(name + " in " + scope + " is " + std::to_string(v->packed().elements()) + " bits" +
                 (v->udims() ? " x " + std::to_string(v->unpacked().elements()) : std::string()) +
                 " in the Verilog, but " + std::to_string(width) + " bits" +
                 (depth ? " x " + std::to_string(depth) : std::string()) + " in the interface");
        return var{static_cast<uint8_t *>(v->datap()), v->entSize()};
    }

    /* Register or memory NAME of the .iface: "st_x" lives in the top module's scope,
     * "inst.st_x" (a composite) in the scope of instance inst. */
    var internal(const std::string &name, const char *suffix, unsigned width, unsigned depth) {
        std::string scope = std::string("TOP.") + d_.top, leaf = name;
        size_t dot = name.rfind('.');
        if (dot != std::string::npos) {
            scope += "." + name.substr(0, dot);
            leaf = name.substr(dot + 1);
        }
        return find(scope, leaf + suffix, width, depth);
    }

    /* FIFO entries: a fixed pseudo-random pattern, so runs stay repeatable. */
    void scramble_unreset() {
        uint64_t x = 0x9e3779b97f4a7c15ull;
        for (unsigned i = 0; i < d_.n_fifos; i++)
            for (unsigned e = 0; e < d_.fifos[i].depth; e++)
                scramble(&x, entries_[i].p + (size_t)entries_[i].bytes * e, d_.fifos[i].width,
                         entries_[i].bytes);
    }

    /* WIDTH random bits (xorshift64 from *X) into a variable of BYTES bytes */
    static void scramble(uint64_t *x, uint8_t *p, unsigned width, unsigned bytes) {
        for (unsigned b = 0; b < bytes; b++) {
            *x ^= *x << 13;
            *x ^= *x >> 7;
            *x ^= *x << 17;
            p[b] = (uint8_t)*x;
        }
        bits_extend(p, width, bytes, false);
    }

    /* One leaf from the model into its struct image at DST + offset. */
    static void get(const uint8_t *p, const rtl_leaf &l, uint8_t *dst) {
        std::memcpy(dst + l.offset, p, (l.width + 7) / 8);
        bits_extend(dst + l.offset, l.width, l.size, l.is_signed);
    }

    /* Cycle k: eval at 10k, rising edge at 10k+5. A second eval in one cycle is dumped
     * one step later, as the FST writer ignores a time it has already written. */
    void dump(uint64_t t) {
#if VM_TRACE
        if (!trace_) return;
        if (dumped_ && t <= last_dump_) t = last_dump_ + 1;
        trace_->dump(t);
        last_dump_ = t;
        dumped_ = true;
#else
        (void)t;
#endif
    }

    const rtl_design &d_;
    rtl_context ctx_;
    Model model_;
    std::vector<var> in_, out_, reg_, rdata_, cells_, entries_;
    uint64_t time_ = 0;
#if VM_TRACE
    VerilatedFstC *trace_ = nullptr;
    uint64_t last_dump_ = 0;
    bool dumped_ = false;
#endif
};

#endif
