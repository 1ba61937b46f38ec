/* What a finished scan says to a rule's condition: the one view of scan state that
 * diagnose.c (does the rule fire?) and explain.c (why, or why not?) share. */
#ifndef LDX_DIAGNOSE_ENV_H
#define LDX_DIAGNOSE_ENV_H

#include "../scan/scan_int.h"

typedef struct {
    const ldx_scanner *s;
    size_t rule;
} ldxi_env_ctx;

/* Fills *env to evaluate rule's condition against s; ctx must outlive env. */
void ldxi_scan_env(const ldx_scanner *s, size_t rule, ldxi_env_ctx *ctx, ldxi_cond_env *env);

/* Whether rule r fires on s: its condition, or without one any symptom signal's hit. */
bool ldxi_rule_fires(const ldx_scanner *s, const ldxi_rule *r);

/* The line of a signal's latest hit; 0 when it has none. */
uint64_t ldxi_sigstate_last_line(const ldxi_sigstate *ss);

#endif
