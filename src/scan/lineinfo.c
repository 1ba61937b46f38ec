/* The structure of a log line beyond its text: when it was written, by which host, at
 * which training step. Each framework prefixes lines its own way; these readers look
 * only at the first bytes of a line, where prefixes are, and never fail: an unknown
 * shape just leaves the field empty. */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "scan_int.h"

#define TS_WINDOW 64
#define STEP_WINDOW 256

static int num(const char *s, size_t n, size_t *i, int digits, long *out)
{
    long v = 0;
    int k = 0;
    while (*i < n && k < digits && isdigit((unsigned char)s[*i])) {
        v = v * 10 + (s[*i] - '0');
        (*i)++;
        k++;
    }
    *out = v;
    return k == digits;
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar. */
static long days_from_civil(long y, long m, long d)
{
    y -= m <= 2;
    long era = (y >= 0 ? y : y - 399) / 400;
    long yoe = y - era * 400;
    long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* "HH:MM:SS" then an optional ".123" or ",123" fraction; returns seconds or -1. */
static double clock_at(const char *s, size_t n, size_t *i)
{
    long h, m, sec;
    if (!num(s, n, i, 2, &h) || *i >= n || s[*i] != ':') return -1;
    (*i)++;
    if (!num(s, n, i, 2, &m) || *i >= n || s[*i] != ':') return -1;
    (*i)++;
    if (!num(s, n, i, 2, &sec)) return -1;
    if (h > 23 || m > 59 || sec > 60) return -1;
    double t = (double)(h * 3600 + m * 60 + sec);
    if (*i < n && (s[*i] == '.' || s[*i] == ',')) {
        (*i)++;
        double scale = 0.1;
        while (*i < n && isdigit((unsigned char)s[*i])) {
            t += (s[*i] - '0') * scale;
            scale /= 10;
            (*i)++;
        }
    }
    return t;
}

static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

static void parse_time(const char *s, size_t n, ldxi_line_info *li)
{
    size_t w = n < TS_WINDOW ? n : TS_WINDOW;
    /* dmesg: "[12345.678901] ..." seconds since boot */
    if (w > 3 && s[0] == '[') {
        size_t i = 1;
        while (i < w && s[i] == ' ') i++;
        size_t start = i;
        long secs;
        while (i < w && isdigit((unsigned char)s[i])) i++;
        if (i > start && i < w && s[i] == '.') {
            size_t j = start;
            num(s, n, &j, (int)(i - start), &secs);
            i++;
            double frac = 0, scale = 0.1;
            size_t fs = i;
            while (i < w && isdigit((unsigned char)s[i])) {
                frac += (s[i] - '0') * scale;
                scale /= 10;
                i++;
            }
            if (i > fs && i < w && s[i] == ']') {
                li->ts = (double)secs + frac;
                li->ts_kind = LDX_TS_BOOT;
                return;
            }
        }
    }
    /* glog: "W1129 18:44:19.333000 ..." (no year) */
    if (w > 20 && strchr("IWEF", s[0]) && isdigit((unsigned char)s[1])) {
        size_t i = 1;
        long mo, d;
        if (num(s, n, &i, 2, &mo) && num(s, n, &i, 2, &d) && i < w && s[i] == ' ' && mo >= 1 &&
            mo <= 12 && d >= 1 && d <= 31) {
            i++;
            double c = clock_at(s, n, &i);
            if (c >= 0) {
                li->ts = (double)days_from_civil(2001, mo, d) * 86400.0 + c;
                li->ts_kind = LDX_TS_NOYEAR;
                return;
            }
        }
    }
    /* syslog: "Nov 29 18:44:19 host kernel: ..." (no year) */
    if (w > 16) {
        for (int m = 0; m < 12; m++) {
            if (memcmp(s, months[m], 3) != 0 || s[3] != ' ') continue;
            size_t i = 4;
            if (s[i] == ' ') i++;
            long d = 0;
            while (i < w && isdigit((unsigned char)s[i])) d = d * 10 + (s[i++] - '0');
            if (d < 1 || d > 31 || i >= w || s[i] != ' ') break;
            i++;
            double c = clock_at(s, n, &i);
            if (c < 0) break;
            li->ts = (double)days_from_civil(2001, m + 1, d) * 86400.0 + c;
            li->ts_kind = LDX_TS_NOYEAR;
            /* the host follows the clock */
            if (i < n && s[i] == ' ') {
                size_t hs = ++i;
                while (i < n && i - hs < sizeof li->host - 1 && !isspace((unsigned char)s[i])) i++;
                if (i > hs && i < n && s[i] == ' ') {
                    memcpy(li->host, s + hs, i - hs);
                    li->host[i - hs] = '\0';
                }
            }
            return;
        }
    }
    /* ISO 8601 / Python logging / Slurm: "2026-11-29[T ]18:44:19[.,]123" anywhere early */
    for (size_t i = 0; i + 19 <= w; i++) {
        if (!isdigit((unsigned char)s[i]) || (i > 0 && isdigit((unsigned char)s[i - 1]))) continue;
        size_t k = i;
        long y, mo, d;
        if (!num(s, n, &k, 4, &y) || k >= n || s[k] != '-') continue;
        k++;
        if (!num(s, n, &k, 2, &mo) || k >= n || s[k] != '-') continue;
        k++;
        if (!num(s, n, &k, 2, &d) || k >= n || (s[k] != 'T' && s[k] != ' ')) continue;
        k++;
        if (y < 1990 || y > 2200 || mo < 1 || mo > 12 || d < 1 || d > 31) continue;
        double c = clock_at(s, n, &k);
        if (c < 0) continue;
        li->ts = (double)days_from_civil(y, mo, d) * 86400.0 + c;
        li->ts_kind = LDX_TS_WALL;
        return;
    }
}

/* NCCL: "host:pid:tid [rank] NCCL ..." */
static void parse_host(const char *s, size_t n, ldxi_line_info *li)
{
    if (li->host[0]) return;
    size_t w = n < 200 ? n : 200;
    const char *nccl = NULL;
    for (size_t i = 0; i + 6 < w; i++)
        if (s[i] == ']' && memcmp(s + i + 1, " NCCL ", 6) == 0) {
            nccl = s + i;
            break;
        }
    if (!nccl) return;
    /* walk back over "[N] " and ":tid:pid" to the host */
    const char *p = nccl;
    while (p > s && *p != '[') p--;
    if (p == s || p[-1] != ' ') return;
    const char *end = p - 1; /* the space */
    const char *c1 = end;
    int colons = 0;
    while (c1 > s && colons < 2) {
        c1--;
        if (*c1 == ':') colons++;
        else if (!isdigit((unsigned char)*c1)) break;
    }
    if (colons != 2 || *c1 != ':') return;
    const char *hs = c1;
    while (hs > s && !isspace((unsigned char)hs[-1]) && hs[-1] != ']' && hs[-1] != ':') hs--;
    size_t hl = (size_t)(c1 - hs);
    if (hl == 0 || hl >= sizeof li->host) return;
    memcpy(li->host, hs, hl);
    li->host[hl] = '\0';
}

/* "step 10", "iteration 100/", "global_step=5", "Iter 3", "'step': 7" */
static void parse_step(const char *s, size_t n, ldxi_line_info *li)
{
    size_t w = n < STEP_WINDOW ? n : STEP_WINDOW;
    static const char *const words[] = {"global_step", "iteration", "step", "iter"};
    for (size_t i = 0; i + 4 <= w; i++) {
        char c = (char)(s[i] | 0x20);
        if (c != 'g' && c != 'i' && c != 's') continue;
        if (i > 0 && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_')) continue;
        for (size_t k = 0; k < sizeof words / sizeof words[0]; k++) {
            size_t wl = strlen(words[k]);
            if (i + wl > w || strncasecmp(s + i, words[k], wl) != 0) continue;
            size_t j = i + wl;
            if (j < w && (isalpha((unsigned char)s[j]) || s[j] == '_')) continue;
            while (j < w && (s[j] == ' ' || s[j] == ':' || s[j] == '=' || s[j] == '#' ||
                             s[j] == '\'' || s[j] == '"'))
                j++;
            if (j >= w || !isdigit((unsigned char)s[j])) continue;
            long v = 0;
            while (j < w && isdigit((unsigned char)s[j]) && v < 1000000000L) v = v * 10 + (s[j++] - '0');
            if (j < w && s[j] == '.' && j + 1 < w && isdigit((unsigned char)s[j + 1])) continue;
            li->step = v;
            return;
        }
    }
}

long ldxi_line_step(const char *text, size_t len)
{
    ldxi_line_info li;
    li.step = -1;
    parse_step(text, len, &li);
    return li.step;
}

void ldxi_line_parse_ranked(const char *text, size_t len, int rank, ldxi_line_info *li)
{
    memset(li, 0, sizeof(*li));
    li->step = -1;
    li->rank = rank;
    parse_time(text, len, li);
    parse_host(text, len, li);
    parse_step(text, len, li);
}

void ldxi_line_parse(const char *text, size_t len, ldxi_line_info *li)
{
    ldxi_line_parse_ranked(text, len, ldx_line_rank(text, len), li);
}
