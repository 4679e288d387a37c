/* pcap_test — write frames, read them back, check the file header and that tshark-like
 * readers see the right magic/link type; also reads a microsecond pcap. */
#include "../pcap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fails;
#define CHECK(c)                                                                 \
    do {                                                                         \
        if (!(c)) {                                                              \
            printf("FAIL pcap_test: %s (line %d)\n", #c, __LINE__);              \
            fails++;                                                             \
        }                                                                        \
    } while (0)

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "/tmp/pcap_test.pcap";
    uint8_t frame[3][1600];
    size_t lens[3] = {42, 1514, 60};
    for (int i = 0; i < 3; i++)
        for (size_t j = 0; j < lens[i]; j++) frame[i][j] = (uint8_t)(i * 31 + j);
    pcap_writer_t *w = pcap_open(path);
    CHECK(w != NULL);
    for (int i = 0; i < 3; i++) CHECK(pcap_write(w, frame[i], lens[i], 4000000123ull + 4 * i) == 0);
    CHECK(pcap_write(w, frame[0], 70000, 0) == -1); /* over the snaplen */
    CHECK(pcap_close(w) == 0);

    /* file header bytes */
    FILE *f = fopen(path, "rb");
    uint8_t h[24];
    CHECK(f && fread(h, 24, 1, f) == 1);
    if (f) fclose(f);
    CHECK(h[0] == 0x4d && h[1] == 0x3c && h[2] == 0xb2 && h[3] == 0xa1);
    CHECK(h[20] == 1 && h[21] == 0 && h[4] == 2 && h[6] == 4);

    pcap_reader_t *r = pcap_open_read(path);
    CHECK(r != NULL);
    uint8_t buf[2000];
    size_t len;
    uint64_t t;
    for (int i = 0; i < 3 && r; i++) {
        CHECK(pcap_next(r, buf, sizeof buf, &len, &t) == 1);
        CHECK(len == lens[i]);
        CHECK(memcmp(buf, frame[i], lens[i]) == 0);
        CHECK(t == 4000000123ull + 4 * i);
    }
    if (r) {
        CHECK(pcap_next(r, buf, sizeof buf, &len, &t) == 0);
        pcap_close_read(r);
    }
    /* a cut read: cap smaller than the frame */
    r = pcap_open_read(path);
    CHECK(r && pcap_next(r, buf, 10, &len, NULL) == 1 && len == 42);
    CHECK(r && pcap_next(r, buf, sizeof buf, &len, NULL) == 1 && len == 1514 && buf[5] == (uint8_t)(31 + 5));
    pcap_close_read(r);

    /* a microsecond, big-endian file */
    f = fopen(path, "wb");
    uint8_t be[24 + 16 + 4] = {0xa1, 0xb2, 0xc3, 0xd4, 0, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0,
                               0, 0, 0xff, 0xff, 0, 0, 0, 1,
                               0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 4, 1, 2, 3, 4};
    fwrite(be, sizeof be, 1, f);
    fclose(f);
    r = pcap_open_read(path);
    CHECK(r && pcap_next(r, buf, sizeof buf, &len, &t) == 1 && len == 4 && t == 2000003000ull &&
          buf[3] == 4);
    pcap_close_read(r);
    /* not a pcap */
    f = fopen(path, "wb");
    fwrite("hello world, not a pcap", 23, 1, f);
    fclose(f);
    CHECK(pcap_open_read(path) == NULL);

    printf("%s pcap_test\n", fails ? "FAIL" : "PASS");
    return fails ? 1 : 0;
}
