/* The rule compiler: collects rules from every source, then checks what no single file
 * can check alone (unique ids, related and caused_by references) and freezes them into
 * an immutable ruleset. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "logdx/input.h"
#include "hsdb.h"
#include "fragment.h"
#include "load.h"
#include "table.h"
#include "../plumbing.h"

struct ldx_compiler {
    ldx_msgs *msgs;
    ldx_arena *arena;
    ldx_arena *tree; /* one file's YAML tree: what the rule keeps is copied out of it */
    ldxi_rule **rules;
    size_t n, cap;
    ldx_table_info **tables; /* code tables, in the order they came */
    size_t ntables, tcap;
    ldxi_fragments frags; /* what patterns may call as (?&name): the built-in ones first */
    bool frags_builtin;   /* the built-in fragments are in frags */
    int failed; /* some rule was left out */
    uint64_t digest; /* FNV-1a over every source's bytes, in the order they came */
};

const char *ldx_rule_level_name(ldx_rule_level l)
{
    return l == LDX_LEVEL_CONCEPT ? "concept" : "specific";
}

ldx_status ldx_compiler_create(ldx_compiler **out, ldx_msgs *msgs)
{
    ldx_compiler *c = calloc(1, sizeof(*c));
    if (!c) return LDX_ENOMEM;
    if (ldxi_arena_create(&c->arena) != LDX_OK || ldxi_arena_create(&c->tree) != LDX_OK) {
        ldxi_arena_destroy(c->arena);
        free(c);
        return LDX_ENOMEM;
    }
    c->msgs = msgs;
    c->digest = 14695981039346656037ULL;
    *out = c;
    return LDX_OK;
}

void ldx_compiler_destroy(ldx_compiler *c)
{
    if (!c) return;
    for (size_t i = 0; i < c->n; i++) ldxi_rule_free(c->rules[i]);
    free(c->rules);
    free(c->tables);
    ldxi_fragments_free(&c->frags);
    ldxi_arena_destroy(c->arena);
    ldxi_arena_destroy(c->tree);
    free(c);
}

/* A file in a folder named fragments (rules/fragments/x.yaml, my-rules/fragments/x.yaml). */
static bool is_fragment_path(const char *path)
{
    for (const char *p = strstr(path, "fragments/"); p; p = strstr(p + 1, "fragments/"))
        if (p == path || p[-1] == '/') return true;
    return false;
}

static ldx_status add_buffer(ldx_compiler *c, const char *name, bool on_disk, const char *data,
                             size_t len, bool builtin);

/* The built-in fragments, before the first source of any kind: a user's rule may call
 * them, with or without the built-in rules, and a user's fragment may not take a
 * built-in one's name. */
static ldx_status builtin_fragments(ldx_compiler *c)
{
    if (c->frags_builtin) return LDX_OK;
    c->frags_builtin = true;
    ldx_status worst = LDX_OK;
    for (size_t i = 0; i < ldxi_builtin_rules_count; i++) {
        const ldxi_embedded *e = &ldxi_builtin_rules[i];
        if (strncmp(e->path, "rules/fragments/", 16) != 0) continue;
        char name[512];
        snprintf(name, sizeof name, LDX_BUILTIN_PREFIX "%s", e->path);
        ldx_status st = add_buffer(c, name, false, e->data, e->len, true);
        if (st == LDX_ENOMEM) return st;
        if (st != LDX_OK) worst = st;
    }
    return worst;
}

static ldx_status add_buffer(ldx_compiler *c, const char *name, bool on_disk, const char *data,
                             size_t len, bool builtin)
{
    /* every source, of any kind, comes after the built-in fragments */
    if (builtin_fragments(c) == LDX_ENOMEM) return LDX_ENOMEM;
    /* what the ruleset is made of, for telling two runs' rule sets apart (shards that
     * are merged must have used the same): the bytes of each source and its length */
    /* FNV-1a over 64-bit words (a byte at a time was a twentieth of a small log's run) */
    size_t k = 0;
    for (; k + 8 <= len; k += 8) {
        uint64_t w;
        memcpy(&w, data + k, 8);
        c->digest = (c->digest ^ w) * 1099511628211ULL;
    }
    for (; k < len; k++) c->digest = (c->digest ^ (unsigned char)data[k]) * 1099511628211ULL;
    c->digest = (c->digest ^ (uint64_t)len) * 1099511628211ULL;
    ldxi_ynode *root;
    /* the tree's memory is reused file after file: fewer fresh pages to fault in, which
     * was a quarter of start-up */
    ldxi_arena_reset(c->tree);
    ldx_status st;
    bool tree = builtin && len >= 4 && memcmp(data, LDXI_YTREE_MAGIC, 4) == 0;
    if (tree) {
        /* a built-in rule as the tree the build parsed (ldx-trees) */
        st = ldxi_ytree_decode(data, len, c->tree, &root);
        if (st != LDX_OK) ldx_msgs_add(c->msgs, LDX_MSG_ERROR, name, 0, 0, "damaged built-in rule");
    } else {
        st = ldxi_yaml_parse(data, len, name, c->tree, &root, c->msgs);
    }
    if (st != LDX_OK) {
        c->failed = 1;
        return st == LDX_ENOMEM ? st : LDX_ERULE;
    }
    /* an embedded tree's strings are the library's own, for as long as it is loaded */
    if (ldxi_is_fragment(root)) {
        if (!ldxi_fragment_load(root, name, builtin, tree, c->arena, &c->frags, c->msgs)) {
            c->failed = 1;
            return LDX_ERULE;
        }
        return LDX_OK;
    }
    if (ldxi_is_table(root)) {
        ldx_table_info *t = ldxi_table_load(root, name, builtin, tree, c->arena, c->msgs);
        if (!t) {
            c->failed = 1;
            return LDX_ERULE;
        }
        return LDXI_PUSH(c->tables, c->ntables, c->tcap, t);
    }
    ldxi_rule *r = ldxi_rule_load(root, name, builtin, tree, &c->frags, c->arena, c->msgs);
    if (!r) {
        c->failed = 1;
        return LDX_ERULE;
    }
    r->on_disk = on_disk;
    if (LDXI_PUSH(c->rules, c->n, c->cap, r) != LDX_OK) {
        ldxi_rule_free(r);
        return LDX_ENOMEM;
    }
    return LDX_OK;
}

ldx_status ldx_compiler_add_buffer(ldx_compiler *c, const char *name, const char *data,
                                   size_t len, bool builtin)
{
    return add_buffer(c, name, false, data, len, builtin);
}

static ldx_status add_embedded(ldx_compiler *c, bool tables_only)
{
    ldx_status worst = LDX_OK;
    for (size_t i = 0; i < ldxi_builtin_rules_count; i++) {
        const ldxi_embedded *e = &ldxi_builtin_rules[i];
        if (tables_only && strncmp(e->path, "rules/tables/", 13) != 0) continue;
        if (!strncmp(e->path, "rules/fragments/", 16)) continue; /* builtin_fragments() */
        /* the prefix keeps messages about the embedded copy apart from a file on disk
         * with the same relative path */
        char name[512];
        snprintf(name, sizeof name, LDX_BUILTIN_PREFIX "%s", e->path);
        ldx_status st = ldx_compiler_add_buffer(c, name, e->data, e->len, true);
        if (st == LDX_ENOMEM) return st;
        if (st != LDX_OK) worst = st;
    }
    return worst;
}

ldx_status ldx_compiler_add_builtin(ldx_compiler *c) { return add_embedded(c, false); }

ldx_status ldx_compiler_add_builtin_tables(ldx_compiler *c) { return add_embedded(c, true); }

static int is_rule_file(const char *path)
{
    size_t n = strlen(path);
    return (n > 5 && strcmp(path + n - 5, ".yaml") == 0) ||
           (n > 4 && strcmp(path + n - 4, ".yml") == 0);
}

typedef struct {
    ldx_compiler *c;
    ldx_status worst;
    int explicit_file;
    int pass; /* a folder is walked twice: its fragments/ first, then everything else */
} add_ctx;

static ldx_status add_file(const char *path, void *vctx)
{
    add_ctx *a = vctx;
    if (!a->explicit_file && !is_rule_file(path)) return LDX_OK;
    if (!a->explicit_file && is_fragment_path(path) != (a->pass == 0)) return LDX_OK;
    /* read(2) itself: a folder of rules is hundreds of small files, and stdio's fstat
     * and extra read for each were a tenth of loading them */
    /* O_NONBLOCK: a FIFO with no writer must not hang the open (a regular file ignores it) */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        if (fd >= 0)
            ldx_msgs_add(a->c->msgs, LDX_MSG_ERROR, path, 0, 0,
                         "not a rule file: rules are read from regular files and folders");
        else
            ldx_msgs_add(a->c->msgs, LDX_MSG_ERROR, path, 0, 0, "cannot open rule file: %s",
                         strerror(errno));
        if (fd >= 0) close(fd);
        a->c->failed = 1;
        a->worst = LDX_EIO;
        return LDX_OK;
    }
    ldx_buf b;
    ldxi_buf_init(&b, LDXI_YAML_MAX_BYTES + 2);
    char chunk[65536];
    ssize_t n;
    ldx_status st = LDX_OK;
    while ((n = read(fd, chunk, sizeof chunk)) > 0 || (n < 0 && errno == EINTR))
        if (n > 0 && (st = ldxi_buf_append(&b, chunk, (size_t)n)) != LDX_OK) break;
    int rerr = n < 0;
    close(fd);
    if (st == LDX_ELIMIT) {
        ldx_msgs_add(a->c->msgs, LDX_MSG_ERROR, path, 0, 0,
                     "rule file is larger than the limit of %zu bytes", LDXI_YAML_MAX_BYTES);
        a->c->failed = 1;
        a->worst = LDX_ERULE;
    } else if (st != LDX_OK || rerr) {
        ldx_msgs_add(a->c->msgs, LDX_MSG_ERROR, path, 0, 0, "cannot read rule file");
        a->c->failed = 1;
        a->worst = LDX_EIO;
    } else {
        st = add_buffer(a->c, path, true, b.data ? b.data : "", b.len, false);
        if (st == LDX_ENOMEM) {
            ldxi_buf_free(&b);
            return st;
        }
        if (st != LDX_OK) a->worst = st;
    }
    ldxi_buf_free(&b);
    return LDX_OK;
}

ldx_status ldx_compiler_add_path(ldx_compiler *c, const char *path)
{
    struct stat sb;
    add_ctx a = {.c = c, .worst = LDX_OK};
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode)) {
        /* a FIFO, a device (/dev/zero): never a rule file */
        ldx_msgs_add(c->msgs, LDX_MSG_ERROR, path, 0, 0,
                     "not a rule file or folder: rules are read from regular files and folders");
        c->failed = 1;
        return LDX_EIO;
    }
    a.explicit_file = stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
    ldx_status st = a.explicit_file ? LDX_OK : ldx_walk(path, add_file, &a, c->msgs);
    a.pass = 1;
    if (st == LDX_OK) st = ldx_walk(path, add_file, &a, c->msgs);
    if (st != LDX_OK) {
        c->failed = 1;
        return st;
    }
    return a.worst;
}

static int rule_cmp(const void *a, const void *b)
{
    const ldxi_rule *x = *(ldxi_rule *const *)a, *y = *(ldxi_rule *const *)b;
    return strcmp(x->info.id, y->info.id);
}

/* find() in rules sorted by id (a ruleset's, or the compiler's once sorted): every
 * rule's references are checked against all rules, and a linear search there was a
 * sixth of start-up. */
static long find_sorted(ldxi_rule *const *rules, size_t n, const char *id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(rules[mid]->info.id, id);
        if (c == 0) return (long)mid;
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

/* Whether two rule files are one, reached by two paths (a folder and a file inside it,
 * a link): asked only of rules that share an id, so that loading a folder of rules
 * does not resolve every path. */
static bool same_file(const ldxi_rule *a, const ldxi_rule *b)
{
    if (strcmp(a->info.path, b->info.path) == 0) return true;
    if (!a->on_disk || !b->on_disk) return false;
    char *x = realpath(a->info.path, NULL), *y = realpath(b->info.path, NULL);
    bool same = x && y && strcmp(x, y) == 0;
    free(x);
    free(y);
    return same;
}

/* A rule's id and its place among c->rules: sorted by id, then place; first: where
 * its id's run starts in that order. */
typedef struct {
    const char *id;
    size_t at, first;
} id_at;

static int id_at_cmp(const void *a, const void *b)
{
    const id_at *x = a, *y = b;
    int k = strcmp(x->id, y->id);
    return k ? k : (x->at > y->at) - (x->at < y->at);
}

ldx_status ldx_compiler_finish(ldx_compiler *c, ldx_ruleset **out)
{
    *out = NULL;
    /* Ids: a user rule replaces a built-in one; two user rules may not share an id.
     * Each rule meets the first one before it with its id that is still in, found among
     * the rules sorted by id (a search of all the rules before it was a tenth of
     * start-up with a few hundred user rules). */
    id_at *ord = malloc((c->n ? c->n : 1) * sizeof *ord);
    if (!ord) return LDX_ENOMEM;
    for (size_t i = 0; i < c->n; i++) ord[i] = (id_at){c->rules[i]->info.id, i, 0};
    if (c->n > 1) qsort(ord, c->n, sizeof *ord, id_at_cmp);
    for (size_t m = 1; m < c->n; m++) /* before any rule is freed, with its id */
        ord[m].first = strcmp(ord[m - 1].id, ord[m].id) ? m : ord[m - 1].first;
    for (size_t m = 1; m < c->n; m++) {
        size_t x = ord[m].first;
        while (x < m && !c->rules[ord[x].at]) x++; /* the first with its id still in */
        if (x == m) continue;
        size_t i = ord[m].at, j = ord[x].at;
        ldxi_rule *r = c->rules[i], *o = c->rules[j];
        if (same_file(o, r)) {
            /* the same file reached twice (a folder and a file inside it) */
            ldxi_rule_free(r);
            c->rules[i] = NULL;
        } else if (o->info.builtin && !r->info.builtin) {
            ldxi_rule_free(o);
            c->rules[j] = NULL;
        } else if (!o->info.builtin && r->info.builtin) {
            ldxi_rule_free(r);
            c->rules[i] = NULL;
        } else {
            ldx_msgs_add(c->msgs, LDX_MSG_ERROR, r->info.path, 1, 1,
                         "duplicate rule id '%s' (also in %s)", r->info.id, o->info.path);
            c->failed = 1;
            ldxi_rule_free(r);
            c->rules[i] = NULL;
        }
    }
    free(ord);
    size_t n = 0;
    for (size_t i = 0; i < c->n; i++)
        if (c->rules[i]) c->rules[n++] = c->rules[i];
    c->n = n;
    if (n > 1) qsort(c->rules, n, sizeof(*c->rules), rule_cmp);

    /* References: related must name rules; caused_by rules or classes. Reported as
     * errors but the rule stays: a stale reference does not change what it matches. */
    for (size_t i = 0; i < n; i++) {
        const ldx_rule_info *ri = &c->rules[i]->info;
        for (size_t k = 0; k < ri->related.n; k++)
            if (find_sorted(c->rules, n, ri->related.v[k]) < 0) {
                ldx_msgs_add(c->msgs, LDX_MSG_ERROR, ri->path, 1, 1,
                             "rule '%s': related rule '%s' does not exist", ri->id,
                             ri->related.v[k]);
                c->failed = 1;
            }
        for (size_t k = 0; k < ri->caused_by.n; k++)
            if (find_sorted(c->rules, n, ri->caused_by.v[k]) < 0 &&
                !ldx_taxonomy_lookup(ri->caused_by.v[k], NULL, NULL, NULL)) {
                ldx_msgs_add(c->msgs, LDX_MSG_ERROR, ri->path, 1, 1,
                             "rule '%s': caused_by '%s' is neither a class nor a rule id",
                             ri->id, ri->caused_by.v[k]);
                c->failed = 1;
            }
    }

    /* Tables: one of a user's replaces the built-in one of its name; two of a user's
     * may not share one. Then every rule's lookups are linked to them. */
    size_t nt = 0;
    for (size_t i = 0; i < c->ntables; i++) {
        ldx_table_info *t = c->tables[i];
        size_t j = 0;
        while (j < nt && strcmp(c->tables[j]->name, t->name)) j++;
        const ldx_table_info *had = j < nt ? c->tables[j] : NULL;
        if (!had) {
            c->tables[nt++] = t;
        } else if (had->builtin && !t->builtin) {
            c->tables[j] = t; /* the user's replaces the built-in one */
        } else if (had->builtin == t->builtin && strcmp(t->path, had->path)) {
            ldx_msgs_add(c->msgs, LDX_MSG_ERROR, t->path, 1, 1, "duplicate table '%s' (also in %s)",
                         t->name, had->path);
            c->failed = 1;
        } /* else a built-in one after the user's, or one file read twice: the first stays */
    }
    c->ntables = nt;
    for (size_t i = 0; i < n; i++)
        if (!ldxi_rule_link_tables(c->rules[i], c->tables, nt, c->arena, c->msgs)) c->failed = 1;

    ldx_ruleset *rs = calloc(1, sizeof(*rs));
    if (!rs) return LDX_ENOMEM;
    rs->tables = ldxi_arena_alloc(c->arena, (nt ? nt : 1) * sizeof *rs->tables);
    if (!rs->tables) {
        free(rs);
        return LDX_ENOMEM;
    }
    if (nt) memcpy(rs->tables, c->tables, nt * sizeof *rs->tables);
    rs->ntables = nt;
    rs->digest = c->digest;
    rs->arena = c->arena;
    rs->rules = c->rules;
    rs->n = n;
    rs->tail_rules = ldxi_arena_alloc(rs->arena, (n ? n : 1) * sizeof(size_t));
    if (!rs->tail_rules) {
        free(rs);
        return LDX_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        ldxi_rule *r = rs->rules[i];
        r->index = i;
        bool tail = false;
        for (size_t s = 0; s < r->info.nsignals; s++) {
            uint32_t cc = r->sigs[s].ngroups;
            if (cc + 1 > rs->max_groups) rs->max_groups = cc + 1;
            if (r->info.signals[s].tail > rs->max_tail) rs->max_tail = r->info.signals[s].tail;
            tail = tail || r->info.signals[s].tail;
        }
        if (tail) rs->tail_rules[rs->ntail_rules++] = i;
    }
    c->arena = NULL;
    c->rules = NULL;
    c->n = c->cap = 0;
    ldxi_hsdb_build(rs, c->msgs);
    *out = rs;
    return c->failed ? LDX_ERULE : LDX_OK;
}

void ldx_ruleset_destroy(ldx_ruleset *rs)
{
    if (!rs) return;
    for (size_t i = 0; i < rs->n; i++) ldxi_rule_free(rs->rules[i]);
    free(rs->rules);
    ldxi_hsdb_free(rs->hs);
    ldxi_arena_destroy(rs->arena);
    free(rs);
}

size_t ldx_ruleset_count(const ldx_ruleset *rs) { return rs ? rs->n : 0; }

uint64_t ldx_ruleset_digest(const ldx_ruleset *rs) { return rs ? rs->digest : 0; }

size_t ldx_ruleset_table_count(const ldx_ruleset *rs) { return rs ? rs->ntables : 0; }

const ldx_table_info *ldx_ruleset_table(const ldx_ruleset *rs, size_t i)
{
    return rs && i < rs->ntables ? rs->tables[i] : NULL;
}

const ldx_table_info *ldx_ruleset_find_table(const ldx_ruleset *rs, const char *name)
{
    for (size_t i = 0; rs && i < rs->ntables; i++)
        if (!strcmp(rs->tables[i]->name, name)) return rs->tables[i];
    return NULL;
}

const ldx_rule_info *ldx_ruleset_rule(const ldx_ruleset *rs, size_t i)
{
    return i < rs->n ? &rs->rules[i]->info : NULL;
}

size_t ldxi_signal_literal(const ldx_signal_info *si) { return ldxi_pattern_literal(si->pattern); }
bool ldxi_signal_digit_blind(const ldx_signal_info *si) { return ldxi_re_digit_blind(si->pattern); }

bool ldxi_ruleset_has_prefilter(const ldx_ruleset *rs) { return rs->hs != NULL; }

bool ldxi_ruleset_prefiltered(const ldx_ruleset *rs, size_t rule, size_t sig)
{
    const ldxi_hsdb *h = rs->hs;
    if (!h || rule >= rs->n) return false;
    uint32_t base = 0;
    for (size_t i = 0; i < rule; i++) base += (uint32_t)rs->rules[i]->info.nsignals;
    uint32_t g = base + (uint32_t)sig;
    for (size_t a = 0; a < h->nalways; a++)
        if (h->always[a] == g) return false;
    return true;
}

long ldx_ruleset_find(const ldx_ruleset *rs, const char *id)
{
    return find_sorted(rs->rules, rs->n, id);
}

const char *ldx_ruleset_closest(const ldx_ruleset *rs, const char *id)
{
    const char *best = NULL;
    size_t bestd = 4;
    for (size_t i = 0; i < rs->n; i++) {
        size_t d = ldxi_edit_distance(rs->rules[i]->info.id, id);
        if (d < bestd) bestd = d, best = rs->rules[i]->info.id;
    }
    return best;
}

const ldxi_cause *ldxi_rule_cause(const ldxi_rule *r, const ldxi_rule *other, const ldxi_cause *prev)
{
    for (size_t k = prev ? (size_t)(prev - r->causes) + 1 : 0; k < r->info.caused_by.n; k++) {
        const char *cb = r->causes[k].name;
        if (strcmp(cb, other->info.klass) == 0 || strcmp(cb, other->info.id) == 0)
            return &r->causes[k];
    }
    return NULL;
}
