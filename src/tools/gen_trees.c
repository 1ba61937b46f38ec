/* ldx-trees: parses the built-in rule files at build time and writes their YAML trees
 * in binary form (ytree.c) as a C file, so that start-up does not run libyaml over
 * every rule. Build-time only; a file that does not parse fails the build with the
 * parser's path:line:col message.
 *
 *   ldx-trees OUT.c SYMBOL BASEDIR FILE...
 *
 * defines `const ldxi_embedded SYMBOL[]` and `const size_t SYMBOL_count` like ldx-embed,
 * each entry named by its path relative to BASEDIR. */
#include "embed_out.h"
#include "logdx/core.h"
#include "../core/util.h"
#include "../rules/yaml.h"

int main(int argc, char **argv)
{
    const char *sym;
    char **files;
    int nfiles, rc;
    FILE *out = embed_args(argc, argv, "ldx-trees", &sym, &files, &nfiles, &rc);
    if (!out) return rc;
    ldx_msgs *msgs;
    if (ldx_msgs_create(&msgs) != LDX_OK) return 1;
    int failed = 0;
    for (int i = 0; i < nfiles && !failed; i++) {
        size_t len;
        char *text = (char *)embed_slurp(files[i], &len);
        ldx_arena *a;
        ldxi_ynode *root;
        ldx_buf b;
        ldxi_buf_init(&b, SIZE_MAX);
        if (!text || ldxi_arena_create(&a) != LDX_OK) {
            perror(files[i]);
            return 1;
        }
        if (ldxi_yaml_parse(text, len, files[i], a, &root, msgs) != LDX_OK ||
            ldxi_ytree_encode(root, &b) != LDX_OK) {
            for (size_t m = 0; m < ldx_msgs_count(msgs); m++) {
                char line[1024];
                ldx_msg_format(ldx_msgs_get(msgs, m), line, sizeof line);
                fprintf(stderr, "%s\n", line);
            }
            failed = 1;
        }
        embed_blob(out, sym, i, (const unsigned char *)b.data, b.len);
        ldxi_buf_free(&b);
        ldxi_arena_destroy(a);
        free(text);
    }
    ldx_msgs_destroy(msgs);
    if (embed_end(out, argv[1], sym, argv[3], files, nfiles) != 0 || failed) {
        remove(argv[1]);
        return 1;
    }
    return 0;
}
