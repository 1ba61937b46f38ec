/* Telling inputs apart by their first bytes, and naming archive members. Names lie
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
    return LDX_KIND_PLAIN;
}

const char *ldx_input_kind_name(ldx_input_kind k)
{
    static const char *const names[] = {"plain", "gzip", "zstd", "xz", "bzip2", "zip", "tar"};
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
