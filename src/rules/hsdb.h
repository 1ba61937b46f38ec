/* The multi-pattern prefilter database of a ruleset (Vectorscan). Every signal pattern
 * goes in, in prefilter mode (a superset of what the PCRE2 pattern matches, so nothing
 * is lost), plus a few patterns that tell the scanner which lines to hand to its
 * structure readers (launcher summaries, version banners). PCRE2 confirms each hit;
 * a pattern Vectorscan cannot take at all is matched with PCRE2 on every line. */
#ifndef LDX_RULES_HSDB_H
#define LDX_RULES_HSDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t rule, sig;
} ldxi_sigref;

enum { LDXI_HS_LAUNCHER = 0, LDXI_HS_VERSIONS, LDXI_HS_NSPECIAL };

typedef struct ldxi_hsdb {
    void *db;               /* hs_database_t */
    ldxi_sigref *ids;       /* id -> signal, for ids below nsig */
    uint32_t nsig;          /* ids from nsig on are the LDXI_HS_* specials */
    ldxi_sigref *always;    /* signals matched with PCRE2 on every line, in order */
    size_t nalways;
    bool embedded;          /* deserialized from the build-time database */
} ldxi_hsdb;

struct ldx_ruleset;
struct ldx_msgs;

/* Builds rs->hs (NULL where Vectorscan is not built in or LOGDX_ENGINE=pcre2). Uses the
 * database serialized at build time when the ruleset is exactly the built-in one. */
void ldxi_hsdb_build(struct ldx_ruleset *rs, struct ldx_msgs *msgs);
void ldxi_hsdb_free(ldxi_hsdb *h);
/* Serializes rs's database with its fingerprint (for the build-time tool). */
bool ldxi_hsdb_serialize(const struct ldx_ruleset *rs, char **out, size_t *len);

#endif
