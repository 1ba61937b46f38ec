/* The YAML tree of a rule file in a compact binary form, for the built-in rules: the
 * build parses their YAML once (ldx-trees) and embeds the trees, so that start-up reads
 * them at memory speed instead of running libyaml over 900 KB of rules, which was most
 * of `logdx small.log`. Rule validation runs on the tree as before, positions included.
 *
 * Layout: "LDXT", then the root node. A node is kind, quoted and comment_after (u8
 * each), line and col (u32 each), then for a scalar its length (u32), bytes and a NUL,
 * for a sequence or a map its item count (u32) and the items. Little-endian. */
#include <stdint.h>
#include <string.h>

#include "yaml.h"

static ldx_status put_u32(ldx_buf *b, uint32_t v)
{
    unsigned char x[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    return ldxi_buf_append(b, x, 4);
}

static ldx_status encode(const ldxi_ynode *n, ldx_buf *b)
{
    unsigned char head[3] = {(unsigned char)n->kind, (unsigned char)n->quoted,
                             (unsigned char)n->comment_after};
    LDX_TRY(ldxi_buf_append(b, head, 3));
    LDX_TRY(put_u32(b, n->line));
    LDX_TRY(put_u32(b, n->col));
    if (n->kind == LDXI_YSCALAR) {
        /* a block scalar's trailing newline is dropped here, as loading drops it, so
         * that the loaded rule can point at the embedded text as it is */
        size_t len = n->len;
        while (n->quoted == 2 && len && (n->str[len - 1] == '\n' || n->str[len - 1] == ' ')) len--;
        LDX_TRY(put_u32(b, (uint32_t)len));
        LDX_TRY(ldxi_buf_append(b, n->str, len));
        return ldxi_buf_append(b, "", 1);
    }
    LDX_TRY(put_u32(b, (uint32_t)n->n));
    for (size_t i = 0; i < n->n; i++) LDX_TRY(encode(n->items[i], b));
    return LDX_OK;
}

ldx_status ldxi_ytree_encode(const ldxi_ynode *root, ldx_buf *out)
{
    LDX_TRY(ldxi_buf_append(out, LDXI_YTREE_MAGIC, 4));
    return encode(root, out);
}

typedef struct {
    const unsigned char *p, *end;
    ldx_arena *a;
} reader;

static bool get_u32(reader *r, uint32_t *v)
{
    if (r->end - r->p < 4) return false;
    *v = (uint32_t)r->p[0] | (uint32_t)r->p[1] << 8 | (uint32_t)r->p[2] << 16 |
         (uint32_t)r->p[3] << 24;
    r->p += 4;
    return true;
}

static ldxi_ynode *decode(reader *r, int depth)
{
    if (depth > 64 || r->end - r->p < 3) return NULL;
    ldxi_ynode *n = ldxi_arena_alloc(r->a, sizeof(*n));
    if (!n) return NULL;
    memset(n, 0, sizeof(*n));
    n->kind = (ldxi_ykind)r->p[0];
    n->quoted = r->p[1];
    n->comment_after = r->p[2];
    r->p += 3;
    uint32_t line, col, len;
    if (!get_u32(r, &line) || !get_u32(r, &col) || !get_u32(r, &len)) return NULL;
    n->line = line;
    n->col = col;
    if (n->kind == LDXI_YSCALAR) {
        if ((size_t)(r->end - r->p) < (size_t)len + 1 || r->p[len] != '\0') return NULL;
        n->str = (const char *)r->p; /* the embedded bytes themselves */
        n->len = len;
        r->p += len + 1;
        return n;
    }
    if (n->kind != LDXI_YSEQ && n->kind != LDXI_YMAP) return NULL;
    n->n = len;
    n->items = ldxi_arena_alloc(r->a, (len ? len : 1) * sizeof(*n->items));
    if (!n->items) return NULL;
    for (uint32_t i = 0; i < len; i++)
        if (!(n->items[i] = decode(r, depth + 1))) return NULL;
    return n;
}

ldx_status ldxi_ytree_decode(const void *data, size_t len, ldx_arena *a, ldxi_ynode **root)
{
    reader r = {data, (const unsigned char *)data + len, a};
    *root = NULL;
    if (len < 4 || memcmp(data, LDXI_YTREE_MAGIC, 4) != 0) return LDX_EPARSE;
    r.p += 4;
    *root = decode(&r, 0);
    return *root && r.p == r.end ? LDX_OK : LDX_EPARSE;
}
