/* A rule file's YAML as a tree with line and column on every node (rules layer), built
 * from libyaml's events, so that every rule error names file:line:col. See yaml.h. */
#include "yaml.h"

#include <stdlib.h>
#include <string.h>
#include <yaml.h>

typedef struct {
    ldx_arena *arena;
    const char *path;
    ldx_msgs *msgs;
    size_t nodes;
    /* the nodes being built, innermost last, with their growable item arrays */
    struct frame {
        ldxi_ynode *node;
        size_t cap;
    } stack[64];
    int depth;
} builder;

static ldxi_ynode *new_node(builder *b, ldxi_ykind kind, yaml_mark_t mark)
{
    if (++b->nodes > LDXI_YAML_MAX_NODES) return NULL;
    ldxi_ynode *n = ldxi_arena_alloc(b->arena, sizeof(*n));
    if (!n) return NULL;
    memset(n, 0, sizeof(*n));
    n->kind = kind;
    n->line = (unsigned)mark.line + 1;
    n->col = (unsigned)mark.column + 1;
    return n;
}

static ldx_status add_child(builder *b, ldxi_ynode *child)
{
    struct frame *f = &b->stack[b->depth - 1];
    if (f->node->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 8;
        ldxi_ynode **items = ldxi_arena_alloc(b->arena, cap * sizeof(*items));
        if (!items) return LDX_ENOMEM;
        if (f->node->n) memcpy(items, f->node->items, f->node->n * sizeof(*items));
        f->node->items = items;
        f->cap = cap;
    }
    f->node->items[f->node->n++] = child;
    return LDX_OK;
}

static void err(builder *b, yaml_mark_t m, const char *msg)
{
    ldx_msgs_add(b->msgs, LDX_MSG_ERROR, b->path, (unsigned)m.line + 1,
                 (unsigned)m.column + 1, "%s", msg);
}

ldx_status ldxi_yaml_parse(const char *data, size_t len, const char *path, ldx_arena *a,
                           ldxi_ynode **root, ldx_msgs *msgs)
{
    *root = NULL;
    if (len > LDXI_YAML_MAX_BYTES) {
        ldx_msgs_add(msgs, LDX_MSG_ERROR, path, 0, 0,
                     "rule file is %zu bytes; the limit is %zu", len, LDXI_YAML_MAX_BYTES);
        return LDX_ELIMIT;
    }
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) return LDX_ENOMEM;
    yaml_parser_set_input_string(&p, (const unsigned char *)data, len);
    builder b = {.arena = a, .path = path, .msgs = msgs};
    ldx_status st = LDX_OK;
    int docs = 0;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            ldx_msgs_add(msgs, LDX_MSG_ERROR, path, (unsigned)p.problem_mark.line + 1,
                         (unsigned)p.problem_mark.column + 1, "YAML: %s%s%s",
                         p.problem ? p.problem : "syntax error",
                         p.context ? " " : "", p.context ? p.context : "");
            st = LDX_EPARSE;
            break;
        }
        yaml_event_type_t type = ev.type;
        ldxi_ynode *node = NULL;
        switch (type) {
        case YAML_DOCUMENT_START_EVENT:
            if (++docs > 1) {
                err(&b, ev.start_mark, "a rule file holds one YAML document");
                st = LDX_EPARSE;
            }
            break;
        case YAML_ALIAS_EVENT:
            err(&b, ev.start_mark, "YAML aliases are not allowed in rule files");
            st = LDX_EPARSE;
            break;
        case YAML_SCALAR_EVENT:
            node = new_node(&b, LDXI_YSCALAR, ev.start_mark);
            if (!node) break;
            node->str = ldxi_arena_strndup(a, (const char *)ev.data.scalar.value,
                                           ev.data.scalar.length);
            node->len = ev.data.scalar.length;
            node->quoted = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? 0
                           : (ev.data.scalar.style == YAML_LITERAL_SCALAR_STYLE ||
                              ev.data.scalar.style == YAML_FOLDED_SCALAR_STYLE)
                               ? 2
                               : 1;
            if (!node->str) {
                node = NULL;
                break;
            }
            if (node->quoted == 0) {
                /* YAML ends a plain scalar at " #": prose such as "PR #4858" loses its
                 * tail silently; remember it so validation can say so */
                size_t i = ev.end_mark.index;
                while (i < len && (data[i] == ' ' || data[i] == '\t')) i++;
                node->comment_after = i < len && data[i] == '#' && i > ev.end_mark.index;
            }
            break;
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
            node = new_node(&b, type == YAML_SEQUENCE_START_EVENT ? LDXI_YSEQ : LDXI_YMAP,
                            ev.start_mark);
            break;
        default:
            break;
        }
        if (st == LDX_OK && (type == YAML_SCALAR_EVENT || type == YAML_SEQUENCE_START_EVENT ||
                             type == YAML_MAPPING_START_EVENT)) {
            if (!node) {
                if (b.nodes > LDXI_YAML_MAX_NODES) {
                    err(&b, ev.start_mark, "too many YAML nodes in one rule file");
                    st = LDX_ELIMIT;
                } else {
                    st = LDX_ENOMEM;
                }
            } else if (b.depth == 0) {
                *root = node;
            } else {
                st = add_child(&b, node);
            }
            if (st == LDX_OK && type != YAML_SCALAR_EVENT) {
                if (b.depth == (int)(sizeof(b.stack) / sizeof(b.stack[0]))) {
                    err(&b, ev.start_mark, "YAML nested too deeply");
                    st = LDX_ELIMIT;
                } else {
                    b.stack[b.depth].node = node;
                    b.stack[b.depth].cap = 0;
                    b.depth++;
                }
            }
        }
        if (type == YAML_SEQUENCE_END_EVENT || type == YAML_MAPPING_END_EVENT) b.depth--;
        yaml_event_delete(&ev);
        if (st != LDX_OK || type == YAML_STREAM_END_EVENT) break;
    }
    yaml_parser_delete(&p);
    if (st == LDX_OK && !*root) {
        ldx_msgs_add(msgs, LDX_MSG_ERROR, path, 1, 1, "empty rule file");
        st = LDX_EPARSE;
    }
    return st;
}

const ldxi_ynode *ldxi_ymap_get(const ldxi_ynode *map, const char *key)
{
    if (!map || map->kind != LDXI_YMAP) return NULL;
    for (size_t i = 0; i + 1 < map->n; i += 2)
        if (map->items[i]->kind == LDXI_YSCALAR && strcmp(map->items[i]->str, key) == 0)
            return map->items[i + 1];
    return NULL;
}
