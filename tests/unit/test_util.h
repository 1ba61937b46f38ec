/* Shared by the cmocka unit tests. */
#ifndef LDX_TEST_UTIL_H
#define LDX_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "logdx/logdx.h"

/* Scans a log given as text with a ruleset and diagnoses it. */
static inline ldx_file_report *analyze_text(const ldx_ruleset *rs, const char *log)
{
    ldx_scanner *s;
    assert_int_equal(ldx_scanner_create(&s, rs), LDX_OK);
    ldx_reader *r;
    assert_int_equal(ldx_reader_open_mem(&r, log, strlen(log), "t.log"), LDX_OK);
    ldx_file_report *fr = NULL;
    assert_int_equal(ldx_analyze(s, r, &fr), LDX_OK);
    ldx_reader_destroy(r);
    ldx_scanner_destroy(s);
    return fr;
}

#endif
