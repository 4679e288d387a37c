/* host_io.c — the native test build's output: the C library's write. */
#include <unistd.h>

#include "test_util.h"

void t_out(const char *s, unsigned len)
{
    while (len) {
        ssize_t n = write(1, s, len);
        if (n <= 0) return;
        s += n, len -= (unsigned)n;
    }
}

int main(int argc, char **argv)
{
    return mig_test_main(argc > 1 ? argv[1] : "native");
}
