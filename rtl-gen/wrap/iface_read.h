/* iface_read.h — the .iface file (format in docs/rtl-gen.md), read back into memory.
 * Used by wrap-gen (to emit the C API of a verilated model) and by the equiv driver
 * (to generate stimulus and compare leaves), so both see one validated interface. */
#ifndef WRAP_IFACE_READ_H
#define WRAP_IFACE_READ_H

#include <stdbool.h>

typedef struct {
    char *name;        /* Verilog name; registers are "st_..." (composites: "inst.st_...") */
    unsigned width;    /* bits */
    unsigned offset;   /* bytes from the start of its struct */
    unsigned size;     /* storage bytes */
    bool is_signed;    /* bits above width hold sign copies (else zeros) */
    int guard;         /* registers: -1 reset, else the register whose 1 makes this one
                        * defined ("noreset NAME GUARD": not reset, read only while GUARD is 1) */
} ifc_leaf;

typedef struct {
    char *name;        /* Verilog regs NAME_rdata and NAME_cells */
    unsigned width;
    unsigned depth;
    unsigned offset;   /* of hls_mem_rdata; cell i is at offset + elem_size * (1 + i) */
    unsigned elem_size;
} ifc_mem;

/* A FIFO of a composite (rtl-gen --compose): registers NAME.count and NAME.head (reg lines),
 * entries in the Verilog array NAME.entry, not reset: entry i at offset + entry_size * i.
 * Only the live entries (the count entries from head on, modulo depth) hold defined data. */
typedef struct {
    char *name;
    unsigned width, depth;
    unsigned offset;      /* of entry 0 in the state struct */
    unsigned entry_size;  /* bytes per entry */
    int count, head;      /* indices of the NAME.count and NAME.head registers */
} ifc_fifo;

typedef struct {
    char *name;
    bool is_input;     /* stream_in: NAME_valid/NAME_data* are inputs, NAME_ready an output */
    int valid, ready;  /* leaf indices: valid in the producer's struct, ready in the other */
} ifc_stream;

typedef struct {
    char *top, *source;
    unsigned in_size, out_size, state_size;
    ifc_leaf *in, *out, *regs;
    unsigned n_in, n_out, n_regs;
    ifc_mem *mems;
    unsigned n_mems;
    ifc_stream *streams;
    unsigned n_streams;
    ifc_fifo *fifos;
    unsigned n_fifos;
    char **natives, **modules; /* composite interfaces: extra C sources and Verilog files */
    unsigned n_natives, n_modules;
} ifc_t;

/* Read and check PATH. On any problem prints "PATH:LINE: message" to stderr and returns
 * NULL: a malformed interface must stop the flow, not produce a wrong wrapper. */
ifc_t *ifc_read(const char *path);
void ifc_free(ifc_t *ifc);

/* Is input/output leaf NAME part of stream S's data (NAME is S_data or S_data_...)? */
bool ifc_is_stream_data(const ifc_stream *s, const char *name);

/* Does register leaf I of IFC hold a defined value in state image ST (it is reset, or its
 * guard is 1)? */
bool ifc_reg_defined(const ifc_t *ifc, unsigned i, const void *st);

/* Is entry E of FIFO F live (written since reset and not popped) in state image ST? */
bool ifc_fifo_entry_live(const ifc_t *ifc, const ifc_fifo *f, const void *st, unsigned e);

#endif
