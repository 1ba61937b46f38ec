/* Fuzz target: the rule loader (YAML -> rule -> validation -> compiled ruleset, in
 * src/rules/). The input is one user rule file. Every problem must come back as a
 * message with a position inside the file, never as a crash; a rule that compiles is
 * then run on its own examples, so its condition is evaluated against a real scan and
 * its strings go through every report format. */
#include <string.h>

#include "fuzz.h"
#include "logdx/logdx.h"

static void check_msgs(const ldx_msgs *m, size_t size)
{
    /* a file of n bytes has at most n + 1 lines */
    for (size_t i = 0; i < ldx_msgs_count(m); i++) {
        const ldx_msg *msg = ldx_msgs_get(m, i);
        FUZZ_CHECK(msg && msg->text && msg->text[0]);
        FUZZ_CHECK(msg->line <= size + 1);
        char buf[512];
        ldx_msg_format(msg, buf, sizeof buf);
        FUZZ_CHECK(memchr(buf, '\0', sizeof buf) != NULL);
    }
}

static void check_strv(const ldx_strv *v)
{
    for (size_t i = 0; i < v->n; i++) FUZZ_CHECK(v->v[i] != NULL);
}

static void run_example(ldx_scanner *sc, const char *text)
{
    ldx_reader *r;
    FUZZ_CHECK(ldx_reader_open_mem(&r, text, strlen(text), "example") == LDX_OK);
    ldx_file_report *fr = NULL;
    ldx_status st = ldx_analyze(sc, r, &fr);
    FUZZ_CHECK(st == LDX_OK || st == LDX_ENOMEM);
    if (fr) {
        for (size_t i = 0; i < fr->n; i++) {
            const ldx_diagnosis *d = &fr->diagnoses[i];
            FUZZ_CHECK(d->rule != NULL);
            FUZZ_CHECK(d->confidence >= 0.0 && d->confidence <= 1.0);
        }
        fuzz_render(fr);
    }
    ldx_file_report_destroy(fr);
    ldx_reader_destroy(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* every input compiles its own database: none of them goes to the cache */
    setenv("LOGDX_NO_CACHE", "1", 1);
    ldx_msgs *msgs;
    if (ldx_msgs_create(&msgs) != LDX_OK) return 0;
    ldx_compiler *c;
    if (ldx_compiler_create(&c, msgs) != LDX_OK) {
        ldx_msgs_destroy(msgs);
        return 0;
    }
    ldx_status st = ldx_compiler_add_buffer(c, "fuzz.yaml", (const char *)data, size, false);
    FUZZ_CHECK(st == LDX_OK || st == LDX_ERULE || st == LDX_ELIMIT || st == LDX_ENOMEM);
    FUZZ_CHECK(st == LDX_OK || ldx_msgs_errors(msgs) > 0); /* a refusal says why */
    /* now and then the same text a second time under another name: a duplicate id */
    if (fuzz_hash(data, size) % 8 == 0)
        ldx_compiler_add_buffer(c, "again.yaml", (const char *)data, size, false);
    ldx_ruleset *rs = NULL;
    st = ldx_compiler_finish(c, &rs);
    ldx_compiler_destroy(c);
    FUZZ_CHECK(st == LDX_OK || st == LDX_ERULE || st == LDX_ENOMEM);
    ldx_msgs_sort(msgs);
    check_msgs(msgs, size);

    if (rs) {
        ldx_scanner *sc = NULL;
        for (size_t i = 0; i < ldx_ruleset_count(rs); i++) {
            const ldx_rule_info *ri = ldx_ruleset_rule(rs, i);
            FUZZ_CHECK(ri && ri->id && ri->title && ri->klass && ri->path);
            FUZZ_CHECK(ldx_ruleset_find(rs, ri->id) == (long)i);
            FUZZ_CHECK(ri->nsignals == 0 || ri->signals != NULL);
            for (size_t k = 0; k < ri->nsignals; k++)
                FUZZ_CHECK(ri->signals[k].name && ri->signals[k].pattern);
            check_strv(&ri->tags), check_strv(&ri->fix), check_strv(&ri->verify);
            check_strv(&ri->ex_match), check_strv(&ri->ex_no_match);
            check_strv(&ri->caused_by), check_strv(&ri->related);
        }
        if (ldx_ruleset_count(rs) > 0 && ldx_scanner_create(&sc, rs) == LDX_OK) {
            for (size_t i = 0; i < ldx_ruleset_count(rs); i++) {
                const ldx_rule_info *ri = ldx_ruleset_rule(rs, i);
                for (size_t k = 0; k < ri->ex_match.n; k++) run_example(sc, ri->ex_match.v[k]);
                for (size_t k = 0; k < ri->ex_no_match.n; k++)
                    run_example(sc, ri->ex_no_match.v[k]);
            }
            ldx_scanner_destroy(sc);
        }
        ldx_ruleset_destroy(rs);
    }
    ldx_msgs_destroy(msgs);
    return 0;
}
