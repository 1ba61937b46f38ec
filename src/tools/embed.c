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
    const char *sym;
    char **files;
    int nfiles, rc;
    FILE *out = embed_args(argc, argv, "ldx-embed", &sym, &files, &nfiles, &rc);
    if (!out) return rc;
    for (int i = 0; i < nfiles; i++) {
        size_t n;
        unsigned char *buf = embed_slurp(files[i], &n);
        if (!buf) {
            perror(files[i]);
            fclose(out);
            return 1;
        }
        embed_blob(out, sym, i, buf, n);
        free(buf);
    }
    return embed_end(out, argv[1], sym, argv[3], files, nfiles);
}
