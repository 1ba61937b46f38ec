/* One code table file's YAML tree -> a validated table (or NULL with messages). */
#ifndef LDX_RULES_TABLE_H
#define LDX_RULES_TABLE_H

#include "logdx/rules.h"
#include "yaml.h"

/* Whether a YAML file is a table (it has a top-level 'table' key), not a rule. */
bool ldxi_is_table(const ldxi_ynode *root);
/* Strings go to arena (or stay the tree's with keep_strings). NULL when the table has
 * errors (all reported). */
ldx_table_info *ldxi_table_load(const ldxi_ynode *root, const char *path, bool builtin,
                                bool keep_strings, ldx_arena *arena, ldx_msgs *msgs);

#endif
