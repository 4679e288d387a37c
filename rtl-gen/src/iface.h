/* iface.h — a block's hardware interface: ports, registers, memories, streams.
 * Built from the C struct layouts (layout.c), written as the .iface file
 * (iface_write.c) and used by the translator to name every signal. */
#ifndef RTLGEN_IFACE_H
#define RTLGEN_IFACE_H

#include <stdbool.h>

typedef struct {
    char *name;        /* field path joined with '_' (registers: "st_" prefixed) */
    unsigned width;    /* bits */
    unsigned offset;   /* bytes from the start of its struct */
    unsigned size;     /* storage bytes */
    bool is_signed;
    const char *file;  /* where the field is declared, for errors */
    unsigned line, col;
} leaf_t;

typedef struct {
    char *name;        /* "st_" + field path */
    unsigned width;    /* word width in bits */
    unsigned depth;    /* words, a power of two */
    unsigned offset;   /* byte offset of hls_mem_rdata in the state struct */
    unsigned elem_size;/* bytes per word; cell i is at offset + elem_size * (1 + i) */
} mem_t;

typedef struct {
    char *name;
    bool is_input;     /* stream_in: valid/data are inputs, ready an output */
} stream_t;

/* A named state of an FSM state register (fsm_states.c): enum constant NAME = VALUE. */
typedef struct {
    unsigned reg;      /* index into regs */
    char *name;
    unsigned long long value;
} fsm_state_t;

typedef struct {
    char *top;
    char *source;
    unsigned in_size, out_size, state_size;
    leaf_t *in, *out, *regs;
    unsigned n_in, n_out, n_regs;
    mem_t *mems;
    unsigned n_mems;
    stream_t *streams;
    unsigned n_streams;
    int *reg_guard;    /* per register: -1 reset, else the guard register that makes a reset
                        * unnecessary (reset_proof.h); NULL before the proof ran: all reset */
    char **renames;    /* "input reg -> reg_ (a reserved word)": names.c, for the Verilog header */
    unsigned n_renames;
    fsm_state_t *states; /* named FSM states, grouped by nothing: in the order found */
    unsigned n_states, cap_states;
} iface_t;

/* Write the .iface file (format in docs/rtl-gen.md). */
bool iface_write(const iface_t *ifc, const char *path);

#endif
