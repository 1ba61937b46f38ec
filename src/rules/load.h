/* One rule file's YAML tree -> one validated, compiled rule (or NULL with messages). */
#ifndef LDX_RULES_LOAD_H
#define LDX_RULES_LOAD_H

#include "fragment.h"
#include "ruleset_int.h"
#include "yaml.h"

/* Strings and nodes go to arena; compiled patterns are owned by the rule and freed
 * with ldxi_rule_free(). A pattern's (?&name) calls a fragment of frags. Returns NULL
 * when the rule has errors (all reported). */
ldxi_rule *ldxi_rule_load(const ldxi_ynode *root, const char *path, bool builtin,
                          bool keep_strings, const ldxi_fragments *frags, ldx_arena *arena,
                          ldx_msgs *msgs);
void ldxi_rule_free(ldxi_rule *r);
/* Links the rule's lookups to the tables: each names a table and one of its pattern's
 * captures, and a lookup with only becomes part of its signal's where (the keys whose
 * rows hold the values). Reports every problem; false when there was one. */
bool ldxi_rule_link_tables(ldxi_rule *r, ldx_table_info *const *tables, size_t ntables,
                           ldx_arena *arena, ldx_msgs *msgs);

#endif
