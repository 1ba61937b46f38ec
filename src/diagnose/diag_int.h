/* Shared by the diagnosis's files. Never installed. */
#ifndef LDX_DIAGNOSE_DIAG_INT_H
#define LDX_DIAGNOSE_DIAG_INT_H

#include "logdx/diagnose.h"
#include "env.h"

void ldxi_evidence_free(ldx_evidence *e);
/* d's action: the strongest any of its evidence lines' codes asks for (none: zeroed). */
void ldxi_choose_action(ldx_diagnosis *d);

/* The class of the diagnosis that no rule names: a run that plainly failed. */
#define LDXI_UNCLASSIFIED "unclassified_failure"

/* Settles d[u], the diagnosis of an unclassified_failure rule, against the fired
 * diagnoses d[0..n) of other classes (rules[] parallel): picks the first failure the log
 * shows that none of them explains (an uncaught exception with its innermost frame
 * outside libraries, a terminate, a fatal signal, a non-zero exit), and makes it d[u]'s
 * line and evidence. False when there is none: d[u] is to be dropped. */
bool ldxi_unclassified_settle(ldx_scanner *s, size_t u, ldx_diagnosis *d,
                              const ldxi_rule *const *rules, size_t n, uint64_t lines,
                              const ldx_launcher_info *launcher);

/* Capture k of signal sc was just added to e as e->caps[e->ncaps - 1]: when it is the
 * capture the signal looks up in a code table, e keeps the table and the code's row. */
void ldxi_evidence_code(ldx_evidence *e, const ldxi_sigc *sc, size_t k);

#endif
