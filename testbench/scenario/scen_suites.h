/* scen_suites.h — the named scenarios (scen_suites.c, scen_faults.c) and their arguments. */
#ifndef SCEN_SUITES_H
#define SCEN_SUITES_H

#include "scen.h"

typedef struct {
    nic_tb_mode_t mode;
    const char *iface;
    const char *pcap;       /* one scenario: its wire pcap */
    const char *pcap_dir;   /* fault seeds: DIR/seed-N.pcap each */
    uint64_t seed, first, last;
    bool verbose;
} scen_args_t;

/* Run scenario `name` (or seeds first..last of "faults"): the number of failures, -1 when
 * there is no such scenario. */
int scen_dispatch(const char *name, const scen_args_t *a);
void scen_list(void);
bool scen_has_rtl(void);
int scen_write_expect(const char *pcap);
/* Options every scenario starts from (model, iface, seed, pcap). */
void scen_base_opts(const scen_args_t *a, scen_opts_t *o, const char *pcap);
/* After a run with a pcap: write its .expect file; a FAIL line if the pcap is unreadable. */
void scen_finish_pcap(const char *name, const char *pcap);

/* scen_faults.c */
int scen_faults(const scen_args_t *a);
int scen_loss100(const scen_args_t *a, bool backoff);
int scen_pause(const scen_args_t *a, bool backoff);

#endif
