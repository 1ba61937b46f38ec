/* Rule loading and validation: a good rule compiles; every problem in a bad one is
 * reported with its line and column, all of them, not only the first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"
#include "logdx/rules.h"

static const char good[] =
    "id: test-oom\n"
    "title: Test OOM\n"
    "class: cuda_oom\n"
    "severity: high\n"
    "tags: [t]\n"
    "signals:\n"
    "  oom:\n"
    "    pattern: 'CUDA out of memory\\. Tried to allocate (?<req>[\\d.]+ ?[KMG]iB)'\n"
    "    weight: 3\n"
    "  cap:\n"
    "    pattern: 'total capacity of (?<total>[\\d.]+ GiB)'\n"
    "    role: context\n"
    "condition: oom and max(oom.req) > 1MiB\n"
    "summary: s\n"
    "symptoms:\n"
    "  - symptom: a\n"
    "    why: b\n"
    "root_cause: r\n"
    "fix: [f]\n"
    "verify: [v]\n"
    "references: ['https://example.org']\n"
    "examples:\n"
    "  match: ['CUDA out of memory. Tried to allocate 20.00 MiB']\n"
    "  no_match: ['fine']\n";

typedef struct {
    ldx_msgs *msgs;
    ldx_ruleset *rs;
    ldx_status st;
} compiled;

/* Compiles n rule or table texts (builtin[i]: as a built-in one; NULL: none is). */
static compiled compile_n(const char *const *names, const char *const *texts,
                          const bool *builtin, size_t n)
{
    compiled c = {0};
    ldx_msgs_create(&c.msgs);
    ldx_compiler *comp;
    assert_int_equal(ldx_compiler_create(&comp, c.msgs), LDX_OK);
    for (size_t i = 0; i < n; i++)
        ldx_compiler_add_buffer(comp, names[i], texts[i], strlen(texts[i]), builtin && builtin[i]);
    c.st = ldx_compiler_finish(comp, &c.rs);
    ldx_compiler_destroy(comp);
    return c;
}

static compiled compile(const char *name, const char *text)
{
    return compile_n(&name, &text, NULL, 1);
}

static void release(compiled *c)
{
    ldx_ruleset_destroy(c->rs);
    ldx_msgs_destroy(c->msgs);
}

/* Is there an error message at line:col containing text? */
static int has(const compiled *c, unsigned line, unsigned col, const char *text)
{
    for (size_t i = 0; i < ldx_msgs_count(c->msgs); i++) {
        const ldx_msg *m = ldx_msgs_get(c->msgs, i);
        if (m->line == line && (col == 0 || m->col == col) && strstr(m->text, text)) return 1;
    }
    return 0;
}

static void dump(const compiled *c)
{
    char buf[512];
    for (size_t i = 0; i < ldx_msgs_count(c->msgs); i++) {
        ldx_msg_format(ldx_msgs_get(c->msgs, i), buf, sizeof buf);
        print_message("  %s\n", buf);
    }
}

static void test_good_rule(void **state)
{
    (void)state;
    compiled c = compile("rules/memory/test-oom.yaml", good);
    if (c.st != LDX_OK) dump(&c);
    assert_int_equal(c.st, LDX_OK);
    assert_int_equal(ldx_ruleset_count(c.rs), 1);
    const ldx_rule_info *r = ldx_ruleset_rule(c.rs, 0);
    assert_string_equal(r->id, "test-oom");
    assert_string_equal(r->category, "memory"); /* from the taxonomy */
    assert_int_equal(r->severity, LDX_SEV_HIGH);
    assert_int_equal(r->nsignals, 2);
    assert_int_equal(r->signals[1].role, LDX_SIGNAL_CONTEXT);
    assert_true(r->signals[0].weight == 3.0);
    assert_int_equal(r->ex_match.n, 1);
    assert_int_equal(ldx_ruleset_find(c.rs, "test-oom"), 0);
    assert_int_equal(ldx_ruleset_find(c.rs, "nope"), -1);
    release(&c);
}

static void test_every_problem_reported(void **state)
{
    (void)state;
    const char bad[] =
        "id: Bad_Id\n"                           /* 1 */
        "title: t\n"                             /* 2 */
        "class: cuda_oomm\n"                     /* 3 */
        "severity: huge\n"                       /* 4 */
        "signalz: {}\n"                          /* 5 */
        "signals:\n"                             /* 6 */
        "  oom:\n"                               /* 7 */
        "    pattern: 'CUDA (out of memory'\n"   /* 8 */
        "    wieght: 2\n"                        /* 9 */
        "  any:\n"                               /* 10 */
        "    pattern: '.*'\n"                    /* 11 */
        "condition: oom and nothere\n"           /* 12 */
        "summary: s\n"                           /* 13 */
        "symptoms: [{symptom: a, why: b}]\n"     /* 14 */
        "root_cause: r\n"                        /* 15 */
        "fix:\n"                                 /* 16 */
        "  - Upgrade: to 2.1\n"                  /* 17 */
        "verify: [v]\n"                          /* 18 */
        "references: [not-a-url]\n"              /* 19 */
        "examples:\n"                            /* 20 */
        "  match: []\n";                         /* 21 */
    compiled c = compile("bad.yaml", bad);
    assert_int_equal(c.st, LDX_ERULE);
    assert_int_equal(ldx_ruleset_count(c.rs), 0);
    assert_true(has(&c, 1, 5, "kebab-case"));
    assert_true(has(&c, 3, 8, "unknown class 'cuda_oomm'"));
    assert_true(has(&c, 4, 11, "severity must be"));
    assert_true(has(&c, 5, 1, "unknown key 'signalz' (did you mean 'signals'?)"));
    /* PCRE2's offset 19 (the end of the pattern) becomes a column inside the quotes */
    assert_true(has(&c, 8, 0, "pattern error at offset"));
    assert_true(has(&c, 8, 0, "missing closing parenthesis"));
    assert_true(has(&c, 9, 5, "unknown key 'wieght' (did you mean 'weight'?)"));
    assert_true(has(&c, 11, 14, "matches an empty line"));
    assert_true(has(&c, 17, 5, "reads as a mapping"));
    assert_true(has(&c, 19, 0, "not a URL"));
    assert_true(has(&c, 21, 10, "at least 1 item"));
    assert_true(has(&c, 1, 1, "missing required key 'examples'") == 0);
    assert_true(ldx_msgs_errors(c.msgs) >= 10);
    release(&c);
}

static void test_condition_error_column(void **state)
{
    (void)state;
    char text[sizeof good + 64];
    snprintf(text, sizeof text, "%s", good);
    char *p = strstr(text, "condition: oom and max(oom.req) > 1MiB");
    memcpy(p, "condition: oom and max(oom.rek) > 1MiB", 38);
    compiled c = compile("c.yaml", text);
    assert_int_equal(c.st, LDX_ERULE);
    /* line 13: the value starts in column 12, the capture name 16 bytes into it */
    assert_true(has(&c, 13, 28, "no named capture 'rek'"));
    release(&c);
}

static void test_where_error_column(void **state)
{
    (void)state;
    char text[sizeof good + 128];
    const char *at = "    weight: 3\n";
    const char *p = strstr(good, at);
    /* line 10, after the oom signal's weight: the value starts in column 12, "rek" 15 bytes into it */
    snprintf(text, sizeof text, "%.*s%s    where: req > 1MiB and rek < 2\n%s", (int)(p - good), good,
             at, p + strlen(at));
    compiled c = compile("w.yaml", text);
    assert_int_equal(c.st, LDX_ERULE);
    assert_true(has(&c, 10, 27, "signal 'oom': where: the pattern has no named capture 'rek'"));
    release(&c);
    snprintf(text, sizeof text, "%.*s%s    where: req > 1MiB\n%s", (int)(p - good), good, at,
             p + strlen(at));
    c = compile("w.yaml", text);
    if (c.st != LDX_OK) dump(&c);
    assert_int_equal(c.st, LDX_OK);
    assert_string_equal(ldx_ruleset_rule(c.rs, 0)->signals[0].where, "req > 1MiB");
    assert_null(ldx_ruleset_rule(c.rs, 0)->signals[1].where);
    release(&c);
}

static void test_yaml_syntax_and_aliases(void **state)
{
    (void)state;
    compiled c = compile("s.yaml", "id: x\ntitle: [unclosed\n");
    assert_int_equal(c.st, LDX_ERULE);
    assert_true(ldx_msgs_errors(c.msgs) == 1);
    assert_true(strstr(ldx_msgs_get(c.msgs, 0)->text, "YAML") != NULL);
    release(&c);
    c = compile("a.yaml", "a: &x [1, 2]\nb: *x\n");
    assert_true(has(&c, 2, 4, "aliases are not allowed"));
    release(&c);
    c = compile("e.yaml", "");
    assert_true(has(&c, 1, 1, "empty rule file"));
    release(&c);
}

static void test_duplicates_and_references(void **state)
{
    (void)state;
    ldx_msgs *m;
    ldx_msgs_create(&m);
    ldx_compiler *comp;
    ldx_compiler_create(&comp, m);
    ldx_compiler_add_buffer(comp, "builtin/test-oom.yaml", good, strlen(good), true);
    ldx_compiler_add_buffer(comp, "user/test-oom.yaml", good, strlen(good), false);
    char rel[sizeof good + 100];
    snprintf(rel, sizeof rel, "%s", good);
    char *p = strstr(rel, "id: test-oom");
    memcpy(p, "id: test-rel", 12);
    strcat(rel, "related: [missing-rule]\ncaused_by: [host_oom_killed, no-such]\n");
    ldx_compiler_add_buffer(comp, "user/test-rel.yaml", rel, strlen(rel), false);
    ldx_ruleset *rs;
    assert_int_equal(ldx_compiler_finish(comp, &rs), LDX_ERULE);
    ldx_compiler_destroy(comp);
    /* the user rule replaced the built-in one */
    assert_int_equal(ldx_ruleset_count(rs), 2);
    assert_false(ldx_ruleset_rule(rs, (size_t)ldx_ruleset_find(rs, "test-oom"))->builtin);
    int related = 0, caused = 0;
    for (size_t i = 0; i < ldx_msgs_count(m); i++) {
        const char *t = ldx_msgs_get(m, i)->text;
        related += strstr(t, "related rule 'missing-rule' does not exist") != NULL;
        caused += strstr(t, "caused_by 'no-such'") != NULL;
    }
    assert_int_equal(related, 1);
    assert_int_equal(caused, 1);
    ldx_ruleset_destroy(rs);
    ldx_msgs_destroy(m);
}

/* Code tables: every problem of a table at its node; a rule's lookup names a table and
 * a capture, and only needs a numeric key, a column and a row; a user's table replaces
 * the built-in one of its name. */
static const char table_text[] =
    "table: tx\n"
    "title: T\n"
    "key: code\n"
    "columns: {code: c, name: n, action: a, class: k}\n"
    "rows:\n"
    "  - {code: '79', name: off the bus, action: reset_gpu, class: gpu_fallen_off_bus}\n"
    "  - {code: '48', name: dbe, action: drain, class: gpu_ecc_error}\n";

static compiled compile_two(const char *t1, bool b1, const char *t2)
{
    const char *names[] = {"a.yaml", "b.yaml"}, *texts[] = {t1, t2};
    const bool builtin[] = {b1, false};
    return compile_n(names, texts, builtin, 2);
}

static char *with_lookup(const char *lookup)
{
    static char buf[2048];
    const char *head = "    pattern: 'CUDA out of memory\\. Tried to allocate (?<req>[\\d.]+ ?[KMG]iB)'\n";
    const char *at = strstr(good, head);
    size_t n = (size_t)(at - good) + strlen(head);
    snprintf(buf, sizeof buf, "%.*s    lookup: %s\n%s", (int)n, good, lookup, good + n);
    return buf;
}

static void test_tables(void **state)
{
    (void)state;
    compiled c = compile("bad.yaml",
                         "table: Bad\n"
                         "title: t\n"
                         "key: code\n"
                         "columns: {code: c, class: k}\n"
                         "extra: 1\n"
                         "rows:\n"
                         "  - {code: '1', class: nope}\n"
                         "  - {code: '01', class: ''}\n"
                         "  - {code: '2', klass: x}\n");
    if (!has(&c, 1, 8, "table's name")) dump(&c);
    assert_true(has(&c, 1, 8, "table's name"));
    assert_true(has(&c, 5, 1, "unknown key 'extra'"));
    assert_true(has(&c, 7, 24, "unknown class 'nope'"));
    assert_true(has(&c, 8, 5, "duplicate key '01'"));
    assert_true(has(&c, 9, 5, "gives no 'class'"));
    assert_true(has(&c, 9, 17, "'klass' is not one of the table's columns"));
    assert_int_equal(c.st, LDX_ERULE);
    release(&c);

    c = compile_two(table_text, false, with_lookup("{table: tx, capture: req}"));
    assert_int_equal(c.st, LDX_OK);
    const ldx_table_info *t = ldx_ruleset_find_table(c.rs, "tx");
    assert_non_null(t);
    assert_true(t->numeric);
    assert_int_equal(ldx_table_row(t, "079"), 0);
    assert_int_equal(ldx_table_row(t, "48"), 1);
    assert_int_equal(ldx_table_row(t, "5"), -1);
    assert_string_equal(ldx_table_cell(t, 1, "action"), "drain");
    assert_null(ldx_table_cell(t, 1, "nope"));
    release(&c);

    /* a 32-bit status is one key however printed: signed, unsigned, hex of either case;
     * a table that mixes names and numbers still looks numbers up that way */
    c = compile("win.yaml",
                "table: win\n"
                "title: t\n"
                "key: code\n"
                "columns: {code: c}\n"
                "rows:\n"
                "  - {code: '0xC0000005'}\n"
                "  - {code: 'SIGKILL'}\n"
                "  - {code: '-9'}\n");
    assert_int_equal(c.st, LDX_OK);
    t = ldx_ruleset_find_table(c.rs, "win");
    assert_non_null(t);
    assert_false(t->numeric);
    assert_int_equal(ldx_table_row(t, "-1073741819"), 0);
    assert_int_equal(ldx_table_row(t, "3221225477"), 0);
    assert_int_equal(ldx_table_row(t, "0xc0000005"), 0);
    assert_int_equal(ldx_table_row(t, "0XC0000005"), 0);
    assert_int_equal(ldx_table_row(t, "-0xC0000005"), -1);
    assert_int_equal(ldx_table_row(t, "13221225477"), -1);
    assert_int_equal(ldx_table_row(t, "4294967287"), 2);
    assert_int_equal(ldx_table_row(t, "9"), -1);
    assert_int_equal(ldx_table_row(t, "SIGKILL"), 1);
    release(&c);
    /* also_by: a code not among the keys is found by another column, case and a final
     * full stop aside; the first row that holds it wins; an empty cell never matches */
    c = compile("cuda.yaml",
                "table: cuda\n"
                "title: t\n"
                "key: code\n"
                "also_by: [message]\n"
                "columns: {code: c, message: m}\n"
                "rows:\n"
                "  - {code: cudaErrorUnknown, message: unknown error}\n"
                "  - {code: CUDA_ERROR_UNKNOWN, message: unknown error}\n"
                "  - {code: cudaErrorFoo, message: ''}\n");
    assert_int_equal(c.st, LDX_OK);
    t = ldx_ruleset_find_table(c.rs, "cuda");
    assert_non_null(t);
    assert_int_equal(ldx_table_row(t, "CUDA_ERROR_UNKNOWN"), 1);
    assert_int_equal(ldx_table_row(t, "unknown error"), 0);
    assert_int_equal(ldx_table_row(t, "Unknown error. "), 0);
    assert_int_equal(ldx_table_row(t, "unknown"), -1);
    assert_int_equal(ldx_table_row(t, ""), -1);
    release(&c);
    c = compile("also.yaml",
                "table: also\n"
                "title: t\n"
                "key: code\n"
                "also_by: [code, colour]\n"
                "columns: {code: c}\n"
                "rows:\n"
                "  - {code: a}\n");
    assert_true(has(&c, 4, 11, "also_by: 'code' is not a column other than the key"));
    assert_true(has(&c, 4, 17, "also_by: 'colour' is not a column other than the key"));
    release(&c);
    c = compile("dup.yaml",
                "table: dup\n"
                "title: t\n"
                "key: code\n"
                "columns: {code: c}\n"
                "rows:\n"
                "  - {code: '0xC0000005'}\n"
                "  - {code: '-1073741819'}\n");
    assert_true(has(&c, 7, 5, "duplicate key '-1073741819'"));
    release(&c);

    c = compile_two(table_text, false, with_lookup("{table: nope, capture: req}"));
    if (!has(&c, 9, 13, "no table 'nope'")) dump(&c);
    assert_true(has(&c, 9, 13, "no table 'nope'"));
    release(&c);
    c = compile_two(table_text, false, with_lookup("{table: tx, capture: zz}"));
    assert_true(has(&c, 9, 13, "no capture 'zz'"));
    release(&c);
    c = compile_two(table_text, false, with_lookup("{table: tx, capture: req, only: {class: cuda_oom}}"));
    assert_true(has(&c, 9, 13, "no row holds that value"));
    release(&c);
    c = compile_two(table_text, false, with_lookup("{table: tx, capture: req, only: {colour: x}}"));
    assert_true(has(&c, 9, 13, "no such column"));
    release(&c);
    /* only becomes the signal's where */
    c = compile_two(table_text, false, with_lookup("{table: tx, capture: req, only: {class: [gpu_ecc_error, gpu_fallen_off_bus]}}"));
    assert_int_equal(c.st, LDX_OK);
    const ldx_rule_info *ri = ldx_ruleset_rule(c.rs, 0);
    assert_string_equal(ri->signals[0].where, "req == 79 or req == 48");
    release(&c);

    /* a user's table of the built-in one's name replaces it; two of a user's clash */
    char other[sizeof table_text + 16];
    snprintf(other, sizeof other, "%s", table_text);
    memcpy(strstr(other, "title: T"), "title: U", 8);
    c = compile_two(table_text, true, other);
    assert_int_equal(c.st, LDX_OK);
    assert_string_equal(ldx_ruleset_find_table(c.rs, "tx")->title, "U");
    assert_int_equal(ldx_ruleset_table_count(c.rs), 1);
    release(&c);
    c = compile_two(table_text, false, other);
    assert_true(has(&c, 1, 1, "duplicate table 'tx'"));
    release(&c);
}

static void test_builtin_rules_compile(void **state)
{
    (void)state;
    ldx_msgs *m;
    ldx_msgs_create(&m);
    ldx_compiler *comp;
    ldx_compiler_create(&comp, m);
    ldx_compiler_add_builtin(comp);
    ldx_ruleset *rs;
    ldx_status st = ldx_compiler_finish(comp, &rs);
    ldx_compiler_destroy(comp);
    char buf[512];
    for (size_t i = 0; i < ldx_msgs_count(m); i++) {
        ldx_msg_format(ldx_msgs_get(m, i), buf, sizeof buf);
        print_message("  %s\n", buf);
    }
    assert_int_equal(st, LDX_OK);
    assert_true(ldx_ruleset_count(rs) >= 17);
    assert_true(ldx_taxonomy_count() >= 50);
    ldx_ruleset_destroy(rs);
    ldx_msgs_destroy(m);
}

/* good with another id, written to dir/name */
static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void write_rule(const char *dir, const char *name, const char *id)
{
    char text[sizeof good + 64];
    snprintf(text, sizeof text, "id: %s%s", id, strchr(good, '\n')); /* good's first line is its id */
    write_file(dir, name, text);
}

static size_t count_msgs(ldx_msgs *m, const char *what)
{
    size_t n = 0;
    for (size_t i = 0; i < ldx_msgs_count(m); i++) n += strstr(ldx_msgs_get(m, i)->text, what) != NULL;
    return n;
}

/* Ids across rule files on disk: one file reached by two paths (its folder and itself,
 * a link to it) is one rule; two files with one id are an error however many come; a
 * user rule replaces a built-in one whichever comes first. */
static void test_ids_across_files(void **state)
{
    (void)state;
    char root[] = "/tmp/logdx-ids-XXXXXX";
    assert_non_null(mkdtemp(root));
    char a[600], b[600], c[600], path[700], link[700];
    snprintf(a, sizeof a, "%s/a", root);
    snprintf(b, sizeof b, "%s/b", root);
    snprintf(c, sizeof c, "%s/c", root);
    assert_int_equal(mkdir(a, 0755), 0);
    assert_int_equal(mkdir(b, 0755), 0);
    assert_int_equal(mkdir(c, 0755), 0);
    write_rule(a, "test-one.yaml", "test-one");
    write_rule(a, "test-two.yaml", "test-two");
    snprintf(path, sizeof path, "%s/test-two.yaml", a);
    snprintf(link, sizeof link, "%s/test-two.yaml", b);
    assert_int_equal(symlink(path, link), 0); /* b/test-two.yaml -> a/test-two.yaml */
    write_rule(c, "test-one.yaml", "test-one"); /* another file, the same id */
    write_rule(c, "test-oom.yaml", "test-oom"); /* a built-in's id */

    ldx_msgs *m;
    ldx_compiler *comp;
    ldx_ruleset *rs;
    assert_int_equal(ldx_msgs_create(&m), LDX_OK);
    assert_int_equal(ldx_compiler_create(&comp, m), LDX_OK);
    assert_int_equal(ldx_compiler_add_path(comp, a), LDX_OK);
    snprintf(path, sizeof path, "%s/test-one.yaml", a);
    assert_int_equal(ldx_compiler_add_path(comp, path), LDX_OK); /* again, by itself */
    assert_int_equal(ldx_compiler_add_path(comp, b), LDX_OK);    /* again, by a link */
    assert_int_equal(ldx_compiler_finish(comp, &rs), LDX_OK);
    ldx_compiler_destroy(comp);
    assert_int_equal(ldx_ruleset_count(rs), 2);
    assert_int_equal(count_msgs(m, "duplicate"), 0);
    ldx_ruleset_destroy(rs);
    ldx_msgs_destroy(m);

    /* c's test-one clashes with a's, both before and after it; c's test-oom replaces the
     * built-in one added after it */
    assert_int_equal(ldx_msgs_create(&m), LDX_OK);
    assert_int_equal(ldx_compiler_create(&comp, m), LDX_OK);
    assert_int_equal(ldx_compiler_add_path(comp, c), LDX_OK);
    assert_int_equal(ldx_compiler_add_path(comp, a), LDX_OK);
    ldx_compiler_add_buffer(comp, "builtin/test-oom.yaml", good, strlen(good), true);
    assert_int_equal(ldx_compiler_finish(comp, &rs), LDX_ERULE);
    ldx_compiler_destroy(comp);
    assert_int_equal(count_msgs(m, "duplicate rule id 'test-one'"), 1);
    assert_int_equal(ldx_ruleset_count(rs), 3); /* test-one (c's), test-two, test-oom (c's) */
    const ldx_rule_info *one = ldx_ruleset_rule(rs, (size_t)ldx_ruleset_find(rs, "test-one"));
    assert_non_null(strstr(one->path, "/c/"));
    assert_false(ldx_ruleset_rule(rs, (size_t)ldx_ruleset_find(rs, "test-oom"))->builtin);
    ldx_ruleset_destroy(rs);
    ldx_msgs_destroy(m);

    /* a built-in rule, a user rule that replaces it, another user rule with its id: the
     * third meets the second, the first being out */
    char d[600];
    snprintf(d, sizeof d, "%s/d", root);
    assert_int_equal(mkdir(d, 0755), 0);
    write_rule(d, "test-oom.yaml", "test-oom");
    assert_int_equal(ldx_msgs_create(&m), LDX_OK);
    assert_int_equal(ldx_compiler_create(&comp, m), LDX_OK);
    ldx_compiler_add_buffer(comp, "builtin/test-oom.yaml", good, strlen(good), true);
    snprintf(path, sizeof path, "%s/test-oom.yaml", c);
    assert_int_equal(ldx_compiler_add_path(comp, path), LDX_OK);
    assert_int_equal(ldx_compiler_add_path(comp, d), LDX_OK);
    assert_int_equal(ldx_compiler_finish(comp, &rs), LDX_ERULE);
    ldx_compiler_destroy(comp);
    assert_int_equal(count_msgs(m, "duplicate rule id 'test-oom' (also in /tmp/logdx-ids-"), 1);
    assert_int_equal(ldx_ruleset_count(rs), 1);
    assert_non_null(strstr(ldx_ruleset_rule(rs, 0)->path, "/c/"));
    ldx_ruleset_destroy(rs);
    ldx_msgs_destroy(m);

    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
}

/* A rule like good whose oom signal has the given pattern (YAML single-quoted). */
static void rule_calling(char *out, size_t size, const char *id, const char *pattern)
{
    const char *sig = strstr(good, "  oom:\n"), *cap = strstr(good, "  cap:\n");
    const char *cond = strstr(good, "condition:"), *after = strchr(cond, '\n') + 1;
    snprintf(out, size, "id: %s\n%.*s  oom:\n    pattern: '%s'\n%.*s%s", id,
             (int)(sig - strchr(good, '\n') - 1), strchr(good, '\n') + 1, pattern,
             (int)(cond - cap), cap, after);
}

static const char frag_step[] =
    "fragment: step_no\n"
    "title: a step counter\n"
    "pattern: 'step \\d+'\n"
    "examples:\n"
    "  match: ['step 12']\n"
    "  no_match: ['stop 12']\n";

/* Fragments: a call is written out before anything reads the pattern; the built-in ones
 * are there for user rules; a folder's fragments/ is read before its rules; every
 * mistake is reported where it is. */
static void test_fragments(void **state)
{
    (void)state;
    char r1[2048], r2[2048], r3[2048];
    rule_calling(r1, sizeof r1, "test-frag", "CUDA out of memory (?&step_no) [(?&x)] \\(?&x\\)");
    rule_calling(r2, sizeof r2, "test-own", "(?<g>CUDA) out of memory(?&g)?");
    rule_calling(r3, sizeof r3, "test-builtin", "CUDA out of memory in (?!(?&run_process))\\w+");
    const char *names[] = {"user/fragments/step_no.yaml", "user/test-frag.yaml", "user/test-own.yaml",
                           "user/test-builtin.yaml"};
    const char *texts[] = {frag_step, r1, r2, r3};
    compiled c = compile_n(names, texts, NULL, 4);
    assert_int_equal(c.st, LDX_OK);
    const ldx_rule_info *ri = ldx_ruleset_rule(c.rs, (size_t)ldx_ruleset_find(c.rs, "test-frag"));
    assert_string_equal(ri->signals[0].pattern, "CUDA out of memory (?:step \\d+) [(?&x)] \\(?&x\\)");
    ri = ldx_ruleset_rule(c.rs, (size_t)ldx_ruleset_find(c.rs, "test-own"));
    assert_string_equal(ri->signals[0].pattern, "(?<g>CUDA) out of memory(?&g)?");
    ri = ldx_ruleset_rule(c.rs, (size_t)ldx_ruleset_find(c.rs, "test-builtin"));
    assert_non_null(strstr(ri->signals[0].pattern, "(?!(?:python|pt_|"));
    release(&c);

    /* mistakes: an unknown name (at its column), a capture, an example that fails, a
     * second user fragment of one name, a fragment calling another */
    char bad[2048];
    rule_calling(bad, sizeof bad, "test-unknown", "CUDA out of memory (?&no_such)");
    const char *dup = "fragment: step_no\ntitle: t\npattern: 'step'\nexamples: {match: [step], no_match: [x]}\n";
    const char *capf = "fragment: cap\ntitle: t\npattern: '(step)'\nexamples: {match: [step], no_match: [x]}\n";
    const char *exf = "fragment: ex\ntitle: t\npattern: 'step'\nexamples: {match: [stop], no_match: [step]}\n";
    const char *callf = "fragment: call\ntitle: t\npattern: 'a(?&step_no)'\nexamples: {match: [astep 1], no_match: [x]}\n";
    const char *bnames[] = {"u/fragments/step_no.yaml", "u/fragments/dup.yaml", "u/fragments/cap.yaml",
                            "u/fragments/ex.yaml", "u/fragments/call.yaml", "u/test-unknown.yaml"};
    const char *btexts[] = {frag_step, dup, capf, exf, callf, bad};
    c = compile_n(bnames, btexts, NULL, 6);
    assert_int_equal(c.st, LDX_ERULE);
    assert_int_equal(count_msgs(c.msgs, "fragment 'step_no' is already defined in u/fragments/step_no.yaml"), 1);
    assert_int_equal(count_msgs(c.msgs, "holds no capturing group"), 1);
    assert_int_equal(count_msgs(c.msgs, "fragment example does not match: 'stop'"), 1);
    assert_int_equal(count_msgs(c.msgs, "fragment example matches: 'step'"), 1);
    assert_int_equal(count_msgs(c.msgs, "cannot call another fragment"), 1);
    size_t unknown = 0;
    for (size_t i = 0; i < ldx_msgs_count(c.msgs); i++) {
        const ldx_msg *mm = ldx_msgs_get(c.msgs, i);
        if (!strstr(mm->text, "(?&no_such) names no fragment")) continue;
        unknown++;
        assert_int_equal(mm->line, 8);
        assert_int_equal(mm->col, 37); /* the name: 14 columns of "    pattern: '", then 22 of "CUDA out of memory (?&" */
    }
    assert_int_equal(unknown, 1);
    release(&c);

    /* a folder: its fragments/ first, though "a-rule.yaml" comes before it */
    char root[] = "/tmp/logdx-frag-XXXXXX", path[700];
    assert_non_null(mkdtemp(root));
    snprintf(path, sizeof path, "%s/fragments", root);
    assert_int_equal(mkdir(path, 0755), 0);
    write_file(root, "fragments/step_no.yaml", frag_step);
    rule_calling(r1, sizeof r1, "a-rule", "CUDA out of memory (?&step_no)");
    write_file(root, "a-rule.yaml", r1);
    ldx_msgs *m;
    ldx_compiler *comp;
    ldx_ruleset *rs;
    assert_int_equal(ldx_msgs_create(&m), LDX_OK);
    assert_int_equal(ldx_compiler_create(&comp, m), LDX_OK);
    assert_int_equal(ldx_compiler_add_path(comp, root), LDX_OK);
    assert_int_equal(ldx_compiler_finish(comp, &rs), LDX_OK);
    ldx_compiler_destroy(comp);
    assert_int_equal(ldx_ruleset_count(rs), 1);
    assert_string_equal(ldx_ruleset_rule(rs, 0)->signals[0].pattern, "CUDA out of memory (?:step \\d+)");
    ldx_ruleset_destroy(rs);
    ldx_msgs_destroy(m);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_rule),
        cmocka_unit_test(test_every_problem_reported),
        cmocka_unit_test(test_condition_error_column),
        cmocka_unit_test(test_where_error_column),
        cmocka_unit_test(test_yaml_syntax_and_aliases),
        cmocka_unit_test(test_duplicates_and_references),
        cmocka_unit_test(test_ids_across_files),
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_builtin_rules_compile),
        cmocka_unit_test(test_fragments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
