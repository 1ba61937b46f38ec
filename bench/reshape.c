/* reshape MODE SIZE SEED < text > log: a log of SIZE bytes made of the lines of text
 * (the real corpus, concatenated), repeated as often as it takes, each pass changed so
 * that the log has the shape MODE names:
 *
 *   digits   every digit replaced by a random one: numbers keep their length, so a
 *            line's template (digits set aside) repeats as in the corpus
 *   numlen   every run of digits replaced by a random number of 1 to 7 digits: the
 *            same text with numbers whose length varies, as step counters and losses
 *            printed with varying digits are
 *   ids      digits as in `digits`, and a random 12-letter hex id at the start of
 *            every line (a request or trace id): no two lines share a template
 *
 * Deterministic for a SEED. Lines are cut at "\n"; the text's own "\r" stay. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng;

static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

static unsigned long long parse_size(const char *s)
{
    char *end;
    unsigned long long n = strtoull(s, &end, 10);
    switch (*end) {
    case 'K': case 'k': n <<= 10; break;
    case 'M': case 'm': n <<= 20; break;
    case 'G': case 'g': n <<= 30; break;
    default: break;
    }
    return n;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: reshape digits|numlen|ids SIZE SEED < text > log\n");
        return 2;
    }
    const char *mode = argv[1];
    int numlen = strcmp(mode, "numlen") == 0, ids = strcmp(mode, "ids") == 0;
    if (!numlen && !ids && strcmp(mode, "digits") != 0) {
        fprintf(stderr, "reshape: unknown mode '%s'\n", mode);
        return 2;
    }
    unsigned long long size = parse_size(argv[2]);
    rng = 0x9e3779b97f4a7c15ull ^ strtoull(argv[3], NULL, 10);
    if (!rng) rng = 1;

    size_t cap = 1 << 20, len = 0;
    char *text = malloc(cap);
    size_t n;
    while (text && (n = fread(text + len, 1, cap - len, stdin)) > 0) {
        len += n;
        if (len == cap) text = realloc(text, cap *= 2);
    }
    if (!text || len == 0) {
        fprintf(stderr, "reshape: no text on stdin\n");
        return 2;
    }
    static char out[1 << 16];
    size_t o = 0;
    unsigned long long written = 0;
    int line_start = 1;
#define PUT(c)                                                                          \
    do {                                                                                \
        out[o++] = (char)(c);                                                           \
        if (o == sizeof out) {                                                          \
            fwrite(out, 1, o, stdout);                                                  \
            written += o;                                                               \
            o = 0;                                                                      \
        }                                                                               \
    } while (0)
    while (written + o < size) {
        for (size_t i = 0; i < len && written + o < size; i++) {
            unsigned char c = (unsigned char)text[i];
            if (line_start && ids) {
                for (int k = 0; k < 12; k++) PUT("0123456789abcdef"[next() & 15]);
                PUT(' ');
            }
            line_start = c == '\n';
            if (c < '0' || c > '9') {
                PUT(c);
            } else if (!numlen) {
                PUT('0' + next() % 10);
            } else {
                while (i + 1 < len && text[i + 1] >= '0' && text[i + 1] <= '9') i++;
                int digits = 1 + next() % 7;
                PUT('1' + next() % 9);
                for (int k = 1; k < digits; k++) PUT('0' + next() % 10);
            }
        }
    }
    fwrite(out, 1, o, stdout);
    free(text);
    return 0;
}
