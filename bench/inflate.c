/* inflate: the "bare zlib inflate loop" the gzip target is measured against.
 *
 *   inflate < log.gz      decompresses standard input with zlib and throws the bytes away
 *
 * It does nothing a log reader could skip (256 KiB buffers, gzip members one after
 * another, no checks beyond zlib's own), so logdx reading a .gz can be compared with the
 * fastest a zlib-based reader can go on this machine. It prints the uncompressed size.
 */
#include <stdio.h>
#include <string.h>
#include <zlib.h>

int main(void)
{
    static unsigned char in[1 << 18], out[1 << 18];
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 32) != Z_OK) return 1; /* 15 + 32: gzip or zlib header */
    unsigned long long total = 0;
    int rc = Z_OK;
    for (;;) {
        if (z.avail_in == 0) {
            z.avail_in = (uInt)fread(in, 1, sizeof in, stdin);
            z.next_in = in;
            if (z.avail_in == 0) break;
        }
        z.next_out = out;
        z.avail_out = sizeof out;
        rc = inflate(&z, Z_NO_FLUSH);
        total += sizeof out - z.avail_out;
        if (rc == Z_STREAM_END) {
            rc = inflateReset(&z); /* a gzip file may hold several members */
            if (rc != Z_OK) break;
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            fprintf(stderr, "inflate: %s\n", z.msg ? z.msg : "corrupt input");
            return 1;
        }
    }
    inflateEnd(&z);
    printf("%llu\n", total);
    return 0;
}
