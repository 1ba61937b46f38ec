/* One rule file's YAML tree -> one validated, compiled rule (or NULL with messages). */
#ifndef LDX_RULES_LOAD_H
#define LDX_RULES_LOAD_H

#include "ruleset_int.h"
#include "yaml.h"

/* Strings and nodes go to arena; compiled patterns are owned by the rule and freed
 * with ldxi_rule_free(). Returns NULL when the rule has errors (all reported). */
ldxi_rule *ldxi_rule_load(const ldxi_ynode *root, const char *path, bool builtin,
                          bool keep_strings,
                          ldx_arena *arena, ldx_msgs *msgs);
void ldxi_rule_free(ldxi_rule *r);

#endif
