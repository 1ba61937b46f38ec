/* Line text handling: ANSI escapes and typographic quotes before matching, and safe
 * display text for evidence (reports must stay valid UTF-8 and one line per evidence
 * whatever the log contained). */
#include <stdlib.h>
#include <string.h>

#include "logdx/scan.h"
#include "scan_int.h"
#include "../core/util.h"

size_t ldx_strip_ansi(const char *src, size_t len, char *dst)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)src[i];
        if (c != 0x1b) {
            dst[o++] = (char)c;
            continue;
        }
        if (i + 1 >= len) break;
        unsigned char k = (unsigned char)src[i + 1];
        if (k == '[') { /* CSI: parameters and intermediates, then a final byte */
            size_t j = i + 2;
            while (j < len && ((unsigned char)src[j] < 0x40 || (unsigned char)src[j] > 0x7e)) j++;
            i = j;
        } else if (k == ']') { /* OSC: ends with BEL or ESC \ */
            size_t j = i + 2;
            while (j < len && src[j] != '\a' && !(src[j] == 0x1b && j + 1 < len && src[j + 1] == '\\'))
                j++;
            i = (j < len && src[j] == 0x1b) ? j + 1 : j;
        } else {
            /* other escapes: intermediates (0x20-0x2f), then one final byte: ESC ( B */
            size_t j = i + 1;
            while (j < len && (unsigned char)src[j] >= 0x20 && (unsigned char)src[j] <= 0x2f) j++;
            i = j;
        }
    }
    return o;
}

/* The ASCII quote a typographic one at p (E2 80 xx) stands for, 0 for none. */
static char typo_quote(const unsigned char *p)
{
    switch (p[2]) {
    case 0x98: case 0x99: case 0x9a: case 0x9b: case 0xb2: return '\'';
    case 0x9c: case 0x9d: case 0x9e: case 0x9f: case 0xb3: return '"';
    default: return 0;
    }
}

bool ldxi_line_unclean(const char *src, size_t len)
{
    return memchr(src, 0x1b, len) || ldxi_typo_quotes(src, len);
}

bool ldxi_typo_quotes(const char *src, size_t len)
{
    const unsigned char *p = (const unsigned char *)src, *end = p + len;
    while ((p = memchr(p, 0xe2, (size_t)(end - p))) && end - p >= 3) {
        if (p[1] == 0x80 && typo_quote(p)) return true;
        p++;
    }
    return false;
}

size_t ldxi_clean_line(const char *src, size_t len, char *dst)
{
    if (memchr(src, 0x1b, len)) {
        len = ldx_strip_ansi(src, len, dst);
        src = dst;
    }
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        const unsigned char *p = (const unsigned char *)src + i;
        char q;
        if (*p == 0xe2 && len - i >= 3 && p[1] == 0x80 && (q = typo_quote(p))) {
            dst[o++] = q;
            i += 2;
        } else {
            dst[o++] = (char)*p;
        }
    }
    return o;
}

/* A log kept as JSON, one object a line, holds the line the program printed in one string
 * field: Docker's json-file driver and the shippers that keep its shape (Fluent Bit, Vector)
 * {"log":"  File \"train.py\", line 3, in <module>\n","stream":"stderr","time":"..."},
 * journald's export (journalctl -o json) "MESSAGE", Google Cloud Logging's "textPayload",
 * CloudWatch's and most structured loggers' "message" or "msg", loguru's serialized "text".
 * The scan reads that string: unescaped in place and moved to the line's start (never longer
 * than its escaped form), its final line end dropped, a line end or carriage return inside it
 * (a record a shipper joined) read as a space, the object's other fields dropped. Only a field
 * of the object itself counts, never one nested inside another value.
 * A structured logger's message is often a short event name whose detail is a field of its own:
 * zap's and logr's "error" (controller-runtime operators: KubeRay, Kubeflow's training operator,
 * JobSet), logrus' and slog's "error" or "err", KubeRay's "reason" ('"msg":"reconcilePods", ...
 * "reason":"... Reason:OOMKilled ..."'). The first such field of the object follows the message,
 * after a space. */
typedef struct {
    const char *name;
    size_t len;
} field_name;

static const field_name log_fields[] = {
    {"log", 3}, {"message", 7}, {"msg", 3}, {"MESSAGE", 7}, {"textPayload", 11}, {"text", 4},
};
static const field_name detail_fields[] = {
    {"error", 5}, {"err", 3}, {"reason", 6},
};
/* at most this much of a detail field that stands before the message is read */
#define DETAIL_HELD 4096

static bool named(const field_name *f, size_t nf, const char *k, size_t n)
{
    for (size_t i = 0; i < nf; i++)
        if (n == f[i].len && memcmp(k, f[i].name, n) == 0) return true;
    return false;
}

static bool is_log_field(const char *k, size_t n)
{
    return named(log_fields, sizeof log_fields / sizeof *log_fields, k, n);
}

static bool is_detail_field(const char *k, size_t n)
{
    return named(detail_fields, sizeof detail_fields / sizeof *detail_fields, k, n);
}

/* the end of the JSON string whose opening quote is at s (the closing quote, or end) */
static const char *string_end(const char *s, const char *end)
{
    for (s++; s < end && *s != '"'; s++)
        if (*s == '\\') s++;
    return s < end ? s : end;
}

static const char *skip_space(const char *s, const char *end)
{
    while (s < end && (*s == ' ' || *s == '\t')) s++;
    return s;
}

/* the offset of the first byte (after its quote) of the string value of the object's first
 * field that `want` names, or 0: none, or no JSON object */
static size_t json_field_at(const char *p, size_t n, bool (*want)(const char *, size_t))
{
    const char *end = p + n, *s = skip_space(p + 1, end);
    if (n < 8 || *p != '{' || s >= end || *s != '"') return 0; /* {'loss': ...} is Python's */
    int depth = 1;
    bool key = true; /* at depth 1: the next string is a field's name */
    while (s < end && depth > 0) {
        char c = *s;
        if (c == '"') {
            const char *q = string_end(s, end);
            if (q >= end) return 0;
            if (depth == 1 && key) {
                const char *v = skip_space(q + 1, end);
                if (v < end && *v == ':') v = skip_space(v + 1, end);
                if (v < end && *v == '"' && want(s + 1, (size_t)(q - s - 1)))
                    return (size_t)(v + 1 - p);
                key = false;
            }
            s = q + 1;
            continue;
        }
        if (c == '{' || c == '[') depth++;
        else if (c == '}' || c == ']') depth--;
        else if (c == ',' && depth == 1) key = true;
        s++;
    }
    return 0;
}

size_t ldxi_json_log(const char *p, size_t n)
{
    return json_field_at(p, n, is_log_field);
}

static int hex4(const char *p, const char *end)
{
    if (end - p < 4) return -1;
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

/* The JSON string at s (after its quote) unescaped to out, which never runs ahead of s when
 * both lie in one buffer: its length, without the line ends it ends in. */
static size_t unescape_to(char *p, const char *s, const char *end)
{
    size_t o = 0, kept = 0; /* kept: the text before the line ends the string ends in */
    while (s < end && *s != '"') {
        if (*s != '\\' || end - s < 2) {
            p[o++] = *s++;
            kept = o;
            continue;
        }
        char e = s[1];
        s += 2;
        if (e == 'n' || e == 'r') {
            p[o++] = ' ';
            continue;
        }
        if (e == 't') {
            p[o++] = '\t';
        } else if (e == 'u') {
            int u = hex4(s, end);
            unsigned long c = u < 0 ? '?' : (unsigned long)u;
            if (u >= 0) s += 4;
            /* a surrogate pair is one character; one alone is none */
            if (c >= 0xd800 && c < 0xdc00 && end - s >= 6 && s[0] == '\\' && s[1] == 'u') {
                int lo = hex4(s + 2, end);
                if (lo >= 0xdc00 && lo < 0xe000) {
                    c = 0x10000 + ((c - 0xd800) << 10) + ((unsigned long)lo - 0xdc00);
                    s += 6;
                }
            }
            if (c >= 0xd800 && c < 0xe000) c = '?';
            /* 6 escaped bytes (12 for a pair) become at most 3 (4): o stays behind s */
            o += ldxi_utf8_put((unsigned char *)p + o, (uint32_t)c);
        } else if (e != 'b' && e != 'f') {
            p[o++] = e; /* \" \\ \/ and anything else as itself */
        }
        kept = o;
    }
    return kept;
}

size_t ldxi_unjson(char *p, size_t n, size_t at)
{
    const char *end = p + n;
    size_t d = json_field_at(p, n, is_detail_field);
    char held[DETAIL_HELD];
    size_t nheld = 0;
    if (d && d < at) { /* the detail stands first (logrus sorts its keys): kept aside */
        const char *q = string_end(p + d - 1, end);
        nheld = (size_t)(q - (p + d)) < sizeof held ? (size_t)(q - (p + d)) : sizeof held;
        memcpy(held, p + d, nheld);
    }
    size_t m = unescape_to(p, p + at, end);
    if (!d) return m;
    /* the message's text ends before the detail's string starts (each byte written takes at
     * least one read), so the detail is unescaped after it in place */
    size_t k = d < at ? unescape_to(p + m + 1, held, held + nheld) : unescape_to(p + m + 1, p + d, end);
    if (!k) return m;
    p[m] = ' ';
    return m + 1 + k;
}

size_t ldxi_json_line(char *p, size_t n, size_t at)
{
    n = ldxi_unjson(p, n, at);
    return ldxi_line_unclean(p, n) ? ldxi_clean_line(p, n, p) : n;
}

/* A log pasted into an issue reply often comes quoted, "> " before every line (nested:
 * "> > "; a lone ">" for an empty line). Patterns anchored at a line's start must see the
 * line as the program printed it, so the scan reads it without its quote markers. A '>'
 * with no blank after it is text (">>>", a Python prompt; "->"). */
size_t ldxi_quote_len(const char *p, size_t n)
{
    size_t i = 0;
    while (i < n && p[i] == '>' && (i + 1 == n || p[i + 1] == ' ' || p[i + 1] == '\t')) {
        i++;
        if (i < n) i++;
    }
    return i;
}

size_t ldxi_unquote(char *p, size_t n)
{
    size_t q = ldxi_quote_len(p, n);
    if (q) memmove(p, p + q, n - q);
    return n - q;
}

/* Length of a valid UTF-8 sequence at s, or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t need;
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf) need = 2;
    else if (c >= 0xe0 && c <= 0xef) need = 3;
    else if (c >= 0xf0 && c <= 0xf4) need = 4;
    else return 0;
    if (n < need) return 0;
    for (size_t k = 1; k < need; k++)
        if ((s[k] & 0xc0) != 0x80) return 0;
    if (c == 0xe0 && s[1] < 0xa0) return 0;
    if (c == 0xed && s[1] > 0x9f) return 0;
    if (c == 0xf0 && s[1] < 0x90) return 0;
    if (c == 0xf4 && s[1] > 0x8f) return 0;
    return need;
}

char *ldx_display_text(const char *text, size_t len, size_t max)
{
    if (max < 8) max = 8;
    char *out = malloc(max + 4);
    if (!out) return NULL;
    const unsigned char *s = (const unsigned char *)text;
    size_t o = 0, i = 0;
    /* leading blanks say nothing in evidence */
    while (i < len && (s[i] == ' ' || s[i] == '\t')) i++;
    while (i < len) {
        size_t k = utf8_len(s + i, len - i);
        size_t room = max - o;
        if (k == 0) {
            if (room < 1) break;
            out[o++] = '?';
            i++;
        } else if (k == 1) {
            if (room < 1) break;
            out[o++] = (s[i] < 0x20 || s[i] == 0x7f) ? ' ' : (char)s[i];
            i++;
        } else {
            if (room < k) break;
            memcpy(out + o, s + i, k);
            o += k;
            i += k;
        }
    }
    while (o > 0 && out[o - 1] == ' ') o--;
    if (i < len) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
    return out;
}
