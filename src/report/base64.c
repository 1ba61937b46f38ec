/* Base64 (RFC 4648) for "path_bytes": a file name's own bytes, written by json.c where
 * "path" had to escape some, and read back by read.c when shards are merged. */
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

static const char b64_tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *ldxi_base64_encode(const char *raw)
{
    const unsigned char *p = (const unsigned char *)raw;
    size_t n = strlen(raw), o = 0;
    char *out = malloc((n + 2) / 3 * 4 + 1);
    if (!out) return NULL;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        out[o++] = b64_tab[v >> 18 & 63];
        out[o++] = b64_tab[v >> 12 & 63];
        out[o++] = i + 1 < n ? b64_tab[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? b64_tab[v & 63] : '=';
    }
    out[o] = '\0';
    return out;
}

char *ldxi_base64_decode(const char *s)
{
    size_t n = strlen(s), o = 0;
    char *out = malloc(n / 4 * 3 + 3);
    if (!out) return NULL;
    unsigned v = 0;
    int bits = 0;
    for (size_t i = 0; i < n && s[i] != '='; i++) {
        const char *p = strchr(b64_tab, s[i]);
        if (!p) continue; /* not ours (a line break, say): skipped, as RFC 4648 allows */
        v = v << 6 | (unsigned)(p - b64_tab);
        if ((bits += 6) >= 8) {
            bits -= 8;
            out[o++] = (char)(v >> bits & 0xff);
        }
    }
    out[o] = '\0';
    return out;
}
