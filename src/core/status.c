/* The one status enum's names, and severities by name (core layer): what every layer
 * returns and every message prints. */
#include <string.h>

#include "logdx/core.h"

const char *ldx_status_str(ldx_status s)
{
    switch (s) {
    case LDX_OK: return "ok";
    case LDX_EOF: return "end of input";
    case LDX_ENOMEM: return "out of memory";
    case LDX_EIO: return "input/output error";
    case LDX_EPARSE: return "parse error";
    case LDX_ERULE: return "invalid rule";
    case LDX_EINVAL: return "invalid argument";
    case LDX_ENOTFOUND: return "not found";
    case LDX_ELIMIT: return "limit exceeded";
    }
    return "unknown status";
}

static const char *const sev_names[] = {"info", "low", "medium", "high", "critical"};

const char *ldx_severity_name(ldx_severity s)
{
    if ((unsigned)s > LDX_SEV_CRITICAL) return "?";
    return sev_names[s];
}

int ldx_severity_parse(const char *s)
{
    for (int i = 0; i <= LDX_SEV_CRITICAL; i++)
        if (strcmp(s, sev_names[i]) == 0) return i;
    return -1;
}
