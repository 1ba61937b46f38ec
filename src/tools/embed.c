/* ldx-embed: writes a C file that embeds files as byte arrays, so that an installed
 * logdx needs no rules folder. Build-time only.
 *
 *   ldx-embed OUT.c SYMBOL BASEDIR FILE...
 *
 * defines `const ldxi_embedded SYMBOL[]` and `const size_t SYMBOL_count`, each entry
 * named by its path relative to BASEDIR (embed_out.h). */
#include "embed_out.h"

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: ldx-embed OUT.c SYMBOL BASEDIR FILE...\n");
        return 2;
    }
    const char *sym = argv[2];
    int nfiles = argc - 4;
    char **files = argv + 4;
    FILE *out = embed_begin(argv[1], "ldx-embed", files, nfiles);
    if (!out) return 1;
    for (int i = 0; i < nfiles; i++) {
        FILE *f = fopen(files[i], "rb");
        if (!f) {
            perror(files[i]);
            fclose(out);
            return 1;
        }
        size_t cap = 1 << 16, n = 0, k;
        unsigned char *buf = malloc(cap);
        while (buf && (k = fread(buf + n, 1, cap - n, f)) > 0)
            if ((n += k) == cap) {
                unsigned char *more = realloc(buf, cap *= 2);
                if (!more) free(buf);
                buf = more;
            }
        fclose(f);
        if (!buf) {
            fclose(out);
            return 1;
        }
        embed_blob(out, sym, i, buf, n);
        free(buf);
    }
    return embed_end(out, argv[1], sym, argv[3], files, nfiles);
}
