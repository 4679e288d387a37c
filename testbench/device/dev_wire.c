/* dev_wire.c — the Ethernet port handed from one device to another, or attached to a device
 * opened without one (hlsnic_dev.h; docs/device.md, "Moving the port").
 *
 * What a live migration needs at switch-over: the destination is loaded while the source
 * still owns the wire, and only then takes it. The socket itself moves, not a new one bound
 * to the same address: the frames queued in it are the destination's to receive, and there is
 * no moment at which the address is unbound (a peer's frame sent then would be refused). */
#define _GNU_SOURCE
#include "dev_internal.h"

#include <stdio.h>
#include <unistd.h>

/* The clock thread of d dozes on the port's socket: tell it to look again. */
static void wake(hlsnic_dev_t *d) {
    uint64_t one = 1;
    ssize_t w = write(d->wake_fd, &one, sizeof one);
    (void)w;
}

int hlsnic_dev_wire_move(hlsnic_dev_t *from, hlsnic_dev_t *to, char *err, size_t errlen) {
    if (!from || !to || from == to) {
        snprintf(err, errlen, "wire move: %s", from == to && from ? "the source and the destination are one device" : "no device");
        return -1;
    }
    /* both locks, always in the same order (by address): two moves never wait on each other */
    hlsnic_dev_t *first = from < to ? from : to, *second = from < to ? to : from;
    dev_lock(first);
    dev_lock(second);
    int rc = -1;
    if (from->port.fd < 0) snprintf(err, errlen, "wire move: the source device has no port");
    else if (to->port.fd >= 0) snprintf(err, errlen, "wire move: the destination device has a port already");
    else {
        dev_port_move(&from->port, &to->port);
        rc = 0;
    }
    pthread_mutex_unlock(&second->mu);
    pthread_mutex_unlock(&first->mu);
    if (!rc) wake(to);
    return rc;
}

int hlsnic_dev_wire_attach(hlsnic_dev_t *d, const char *wire, char *err, size_t errlen) {
    if (!d || !wire) {
        snprintf(err, errlen, "wire attach: %s", d ? "no wire given" : "no device");
        return -1;
    }
    dev_port_t p;
    if (dev_port_open(&p, wire, err, errlen)) return -1; /* bound outside the lock: a name lookup may take a while */
    dev_lock(d);
    int rc = -1;
    if (d->port.fd >= 0) snprintf(err, errlen, "wire attach %s: the device has a port already", wire);
    else {
        dev_port_move(&p, &d->port);
        rc = 0;
    }
    pthread_mutex_unlock(&d->mu);
    if (rc) dev_port_close(&p);
    else wake(d);
    return rc;
}
