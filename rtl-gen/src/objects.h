/* objects.h — the memory the cycle function sees, modelled byte by byte.
 * Each byte of the in/out/state structs, of local arrays and of constant
 * tables holds either a constant or 1..8 bits of a signal. A load
 * concatenates bytes back into a value; a store replaces them. Because the
 * control flow is if-converted, a store under a condition becomes a mux with
 * the old bytes, and the final bytes of *state are the registers' next
 * values. This is how C's load-after-store semantics become wires. */
#ifndef RTLGEN_OBJECTS_H
#define RTLGEN_OBJECTS_H

#include "netlist.h"

typedef enum { BYTE_CONST, BYTE_SIG, BYTE_FORBIDDEN } byte_kind_t;

typedef struct {
    byte_kind_t kind;
    int sig;          /* BYTE_SIG: bits [bit, bit+nbits) of signal sig, upper bits zero */
    unsigned bit;
    unsigned char nbits;
    unsigned char cval; /* BYTE_CONST */
    unsigned char ro;   /* read-only (memory read data): a store here is an error */
} byte_t;

typedef struct {
    const char *name;
    unsigned size;
    byte_t *b;
    bool read_only;   /* constant tables and the input struct */
} obj_t;

void obj_init(obj_t *o, const char *name, unsigned size, bool read_only);
/* Bytes [off, off+size) become bits of signal sig (upper bits of the last byte zero). */
void obj_bind_signal(obj_t *o, unsigned off, unsigned size, const netlist_t *nl, int sig);
void obj_forbid(obj_t *o, unsigned off, unsigned size);
void obj_protect(obj_t *o, unsigned off, unsigned size);
bool obj_touches_protected(const obj_t *o, unsigned off, unsigned n);
/* Does [off, off+n) touch a forbidden (memory cell) byte? */
bool obj_touches_forbidden(const obj_t *o, unsigned off, unsigned n);

/* Read width bits stored at [off, off + ceil(width/8)). */
val_t obj_load(netlist_t *nl, const obj_t *o, unsigned off, unsigned width);
/* Write v into ceil(v.width/8) bytes at off (upper bits of the last byte zero). */
void obj_store(obj_t *o, unsigned off, val_t v);

#endif
