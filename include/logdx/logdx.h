/* logdx: diagnose why a training run failed, from its log.
 *
 * Layers, lowest first (each header includes only those below it):
 *   core.h      status codes, severities, positioned messages
 *   input.h     files, descriptors, gzip -> numbered lines
 *   rules.h     YAML rules -> compiled, immutable ruleset
 *   scan.h      ruleset x lines -> per-signal evidence
 *   diagnose.h  evidence -> ranked diagnoses (plain data)
 *   report.h    diagnoses -> text, JSON, ...
 */
#ifndef LOGDX_H
#define LOGDX_H

#include "logdx/core.h"
#include "logdx/input.h"
#include "logdx/rules.h"
#include "logdx/scan.h"
#include "logdx/diagnose.h"
#include "logdx/report.h"

#endif
