/* Where the program's own text starts on a line that a launcher, a container runtime or
 * a log collector prefixed: torchrun's "[rank3]: ", Open MPI's "[1,3]<stderr>: ", srun
 * -l's "3: ", pdsh's "worker-1: ", Docker Compose's "trainer-0  | ", kubectl's
 * "--timestamps" and "--prefix", GitHub Actions' and journald's clocks, Ray's
 * "(RayTrainWorker pid=4121, ip=...) ", dmesg's seconds since boot or (-T) its date,
 * Determined's trial logs (master/internal/sproto/task_actor.go "[%s] %s || %s", the clock
 * and the container's short id; master/pkg/model/experiment.go "[%s] [%s] %s|| %s %s", the
 * clock, "[container]", "[rank=N] ", then "|| " and the level), a runner's process and stream
 * (milabench's "opt-1_3b.0 [stderr] "), and colour escapes a paste
 * kept as text ("[36m", "^[[36m", "ESC[36m"). A
 * pattern anchored at a line's start (a bare "Killed", a traceback's first frame) was
 * written for the line as the program printed it; the scan tries it on this body when
 * the whole line turns it down (confirm.c).
 *
 * Only the prefixes' shapes are read, never their values: every digit run is one token
 * whatever its length, so that all lines of a template (and of a collapsed template,
 * where each run is one '0') have their body at the same place, as the line memo
 * assumes. Each prefix takes the one blank that separates it from the text, no more: an
 * indented frame keeps its indentation. */
#include <ctype.h>
#include <string.h>

#include "scan_int.h"

#define PREFIX_MAX 160 /* a prefix is within a line's first bytes */
#define PREFIXES 8     /* "[1;36m(EngineCore pid=9)[0;0m [36m(pid=12)[0m " is four */

static size_t digits(const char *s, size_t n, size_t i)
{
    while (i < n && isdigit((unsigned char)s[i])) i++;
    return i;
}

/* The one blank after a prefix that ends at i (or none: "[rank0]:Traceback"). */
static size_t blank(const char *s, size_t n, size_t i) { return i < n && s[i] == ' ' ? i + 1 : i; }

/* "2024-05-01T10:00:00.123456789Z", "2024-05-01 10:00:00,123", "+00:00" zones; 0: none. */
static size_t iso_time(const char *s, size_t n, size_t i)
{
    size_t k = digits(s, n, i);
    if (k == i || k >= n || s[k] != '-') return 0;
    size_t j = digits(s, n, k + 1);
    if (j == k + 1 || j >= n || s[j] != '-') return 0;
    k = digits(s, n, j + 1);
    if (k == j + 1 || k >= n || (s[k] != 'T' && s[k] != ' ')) return 0;
    for (int part = 0; part < 3; part++) { /* HH:MM:SS */
        j = digits(s, n, k + 1);
        if (j == k + 1) return 0;
        k = j;
        if (part < 2 && (k >= n || s[k] != ':')) return 0;
    }
    if (k < n && (s[k] == '.' || s[k] == ',')) k = digits(s, n, k + 1);
    if (k < n && s[k] == 'Z') return k + 1;
    if (k < n && (s[k] == '+' || s[k] == '-') && k + 1 < n && isdigit((unsigned char)s[k + 1])) {
        k = digits(s, n, k + 1);
        if (k < n && s[k] == ':') k = digits(s, n, k + 1);
    }
    return k;
}

/* syslog/journald: "Aug  2 20:05:52 host tag[447]: "; 0: none. */
static size_t syslog_time(const char *s, size_t n)
{
    static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    if (n < 16 || s[3] != ' ') return 0;
    int m = 0;
    while (m < 12 && memcmp(s, months + 3 * m, 3) != 0) m++;
    if (m == 12) return 0;
    size_t i = 4;
    while (i < n && s[i] == ' ') i++;
    size_t k = digits(s, n, i);
    if (k == i || k >= n || s[k] != ' ') return 0;
    i = k + 1;
    for (int part = 0; part < 3; part++) {
        k = digits(s, n, i);
        if (k == i) return 0;
        if (part < 2 && (k >= n || s[k] != ':')) return 0;
        i = part < 2 ? k + 1 : k;
    }
    if (i < n && s[i] == '.') i = digits(s, n, i + 1);
    if (i >= n || s[i] != ' ') return 0;
    size_t h = ++i;
    while (i < n && s[i] != ' ') i++; /* the host */
    if (i == h || i >= n) return 0;
    size_t t = ++i;
    while (i < n && i - t < 80 && s[i] != ' ' && s[i] != ':') i++; /* the tag, "kernel", "python[447]" */
    if (i == t || i + 1 >= n || s[i] != ':' || s[i + 1] != ' ') return 0;
    return i + 2;
}

/* A colour escape written out as text, as a paste keeps it where the ESC byte itself was
 * lost or shown: "[36m" (the byte dropped by a browser or an issue form), "^[[36m" (cat
 * -v, less), "ESC[36m" (less -U, editors), "\x1b[36m", "\033[36m", "\e[36m", "\u001b[36m"
 * (printed repr strings). Real ESC bytes never get here: the cutting pass removes them.
 * The offset past it, 0: none. */
static size_t sgr_text(const char *s, size_t n)
{
    static const char *const intro[] = {"^[", "ESC", "\\x1b", "\\x1B", "\\033", "\\e", "\\u001b", "\\u001B"};
    size_t i = 0;
    for (size_t k = 0; k < sizeof intro / sizeof *intro; k++) {
        size_t m = strlen(intro[k]);
        if (m < n && memcmp(s, intro[k], m) == 0 && s[m] == '[') {
            i = m;
            break;
        }
    }
    if (i >= n || s[i] != '[') return 0;
    size_t j = i + 1;
    while (j < n && j - i < 16 && (isdigit((unsigned char)s[j]) || s[j] == ';')) j++;
    return j < n && s[j] == 'm' && (j > i + 1 || i > 0) ? j + 1 : 0;
}

/* One prefix at the start of s[0..n): the offset past it and its blank, 0: none. */
static size_t one_prefix(const char *s, size_t n)
{
    if (n < 3) return 0;
    size_t k;
    if ((k = sgr_text(s, n)) != 0) return blank(s, n, k);
    if (s[0] == '[') {
        const char *e = memchr(s, ']', n < 64 ? n : 64);
        if (!e) return 0;
        size_t c = (size_t)(e - s);
        /* "[rank3]:", "[default3]:", "[Rank 3]:", "[2024-05-01 10:00:00]:" */
        if (c + 1 < n && s[c + 1] == ':') return blank(s, n, c + 2);
        /* Open MPI --tag-output: "[1,3]<stderr>:" */
        if (c + 1 < n && s[c + 1] == '<') {
            const char *g = memchr(s + c, '>', n - c < 16 ? n - c : 16);
            if (g && (size_t)(g - s) + 1 < n && g[1] == ':') return blank(s, n, (size_t)(g - s) + 2);
            return 0;
        }
        if (c + 1 >= n || s[c + 1] != ' ') return 0;
        /* dmesg: "[ 1234.567890] " */
        size_t i = 1;
        while (i < c && s[i] == ' ') i++;
        k = digits(s, n, i);
        if (k > i && k < c && s[k] == '.' && digits(s, n, k + 1) == c) return c + 2;
        /* dmesg -T: "[Wed Jan 27 23:04:35 2021] " */
        if (c >= 21 && isupper((unsigned char)s[1]) && islower((unsigned char)s[2]) && islower((unsigned char)s[3]) &&
            s[4] == ' ' && memchr(s, ':', c))
            return c + 2;
        /* a clock: "[2024-05-01 10:00:00,123] " */
        if (iso_time(s, c, 1) == c) return c + 2;
        /* kubectl logs --prefix: "[pod/trainer-0/pytorch] " */
        if (c > 5 && memcmp(s + 1, "pod/", 4) == 0) return c + 2;
        /* Determined: "[rank=3] ", and "[<container id>] " where its "[rank=" or "|| " follows */
        if (c > 6 && memcmp(s + 1, "rank=", 5) == 0 && digits(s, c, 6) == c) return c + 2;
        size_t h = 1;
        while (h < c && (isxdigit((unsigned char)s[h]) || s[h] == '-')) h++;
        if (h == c && c > 1 && c + 2 < n &&
            ((c + 7 < n && memcmp(s + c + 2, "[rank=", 6) == 0) || (c + 4 < n && memcmp(s + c + 2, "|| ", 3) == 0)))
            return c + 2;
        return 0;
    }
    /* Determined's separator after its clock and ids: "|| " */
    if (s[0] == '|' && s[1] == '|' && s[2] == ' ') return 3;
    if (isdigit((unsigned char)s[0])) {
        if ((k = iso_time(s, n, 0)) != 0) return blank(s, n, k);
        /* srun -l: "3: " */
        k = digits(s, n, 0);
        if (k + 1 < n && s[k] == ':' && s[k + 1] == ' ') return k + 2;
    }
    if (s[0] == '(') { /* Ray: "(RayTrainWorker pid=4121, ip=10.0.0.4) ", "(pid=4121) " */
        const char *e = memchr(s, ')', n < PREFIX_MAX ? n : PREFIX_MAX);
        if (!e) return 0;
        size_t c = (size_t)(e - s) + 1;
        c += sgr_text(s + c, n - c); /* "(pid=4121)[0m " where the colour's ESC was lost */
        if (c >= n || s[c] != ' ') return 0;
        for (const char *p = s; p + 4 < e; p++)
            if (memcmp(p, "pid=", 4) == 0 && isdigit((unsigned char)p[4])) return c + 1;
        return 0;
    }
    if ((k = syslog_time(s, n)) != 0) return k;
    /* pdsh (DeepSpeed's multi-node launcher) and clush: "worker-1: ", "10.10.23.10: ", a host
     * name with a digit and a letter in it, or an IPv4 address (a word such as "Epoch: " or
     * "RuntimeError: " is text, and so is a number, "12.5: ") */
    int digit = 0, alpha = 0, dots = 0;
    for (k = 0; k < n && k < 64 && (isalnum((unsigned char)s[k]) || s[k] == '-' || s[k] == '.'); k++) {
        digit |= isdigit((unsigned char)s[k]) != 0;
        alpha |= isalpha((unsigned char)s[k]) != 0;
        dots += s[k] == '.';
    }
    if (digit && (alpha || dots == 3) && k + 1 < n && s[k] == ':' && s[k + 1] == ' ') return k + 2;
    /* Docker Compose: "trainer-0  | " */
    k = 0;
    while (k < n && k < 64 && (isalnum((unsigned char)s[k]) || s[k] == '_' || s[k] == '-' || s[k] == '.')) k++;
    if (k == 0 || k >= n || s[k] != ' ') return 0;
    /* a runner naming the process and its stream: milabench's "opt-1_3b.0 [stderr] " */
    if (k + 10 <= n && (memcmp(s + k, " [stderr] ", 10) == 0 || memcmp(s + k, " [stdout] ", 10) == 0))
        return k + 10;
    while (k < n && s[k] == ' ') k++;
    if (k + 1 < n && s[k] == '|' && s[k + 1] == ' ') return k + 2;
    /* Determined: "8de2ca81 || " (the container's short id, 8 hex digits; in a collapsed
     * template its digit runs are one '0' each, so only "hex, at least 4, then one blank") */
    if (k >= 5 && k + 2 < n && s[k - 2] != ' ' && s[k] == '|' && s[k + 1] == '|' && s[k + 2] == ' ') {
        size_t h = 0;
        while (h < k - 1 && isxdigit((unsigned char)s[h])) h++;
        if (h == k - 1) return k + 3;
    }
    return 0;
}

size_t ldxi_sgr_text(const char *text, size_t len) { return sgr_text(text, len); }

size_t ldxi_line_body(const char *text, size_t len)
{
    size_t n = len < PREFIX_MAX ? len : PREFIX_MAX, at = 0;
    for (int i = 0; i < PREFIXES; i++) {
        size_t k = one_prefix(text + at, n - at);
        if (!k) break;
        at += k;
    }
    return at;
}
