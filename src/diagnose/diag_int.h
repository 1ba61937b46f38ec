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

/* Settles the diagnosis u of an unclassified_failure rule r against the other fired
 * diagnoses d[0..n) (u not among them): picks the first failure the log shows that no
 * other rule explains (an uncaught exception with its innermost frame outside
 * libraries, a terminate, a fatal signal, a non-zero exit), and makes it u's line and
 * evidence. False when there is none: u is to be dropped. */
bool ldxi_unclassified_settle(ldx_scanner *s, const ldxi_rule *r, ldx_diagnosis *u,
                              const ldx_diagnosis *d, const ldxi_rule *const *rules, size_t n,
                              uint64_t lines, const ldx_launcher_info *launcher);

#endif
