/* hyp_test.c — the hypervisor's parts that need no running guest (hyp.h): the gate that
 * pauses the guest, the mapping list, the shadow check against a real device's dirty log,
 * and the timeline's JSON. The whole migration under running programs is tested by
 * host-driver/tests/migrate-run. PASS/FAIL lines; exit 1 on any failure. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hlsnic_vfio.h"
#include "hyp.h"

static int failures;
static void check(int ok, const char *name, const char *why) {
    if (ok) printf("PASS hyp/%s\n", name);
    else {
        printf("FAIL hyp/%s: %s\n", name, why);
        failures++;
    }
}

/* ---- the gate ---- */
static hyp_gate_t gate;
static volatile int passed;
static void *guest(void *arg) {
    (void)arg;
    hyp_gate_enter(&gate);
    hyp_gate_enter(&gate); /* nested: a command's MMIO inside a verb */
    __atomic_store_n(&passed, 1, __ATOMIC_SEQ_CST);
    hyp_gate_exit(&gate);
    hyp_gate_exit(&gate);
    return NULL;
}

static void *pauser(void *arg) {
    hyp_gate_pause(arg);
    return NULL;
}

static void test_gate(void) {
    hyp_gate_init(&gate);
    hyp_gate_pause(&gate);
    pthread_t t;
    pthread_create(&t, NULL, guest, NULL);
    usleep(200000);
    int blocked = !__atomic_load_n(&passed, __ATOMIC_SEQ_CST);
    hyp_gate_resume(&gate);
    pthread_join(t, NULL);
    check(blocked && passed, "gate: a guest thread waits while paused and passes after resume (nested enter)",
          blocked ? "it never passed" : "it passed a closed gate");
    /* pause waits for a thread inside */
    hyp_gate_enter(&gate);
    passed = 0;
    pthread_t p;
    pthread_create(&p, NULL, pauser, &gate);
    usleep(200000);
    int still_inside = gate.inside == 1 && gate.paused;
    hyp_gate_exit(&gate);
    pthread_join(p, NULL);
    check(still_inside && gate.inside == 0, "gate: pause returns only when no guest thread is inside", "pause did not wait");
    hyp_gate_resume(&gate);
}

/* ---- mappings and the shadow check on a real device (no wire, nothing the NIC writes) ---- */
static void test_shadow(void) {
    char err[256];
    hlsnic_dev_t *d = hlsnic_dev_open(&(hlsnic_dev_config_t){0}, err, sizeof err);
    if (!d) {
        check(0, "shadow: device opens", err);
        return;
    }
    hyp_ram_t ram;
    hyp_ram_init(&ram);
    uint8_t *mr = mmap(NULL, 4 * HYP_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint8_t *cq = mmap(NULL, HYP_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint8_t *sq = mmap(NULL, HYP_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    /* an MR that does not start on a page and overlaps a second one: merged into one range */
    int a = hyp_ram_map(&ram, &d, mr + 100, 2 * HYP_PAGE, HYP_RAM_SHARED);
    int b = hyp_ram_map(&ram, &d, mr + HYP_PAGE, 3 * HYP_PAGE, HYP_RAM_SHARED);
    int c = hyp_ram_map(&ram, &d, cq, HYP_PAGE, HYP_RAM_DEVICE_ONLY);
    int q = hyp_ram_map(&ram, &d, sq, HYP_PAGE, HYP_RAM_CPU);
    check(!a && !b && !c && !q && ram.n == 4, "ram: four mappings recorded", "map failed");
    hyp_ram_freeze(&ram);
    hyp_shadow_t s;
    uint64_t bytes = 0;
    int rc = hyp_shadow_build(&s, &ram, &bytes);
    int cq_alone = 0;
    for (unsigned i = 0; rc == 0 && i < s.n; i++) cq_alone += s.r[i].device_only && s.r[i].va == (uintptr_t)cq;
    check(!rc && s.n == 3 && bytes == 6 * HYP_PAGE && cq_alone == 1,
          "shadow: overlapping MRs merged page-aligned, the CQ ring a range of its own", "wrong ranges");
    cq[0x80] = 2; /* a CQE the device wrote before its log started: the copy must hold it */
    rc = hyp_shadow_log_start(&s, d);
    int whole = 0;
    for (unsigned i = 0; rc == 0 && i < s.n; i++) whole += !memcmp(s.r[i].copy, (const void *)s.r[i].va, s.r[i].len);
    check(!rc && whole == 3, "shadow: copied whole once the log runs (a write before the log's start is in the copy)",
          "a range's copy differs from memory");
    hyp_sync_t sy;
    char why[400];
    mr[3 * HYP_PAGE + 7] = 0x5a; /* the guest CPU writes its MR */
    int r1 = hyp_shadow_sync(&s, d, false, &sy, why, sizeof why);
    check(!rc && !r1 && sy.vcpu_bytes == HYP_PAGE && sy.unlogged == 0 && sy.logged_bytes == 0,
          "shadow: while the guest runs, an MR page changed and not logged is the CPU's write (copied)", why);
    cq[0x40] = 1; /* a CQ ring changed, not in the log: only the device writes there */
    r1 = hyp_shadow_sync(&s, d, false, &sy, why, sizeof why);
    char want[64];
    snprintf(want, sizeof want, "page 0x%lx (a CQ ring, first differing byte +0x40)", (unsigned long)(uintptr_t)cq);
    check(!r1 && sy.unlogged == 1 && strstr(why, want), "shadow: a CQ ring page changed and not logged is an error naming it", why);
    mr[HYP_PAGE] ^= 1; /* after the pause (strict): program memory changed unlogged is ambiguous */
    sq[0x100] = 7;     /* ... a work queue ring (the provider writes it only inside the gate) is an error */
    r1 = hyp_shadow_sync(&s, d, true, &sy, why, sizeof why);
    char want2[96];
    snprintf(want, sizeof want, "page 0x%lx (the program's memory, first differing byte +0x0)", (unsigned long)(uintptr_t)(mr + HYP_PAGE));
    snprintf(want2, sizeof want2, "page 0x%lx (a work queue ring, first differing byte +0x100)", (unsigned long)(uintptr_t)sq);
    check(!r1 && sy.unlogged == 2 && sy.ambiguous == 1 && strstr(why, want) && strstr(why, want2),
          "shadow: strict (guest paused): a ring page changed unlogged is an error, a program page ambiguous, both named", why);
    r1 = hyp_shadow_sync(&s, d, true, &sy, why, sizeof why);
    check(!r1 && sy.ambiguous == 0 && sy.unlogged == 2, "shadow: an ambiguous page is copied (not reported twice), errors stay", why);
    hlsnic_dma_logging_stop(d);
    hyp_shadow_free(&s);
    hyp_ram_thaw(&ram);
    /* a destination gets every recorded mapping; unmapping removes the record */
    hlsnic_dev_t *d2 = hlsnic_dev_open(&(hlsnic_dev_config_t){0}, err, sizeof err);
    int m2 = d2 ? hyp_ram_map_all(&ram, d2) : -1;
    int u = hyp_ram_unmap(&ram, &d, cq, HYP_PAGE);
    int u2 = hyp_ram_unmap(&ram, &d, cq, HYP_PAGE);
    check(!m2 && !u && u2 == -1 && errno == ENOENT && ram.n == 3, "ram: map_all on a destination; unmap removes the record (twice: ENOENT)",
          "map_all or unmap misbehaved");
    hlsnic_dev_close(d2);
    hlsnic_dev_close(d);
}

static void test_json(const char *dir) {
    hyp_migration_t m[2];
    memset(m, 0, sizeof m);
    for (unsigned i = 0; i < 2; i++) {
        m[i].n = i + 1;
        snprintf(m[i].trigger, sizeof m[i].trigger, "%s", i ? "control" : "2s");
        snprintf(m[i].result, sizeof m[i].result, "%s", i ? "failed: \"quoted\" \\ reason" : "ok");
        m[i].ph[m[i].nph++] = (hyp_phase_t){.name = "pause", .cyc0 = 10, .cyc1 = 20, .ms0 = 1, .ms1 = 2, .device_bytes = 512};
    }
    m[0].dest_cycle_base = 12345; /* the second failed before the source closed: 0 */
    char file[512], cmd[1200];
    snprintf(file, sizeof file, "%s/tl.json", dir);
    int rc = hyp_timeline_json(file, m, 2);
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))[\"migrations\"]; "
             "assert [x[\"ok\"] for x in t]==[True,False] and t[1][\"result\"]==\"failed: \\\"quoted\\\" \\\\ reason\" "
             "and t[0][\"phases\"][0][\"cycles\"]==[10,20] and [x[\"dest_cycle_base\"] for x in t]==[12345,0]' %s",
             file);
    check(!rc && system(cmd) == 0, "timeline: JSON parses, results escaped, dest_cycle_base per migration", "python3 rejected it");
    rc = hyp_timeline_json("/nonexistent-dir/tl.json", m, 1);
    check(rc == -ENOENT, "timeline: an unwritable file is an error", "no error");
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_gate();
    test_shadow();
    test_json(argc > 1 ? argv[1] : "/tmp");
    return failures ? 1 : 0;
}
