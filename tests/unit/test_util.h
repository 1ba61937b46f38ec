/* Shared by the cmocka unit tests. */
#ifndef LDX_TEST_UTIL_H
#define LDX_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logdx/logdx.h"

/* Scans a log given as text with scanner s and diagnoses it (s keeps what it saw). */
static inline ldx_file_report *analyze_with(ldx_scanner *s, const char *log)
{
    ldx_reader *r;
    assert_int_equal(ldx_reader_open_mem(&r, log, strlen(log), "t.log"), LDX_OK);
    ldx_file_report *fr = NULL;
    assert_int_equal(ldx_analyze(s, r, &fr), LDX_OK);
    ldx_reader_destroy(r);
    return fr;
}

/* The same with a scanner of its own for the ruleset. */
static inline ldx_file_report *analyze_text(const ldx_ruleset *rs, const char *log)
{
    ldx_scanner *s;
    assert_int_equal(ldx_scanner_create(&s, rs), LDX_OK);
    ldx_file_report *fr = analyze_with(s, log);
    ldx_scanner_destroy(s);
    return fr;
}

/* Compiles n rule files' texts (of lens[i] bytes; lens NULL: strings; none: the
 * built-in rules) for an engine (NULL: the
 * default one; "pcre2": PCRE2 alone), never through the database cache; with anchors,
 * the prefilter keeps the patterns' anchors (LOGDX_PREFILTER_ANCHORS, for the tests that
 * show what the database check does about them). errors (if given) gets the messages,
 * one a line. NULL when they do not compile. */
static inline ldx_ruleset *compile_rule_texts(const char *const *names, const char *const *texts,
                                              const size_t *lens, size_t n, const char *engine, bool anchors,
                                              char *errors, size_t errsize)
{
    if (engine) setenv("LOGDX_ENGINE", engine, 1);
    else unsetenv("LOGDX_ENGINE");
    if (anchors) setenv("LOGDX_PREFILTER_ANCHORS", "1", 1);
    setenv("LOGDX_NO_CACHE", "1", 1);
    ldx_msgs *m;
    ldx_compiler *c;
    ldx_ruleset *rs = NULL;
    assert_int_equal(ldx_msgs_create(&m), LDX_OK);
    assert_int_equal(ldx_compiler_create(&c, m), LDX_OK);
    for (size_t i = 0; i < n; i++)
        ldx_compiler_add_buffer(c, names[i], texts[i], lens ? lens[i] : strlen(texts[i]), false);
    if (!n) ldx_compiler_add_builtin(c);
    ldx_status st = ldx_compiler_finish(c, &rs);
    size_t used = 0;
    if (errors) errors[0] = 0;
    for (size_t i = 0; errors && i < ldx_msgs_count(m); i++) {
        char buf[512];
        ldx_msg_format(ldx_msgs_get(m, i), buf, sizeof buf);
        if (used < errsize) used += (size_t)snprintf(errors + used, errsize - used, "%s\n", buf);
    }
    ldx_compiler_destroy(c);
    ldx_msgs_destroy(m);
    unsetenv("LOGDX_ENGINE");
    unsetenv("LOGDX_PREFILTER_ANCHORS");
    unsetenv("LOGDX_NO_CACHE");
    if (st != LDX_OK) {
        ldx_ruleset_destroy(rs);
        return NULL;
    }
    return rs;
}

/* One rule file's text (NULL: the built-in rules), as compile_rule_texts(). */
static inline ldx_ruleset *compile_rules(const char *text, size_t len, const char *engine,
                                         bool anchors, char *errors, size_t errsize)
{
    const char *name = "t.yaml";
    return compile_rule_texts(&name, &text, &len, text ? 1 : 0, engine, anchors, errors, errsize);
}

#endif
