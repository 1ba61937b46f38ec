/* Telling inputs apart by their first bytes (compressed, archive, binary), and naming archive members. Names lie
 * (a ".log" that is gzip, a ".gz" that was already unpacked), content does not. */
#include <string.h>

#include "logdx/input.h"
#include "../core/util.h"

ldx_input_kind ldx_input_detect(const void *head, size_t n)
{
    const unsigned char *p = head;
    if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b) return LDX_KIND_GZIP;
    if (n >= 4 && !memcmp(p, "\x28\xb5\x2f\xfd", 4)) return LDX_KIND_ZSTD;
    if (n >= 6 && !memcmp(p, "\xfd" "7zXZ\0", 6)) return LDX_KIND_XZ;
    /* "BZh" alone is a plausible start of a text line; the block size digit is not. */
    if (n >= 4 && !memcmp(p, "BZh", 3) && p[3] >= '1' && p[3] <= '9') return LDX_KIND_BZIP2;
    if (n >= 4 && (!memcmp(p, "PK\3\4", 4) || !memcmp(p, "PK\5\6", 4))) return LDX_KIND_ZIP;
    /* POSIX ("ustar\0") and GNU ("ustar  \0") tar both put "ustar" here. */
    if (n >= 262 && !memcmp(p + 257, "ustar", 5)) return LDX_KIND_TAR;
    if (n >= 2 && p[0] == 0xff && p[1] == 0xfe) return LDX_KIND_UTF16LE;
    if (n >= 2 && p[0] == 0xfe && p[1] == 0xff) return LDX_KIND_UTF16BE;
    /* UTF-16 without its byte order mark: nine units in ten or more are ASCII text with a
     * NUL high byte (a log in another script has its ASCII timestamps, paths and numbers) */
    if (n >= 16) {
        size_t units = (n < 512 ? n : 512) / 2, le = 0, be = 0;
        for (size_t k = 0; k < units; k++) {
            unsigned char a = p[2 * k], b = p[2 * k + 1];
            le += b == 0 && ((a >= 0x20 && a < 0x7f) || a == '\t' || a == '\n' || a == '\r');
            be += a == 0 && ((b >= 0x20 && b < 0x7f) || b == '\t' || b == '\n' || b == '\r');
        }
        if (le * 10 >= units * 9) return LDX_KIND_UTF16LE;
        if (be * 10 >= units * 9) return LDX_KIND_UTF16BE;
    }
    return LDX_KIND_PLAIN;
}

const char *ldx_input_kind_name(ldx_input_kind k)
{
    static const char *const names[] = {"plain", "gzip", "zstd", "xz", "bzip2", "zip", "tar",
                                        "utf-16le", "utf-16be"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

char *ldx_input_member_name(const char *container, const char *member)
{
    if (!member) member = "";
    for (;;) {
        if (member[0] == '/') member++;
        else if (member[0] == '.' && member[1] == '/') member += 2;
        else break;
    }
    return ldxi_asprintf("%s:%s", container, member);
}

bool ldx_input_looks_binary(const void *head, size_t n)
{
    if (n == 0 || ldx_input_detect(head, n) != LDX_KIND_PLAIN) return false;
    const unsigned char *p = head;
    size_t odd = 0;
    for (size_t i = 0; i < n;) {
        size_t k = ldxi_utf8_seq(p + i, n - i);
        if (k == 0) {
            odd++;
            i++;
            continue;
        }
        if (k == 1)
            odd += (p[i] < 0x20 && p[i] != '\t' && p[i] != '\n' && p[i] != '\r' && p[i] != 0x1b) ||
                   p[i] == 0x7f;
        i += k;
    }
    return odd * 10 > n * 3;
}
