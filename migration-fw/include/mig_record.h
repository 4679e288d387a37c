/* mig_record.h — moving architectural fields between hardware row words and packed image
 * records, driven by the descriptor tables of mig_layout.h. */
#ifndef MIG_RECORD_H
#define MIG_RECORD_H

#include <stdint.h>

#include "mig_fw.h"

/* bits [lo, lo+width) of little-endian 32-bit words / of a byte record (width <= 64) */
uint64_t mig_words_get(const uint32_t *w, unsigned lo, unsigned width);
void mig_words_put(uint32_t *w, unsigned lo, unsigned width, uint64_t v);
uint64_t mig_bytes_get(const uint8_t *p, unsigned lo, unsigned width);
void mig_bytes_put(uint8_t *p, unsigned lo, unsigned width, uint64_t v);

/* the field of a row, as the hardware holds it */
uint64_t mig_row_field(unsigned table, const mig_row_t row, unsigned field);
void mig_row_set_field(unsigned table, mig_row_t row, unsigned field, uint64_t v);
/* the field of a record, shift restored (the value the hardware holds) */
uint64_t mig_record_field(unsigned table, const uint8_t *rec, unsigned field);
void mig_record_set_field(unsigned table, uint8_t *rec, unsigned field, uint64_t v);

/* row -> record; a field that does not fit its image width, or has low bits set that the
 * image drops, fails with MIG_E_FIT naming the field (value[0]) and the row (value[1]) */
int mig_record_pack(const struct mig_hal *hal, unsigned table, const mig_row_t row,
                    unsigned row_index, uint8_t *rec, struct mig_resp *resp);
/* record -> row (fields the layout does not name are zero) */
/* Row bits the image does not store but a load must write, computed from the stored fields
 * (mig_layout.h, "Derived, not stored"): the responder's RD_PSN of a READ being answered, the
 * completer's RD_START, CUR_EXP and RETRYING, the send position of a QP with nothing
 * outstanding. unpack calls it. */
void mig_record_derive(unsigned table, mig_row_t row);
/* log2 of the QP's path MTU (its PMTU attribute, as the datapath reads it) */
unsigned mig_mtu_shift(const mig_row_t row);
void mig_record_unpack(const struct mig_hal *hal, unsigned table, const uint8_t *rec,
                       mig_row_t row);

const char *mig_field_name(unsigned table, unsigned field);

#endif /* MIG_RECORD_H */
