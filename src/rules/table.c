/* Code tables: rules/tables/<name>.yaml, what a code that rules capture means.
 *
 *   table: xid
 *   title: NVIDIA Xid errors
 *   key: code
 *   also_by: [name]      (optional: columns a code is also found by, after the key)
 *   columns: {code: the Xid number, meaning: ..., action: ..., class: ...}
 *   references: [https://...]
 *   rows:
 *     - {code: "79", meaning: ..., action: reset_gpu, class: gpu_fallen_off_bus}
 *
 * Every row gives every column ("" for none), keys are unique, a column named class
 * holds classes of the taxonomy (or ""). Each problem is reported at its node. */
#include "table.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../core/util.h"

static const char *const table_keys[] = {"table", "title", "key", "also_by", "columns",
                                         "references", "rows", NULL};

typedef struct {
    const char *path;
    ldx_arena *arena;
    ldx_msgs *msgs;
    int errors;
    bool keep;
} tctx;

static void err(tctx *c, const ldxi_ynode *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void err(tctx *c, const ldxi_ynode *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ldx_msgs_vadd(c->msgs, LDX_MSG_ERROR, c->path, n ? n->line : 1, n ? n->col : 1, fmt, ap);
    va_end(ap);
    c->errors++;
}

static const char *str(tctx *c, const ldxi_ynode *n)
{
    return c->keep ? n->str : ldxi_arena_strndup(c->arena, n->str, n->len);
}

static bool is_name(const char *s)
{
    if (!*s) return false;
    for (; *s; s++)
        if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_')) return false;
    return true;
}

static bool is_integer(const char *s)
{
    if (*s == '-' || *s == '+') s++;
    if (!*s) return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s)) return false;
    return true;
}

bool ldxi_is_table(const ldxi_ynode *root)
{
    return root->kind == LDXI_YMAP && ldxi_ymap_get(root, "table") != NULL;
}

static long column_of(const ldx_table_info *t, const char *name)
{
    for (size_t i = 0; i < t->ncolumns; i++)
        if (!strcmp(t->columns[i], name)) return (long)i;
    return -1;
}

/* A key read as a 32-bit status: decimal, signed or not, or 0x hex. Windows prints one
 * NTSTATUS three ways (-1073741819, 3221225477, 0xC0000005: PyCharm, Electron, Go). */
static bool status32(const char *s, uint32_t *v)
{
    const char *p = s + (*s == '-' || *s == '+');
    bool hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
    if (hex && p != s) return false;
    const char *d = hex ? p + 2 : p;
    size_t n = 0;
    for (; d[n]; n++)
        if (!(hex ? isxdigit((unsigned char)d[n]) : isdigit((unsigned char)d[n]))) return false;
    if (!n || n > (hex ? 8u : 10u)) return false;
    long long x = strtoll(s, NULL, hex ? 16 : 10);
    if (x < INT32_MIN || x > (long long)UINT32_MAX) return false;
    *v = (uint32_t)x;
    return true;
}

/* A key as the comparisons read it, parsed once: its text, its integer value and its
 * 32-bit status, where it has them. */
typedef struct {
    const char *text;
    bool integer;
    long long value;
    bool status;
    uint32_t status32;
} key_form;

static key_form form_of(const char *s)
{
    key_form k = {.text = s, .integer = is_integer(s)};
    if (k.integer) k.value = strtoll(s, NULL, 10);
    k.status = status32(s, &k.status32);
    return k;
}

/* Two keys are one when equal as text, or as integers ("079" and "79"), or as one
 * 32-bit status however printed (see status32). */
static bool same_key(const ldx_table_info *t, const key_form *a, const key_form *b)
{
    if (!strcmp(a->text, b->text)) return true;
    if (t->numeric && a->integer && b->integer && a->value == b->value) return true;
    return a->status && b->status && a->status32 == b->status32;
}

/* The length of s as an also_by cell compares it: without trailing spaces and full stop. */
static size_t text_len(const char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '.')) n--;
    return n;
}

long ldx_table_row(const ldx_table_info *t, const char *key)
{
    if (!t || !key) return -1;
    while (*key == ' ') key++;
    key_form q = form_of(key); /* the key looked up, read once for every row */
    for (size_t r = 0; r < t->nrows; r++) {
        key_form k = form_of(t->cells[r * t->ncolumns + t->key]);
        if (same_key(t, &k, &q)) return (long)r;
    }
    size_t n = text_len(key);
    for (size_t a = 0; a < t->nalso && n; a++)
        for (size_t r = 0; r < t->nrows; r++) {
            const char *cell = t->cells[r * t->ncolumns + t->also[a]];
            if (text_len(cell) == n && !strncasecmp(cell, key, n)) return (long)r;
        }
    return -1;
}

const char *ldx_table_cell(const ldx_table_info *t, long row, const char *column)
{
    long c = t ? column_of(t, column) : -1;
    if (c < 0 || row < 0 || (size_t)row >= t->nrows) return NULL;
    return t->cells[(size_t)row * t->ncolumns + (size_t)c];
}

ldx_table_info *ldxi_table_load(const ldxi_ynode *root, const char *path, bool builtin,
                                bool keep_strings, ldx_arena *arena, ldx_msgs *msgs)
{
    tctx c = {.path = path, .arena = arena, .msgs = msgs, .keep = keep_strings};
    ldx_table_info *t = ldxi_arena_alloc(arena, sizeof *t);
    if (!t) return NULL;
    memset(t, 0, sizeof *t);
    t->path = ldxi_arena_strdup(arena, path);
    t->builtin = builtin;
    for (size_t i = 0; i + 1 < root->n; i += 2) {
        const ldxi_ynode *k = root->items[i];
        bool ok = false;
        for (const char *const *a = table_keys; *a && !ok; a++)
            ok = k->kind == LDXI_YSCALAR && !strcmp(*a, k->str);
        if (!ok) err(&c, k, "table: unknown key '%s'", k->kind == LDXI_YSCALAR ? k->str : "?");
    }
    const ldxi_ynode *n = ldxi_ymap_get(root, "table");
    if (n->kind != LDXI_YSCALAR || !is_name(n->str))
        err(&c, n, "a table's name is lower-case letters, digits and '_' (table: xid)");
    else
        t->name = str(&c, n);
    n = ldxi_ymap_get(root, "title");
    if (!n || n->kind != LDXI_YSCALAR || !*n->str)
        err(&c, n ? n : root, "a table needs a 'title'");
    else
        t->title = str(&c, n);
    const ldxi_ynode *refs = ldxi_ymap_get(root, "references");
    if (refs && refs->kind == LDXI_YSEQ) {
        const char **v = ldxi_arena_alloc(arena, (refs->n ? refs->n : 1) * sizeof *v);
        for (size_t i = 0; v && i < refs->n; i++) {
            if (refs->items[i]->kind != LDXI_YSCALAR || strncmp(refs->items[i]->str, "http", 4))
                err(&c, refs->items[i], "a reference is a URL");
            else
                v[t->references.n++] = str(&c, refs->items[i]);
        }
        t->references.v = v;
    } else if (refs) {
        err(&c, refs, "'references' must be a list of URLs");
    }
    const ldxi_ynode *cols = ldxi_ymap_get(root, "columns");
    if (!cols || cols->kind != LDXI_YMAP || cols->n == 0) {
        err(&c, cols ? cols : root, "a table needs 'columns': a mapping of each column to what it holds");
        return NULL;
    }
    t->ncolumns = cols->n / 2;
    const char **cn = ldxi_arena_alloc(arena, t->ncolumns * sizeof *cn);
    if (!cn) return NULL;
    for (size_t i = 0; i < t->ncolumns; i++) {
        const ldxi_ynode *k = cols->items[2 * i];
        cn[i] = k->kind == LDXI_YSCALAR ? str(&c, k) : "?";
        if (k->kind != LDXI_YSCALAR || !is_name(k->str))
            err(&c, k, "column names are lower-case letters, digits and '_'");
        for (size_t j = 0; j < i; j++)
            if (!strcmp(cn[i], cn[j])) err(&c, k, "duplicate column '%s'", cn[i]);
    }
    t->columns = cn;
    n = ldxi_ymap_get(root, "key");
    long key = n && n->kind == LDXI_YSCALAR ? column_of(t, n->str) : -1;
    if (key < 0) {
        err(&c, n ? n : root, "'key' must name one of the columns (the one rules look codes up by)");
        return NULL;
    }
    t->key = (size_t)key;
    const ldxi_ynode *also = ldxi_ymap_get(root, "also_by");
    if (also && (also->kind != LDXI_YSEQ || also->n == 0)) {
        err(&c, also, "'also_by' is a list of columns a code is also looked up by ([message])");
    } else if (also) {
        size_t *v = ldxi_arena_alloc(arena, also->n * sizeof *v);
        if (!v) return NULL;
        for (size_t i = 0; i < also->n; i++) {
            const ldxi_ynode *a = also->items[i];
            long col = a->kind == LDXI_YSCALAR ? column_of(t, a->str) : -1;
            if (col < 0 || (size_t)col == t->key)
                err(&c, a, "also_by: '%s' is not a column other than the key",
                    a->kind == LDXI_YSCALAR ? a->str : "?");
            else
                v[t->nalso++] = (size_t)col;
        }
        t->also = v;
    }
    long klass = column_of(t, "class");
    const ldxi_ynode *rows = ldxi_ymap_get(root, "rows");
    if (!rows || rows->kind != LDXI_YSEQ || rows->n == 0) {
        err(&c, rows ? rows : root, "a table needs 'rows': a list of mappings, one per code");
        return NULL;
    }
    const char **cells = ldxi_arena_alloc(arena, rows->n * t->ncolumns * sizeof *cells);
    if (!cells) return NULL;
    t->numeric = true;
    for (size_t r = 0; r < rows->n; r++) {
        const ldxi_ynode *row = rows->items[r];
        const char **rc = cells + r * t->ncolumns;
        for (size_t i = 0; i < t->ncolumns; i++) rc[i] = NULL;
        if (row->kind != LDXI_YMAP) {
            err(&c, row, "each row is a mapping of columns to values");
            continue;
        }
        for (size_t i = 0; i + 1 < row->n; i += 2) {
            const ldxi_ynode *k = row->items[i], *v = row->items[i + 1];
            long col = k->kind == LDXI_YSCALAR ? column_of(t, k->str) : -1;
            if (col < 0) {
                err(&c, k, "row: '%s' is not one of the table's columns", k->kind == LDXI_YSCALAR ? k->str : "?");
                continue;
            }
            if (v->kind != LDXI_YSCALAR) {
                err(&c, v, "row: the value of '%s' must be a string", k->str);
                continue;
            }
            if (rc[col]) err(&c, k, "row: duplicate column '%s'", k->str);
            rc[col] = str(&c, v);
        }
        for (size_t i = 0; i < t->ncolumns; i++)
            if (!rc[i]) {
                err(&c, row, "row %zu gives no '%s' (write '' for none)", r + 1, t->columns[i]);
                rc[i] = "";
            }
        const char *k = rc[t->key];
        if (!*k) err(&c, row, "row %zu has an empty key '%s'", r + 1, t->columns[t->key]);
        t->numeric = t->numeric && is_integer(k);
        if (klass >= 0 && *rc[klass] && !ldx_taxonomy_lookup(rc[klass], NULL, NULL, NULL))
            err(&c, ldxi_ymap_get(row, "class"), "unknown class '%s' (logdx rules classes lists them)", rc[klass]);
    }
    t->cells = cells;
    t->nrows = rows->n;
    /* every key read once: the pairs are many (a catalogue of a few hundred rows) */
    key_form *forms = malloc((t->nrows ? t->nrows : 1) * sizeof *forms);
    if (!forms) return NULL;
    for (size_t r = 0; r < t->nrows; r++) forms[r] = form_of(cells[r * t->ncolumns + t->key]);
    for (size_t r = 1; r < t->nrows; r++)
        for (size_t q = 0; q < r; q++)
            if (same_key(t, &forms[r], &forms[q])) {
                err(&c, rows->items[r], "duplicate key '%s' (also row %zu)", forms[r].text, q + 1);
                break;
            }
    free(forms);
    return c.errors ? NULL : t;
}
