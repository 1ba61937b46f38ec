/* --redact: replaces what identifies people and machines in a report with stable
 * placeholders (host-1, ip-1, user-1, token-1, email-1), so it can be pasted into a
 * public issue while still showing which lines came from the same host.
 *
 * Precise rather than greedy: a log is full of dotted Python names, C++ namespaces,
 * versions and times that look like host names or addresses, and a report whose
 * evidence is mangled is worse than useless. What is recognised, in this order (at one
 * position the first kind listed wins; the leftmost match wins over all):
 *
 *   token  hf_..., ghp_/gho_/ghu_/ghs_/ghr_..., github_pat_..., glpat-... (GitLab),
 *          npm_... (36), a 40-hex W&B API key after "wandb", sk-... (20+ chars),
 *          AKIA/ASIA + 16 (AWS access key ids), xox?-... (Slack), JWTs (eyJ...x.y.z),
 *          the value after "Bearer ", the value after KEY= or KEY: where KEY ends in
 *          token, secret, password, passwd, api_key, apikey or access_key (8+ chars of
 *          [A-Za-z0-9_.~+/=-] with a digit in them), a password in a URL (://u:PW@)
 *   email  name@domain.tld
 *   host   EC2 names ip-10-0-0-1[.domain]; Slurm "*** JOB n ON X", "srun: error: X: task",
 *          NodeList=X; "host: X", "hostname=X", "node: X", "on host X" (X with a
 *          letter, not localhost); names ending in an internal suffix (.internal .local
 *          .localdomain .lan .corp .intra .intranet .svc) that have a digit or '-'; names of
 *          3+ labels under com/net/org/io/edu/gov/ai/cloud/dev whose first label has a
 *          digit (node01.cluster.example.com, s3.amazonaws.com); cluster node names
 *          (lowercase, optional prefix-) node01, node-12, nid001234, compute-3, worker-0;
 *          and names by their role, whatever their shape: the value of MASTER_ADDR= or
 *          --master_addr (gpu-a100-03), the host that opens an NCCL line (dgx-h100-17:123:456
 *          [0] NCCL ...), a Kubernetes pod (pod/trainer-7f9c-x2, Pod "trainer-0")
 *   ip     IPv4 (not 127.x.x.x nor 0.0.0.0), IPv6 in full (8 groups) or compressed with
 *          "::" and a 4-digit first group (fe80::1, 2001:db8::7)
 *   user   the directory after /home/, /Users/, /users/, /homes/, /scratch/ (anywhere
 *          in a path: /gpfs/home/alice too) and C:\Users\, the value of USER=,
 *          LOGNAME=, SLURM_JOB_USER=, and "root" in /root/...
 *
 * Host names the report names in fields (an evidence line's host, the launcher's host)
 * become placeholders too, and every later whole-word occurrence of a host name already
 * seen in this run is replaced wherever it stands. Text that is already a placeholder
 * is left alone, so redacting twice changes nothing. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logdx/diagnose.h"
#include "../core/util.h"

typedef enum { K_HOST = 0, K_IP, K_USER, K_TOKEN, K_EMAIL, K_COUNT } kind;

static const char *const kind_names[K_COUNT] = {"host", "ip", "user", "token", "email"};

/* Each alternative starts with a mark naming its kind; \K drops the key before a value. */
static const char pattern[] =
    /* tokens */
    "(*MARK:token)\\bhf_[A-Za-z0-9]{16,}"
    "|(*MARK:token)\\bgh[pousr]_[A-Za-z0-9]{20,}"
    "|(*MARK:token)\\bgithub_pat_\\w{20,}"
    "|(*MARK:token)\\bsk-[A-Za-z0-9_-]{20,}"
    "|(*MARK:token)\\b(?:AKIA|ASIA)[0-9A-Z]{16}\\b"
    "|(*MARK:token)\\bxox[abposr]-[A-Za-z0-9-]{10,}"
    "|(*MARK:token)\\beyJ[\\w-]{8,}\\.[\\w-]{8,}\\.[\\w-]{8,}"
    "|(*MARK:token)(?i:\\bbearer\\s+)\\K[A-Za-z0-9._~+/=-]{8,}"
    "|(*MARK:token)(?i:(?<![\\w-])[\\w-]*(?:token|secret|passw(?:or)?d|api[_-]?key|apikey|access[_-]?key)"
    "[\"']?\\s*[=:]\\s*[\"']?)\\K(?=[A-Za-z0-9_.~+/=-]*\\d)[A-Za-z0-9_.~+/=-]{8,}"
    "|(*MARK:token)(?<=://)[^/\\s:@]+:\\K[^/\\s@]+(?=@)"
    "|(*MARK:token)\\bglpat-[A-Za-z0-9_-]{20,}"
    "|(*MARK:token)\\bnpm_[A-Za-z0-9]{36}\\b"
    "|(*MARK:token)(?i:\\bwandb\\b[^\\n]{0,60}?)\\K(?<![0-9a-f])[0-9a-f]{40}(?![0-9a-f])"
    /* e-mail addresses, before host names take their domain */
    "|(*MARK:email)\\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)*\\.[A-Za-z]{2,}\\b"
    /* host names */
    "|(*MARK:host)\\bip-\\d{1,3}-\\d{1,3}-\\d{1,3}-\\d{1,3}(?:\\.[A-Za-z0-9-]+)*"
    /* names by their role: the rendezvous address (MASTER_ADDR=x, --master_addr x), the host
     * that opens an NCCL line ("dgx-h100-17:2139:2250 [0] NCCL INFO"), a Kubernetes pod */
    "|(*MARK:host)(?:\\bMASTER_ADDR[\"']?\\s*[=:]\\s*[\"']?|--master[_-]addr[= ]\\s*)"
    "\\K(?!localhost\\b|127\\.|\\d+\\.\\d+\\.\\d+\\.\\d+)(?=[\\w.-]*[A-Za-z])[A-Za-z0-9][\\w.-]*"
    "|(*MARK:host)(?:^|(?<=\\]: )|(?<=\\] ))(?!localhost\\b)(?=[\\w.-]*[A-Za-z])[A-Za-z0-9][\\w.-]*"
    "(?=:\\d+:\\d+ \\[\\d+\\] (?:NCCL|RCCL) )"
    "|(*MARK:host)(?:\\bpods?/|\\b[Pp]od[ =:]\\s*[\"']?)\\K(?=[a-z0-9-]*-)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
    "(?![\\w.-])"
    "|(*MARK:host)\\*\\*\\* (?:JOB|STEP) [\\w.]+ ON \\K[A-Za-z0-9][\\w.-]*"
    "|(*MARK:host)\\bsrun: error: \\K[A-Za-z0-9][\\w.-]*(?=: tasks? )"
    "|(*MARK:host)(?i:node_?list\\s*[=:]\\s*)\\K[A-Za-z0-9][\\w.\\[\\],-]*"
    "|(*MARK:host)(?i:\\b(?:host(?:name)?|node(?:name)?)\\s*[:=]\\s*|\\bon host )"
    "\\K(?!localhost\\b)(?=[\\w.-]*[A-Za-z])[A-Za-z0-9][\\w.-]*"
    "|(*MARK:host)(?i:\\b(?=[a-z0-9.-]*[0-9-])[a-z0-9](?:[a-z0-9-]*[a-z0-9])?"
    "(?:\\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*"
    "\\.(?:internal|local|localdomain|lan|corp|intra|intranet|svc))\\b(?![.-]\\w)"
    "|(*MARK:host)(?i:\\b[a-z][a-z0-9-]*\\d[a-z0-9-]*(?:\\.[a-z0-9-]+)+"
    "\\.(?:com|net|org|io|edu|gov|ai|cloud|dev))\\b(?![.-]\\w)"
    "|(*MARK:host)\\b(?:[a-z][a-z0-9]*-)*(?:node-?\\d+|nid\\d{4,}|compute-\\d+|worker-\\d+)"
    "(?:-[a-z0-9]+)*\\b(?!-)"
    /* addresses */
    "|(*MARK:ip)(?<![\\w.])(?!127\\.|0\\.0\\.0\\.0)(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}"
    "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(?!\\w|\\.\\d)"
    /* a full IPv6 address may follow a word ("remoteGidsfd00:..." in NCCL's IB lines) */
    "|(*MARK:ip)(?<![0-9A-Fa-f:.])(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}(?![\\w:])"
    "|(*MARK:ip)(?<![\\w.])[0-9A-Fa-f]{4}:(?:[0-9A-Fa-f]{1,4}:){0,5}:(?:[0-9A-Fa-f]{1,4}:){0,5}"
    "[0-9A-Fa-f]{1,4}(?![\\w:])"
    /* user names */
    "|(*MARK:user)(?:/home|/Users|/users|/homes|/scratch)/\\K[A-Za-z_][\\w.-]{0,31}(?![\\w.-])"
    "|(*MARK:user)(?i:\\b[a-z]:\\\\Users\\\\)\\K[A-Za-z_][\\w.-]{0,31}(?![\\w.-])"
    "|(*MARK:user)\\b(?:USER|LOGNAME|SLURM_JOB_USER)=\\K[A-Za-z_][\\w.-]{0,31}(?![\\w.-])"
    /* root's home, which names the account as /home/x does */
    "|(*MARK:user)(?<![\\w.~-])/\\Kroot(?=/)";

typedef struct {
    char *key;
    size_t klen;
    kind k;
    char ph[24];
} entry;

struct ldx_redactor {
    pcre2_code *re;
    pcre2_match_data *md;
    entry *v;            /* in order of first appearance: the host pass relies on it */
    size_t n, cap;
    size_t *slots;       /* open addressing over v, index + 1; 0 is empty */
    size_t nslots;
    unsigned count[K_COUNT];
};

static size_t hash(kind k, const char *s, size_t len)
{
    size_t h = 1469598103934665603ull ^ (size_t)k;
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static ldx_status rehash(ldx_redactor *rd, size_t nslots)
{
    size_t *s = calloc(nslots, sizeof(*s));
    if (!s) return LDX_ENOMEM;
    for (size_t i = 0; i < rd->n; i++) {
        size_t h = hash(rd->v[i].k, rd->v[i].key, rd->v[i].klen) & (nslots - 1);
        while (s[h]) h = (h + 1) & (nslots - 1);
        s[h] = i + 1;
    }
    free(rd->slots);
    rd->slots = s;
    rd->nslots = nslots;
    return LDX_OK;
}

ldx_status ldx_redactor_create(ldx_redactor **out)
{
    *out = NULL;
    ldx_redactor *rd = calloc(1, sizeof(*rd));
    if (!rd) return LDX_ENOMEM;
    int err;
    PCRE2_SIZE off;
    rd->re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &err, &off, NULL);
    if (!rd->re) {
        /* the pattern is fixed: failing here is a bug, say where */
        PCRE2_UCHAR msg[128];
        pcre2_get_error_message(err, msg, sizeof msg);
        fprintf(stderr, "logdx: redaction pattern, offset %zu: %s\n", (size_t)off, (char *)msg);
        free(rd);
        return LDX_EINVAL;
    }
    (void)pcre2_jit_compile(rd->re, PCRE2_JIT_COMPLETE); /* without JIT it still works */
    rd->md = pcre2_match_data_create_from_pattern(rd->re, NULL);
    if (!rd->md || rehash(rd, 64) != LDX_OK) {
        ldx_redactor_destroy(rd);
        return LDX_ENOMEM;
    }
    *out = rd;
    return LDX_OK;
}

void ldx_redactor_destroy(ldx_redactor *rd)
{
    if (!rd) return;
    for (size_t i = 0; i < rd->n; i++) free(rd->v[i].key);
    free(rd->v);
    free(rd->slots);
    pcre2_match_data_free(rd->md);
    pcre2_code_free(rd->re);
    free(rd);
}

/* "host-3" and the like: already redacted, keep as is. */
static bool is_placeholder(const char *s, size_t len)
{
    for (int k = 0; k < K_COUNT; k++) {
        size_t kl = strlen(kind_names[k]);
        if (len < kl + 2 || memcmp(s, kind_names[k], kl) != 0 || s[kl] != '-') continue;
        size_t i = kl + 1;
        while (i < len && s[i] >= '0' && s[i] <= '9') i++;
        if (i == len) return true;
    }
    return false;
}

/* The placeholder of s[0..len) as kind k, made on first sight; NULL when out of memory. */
static const char *placeholder(ldx_redactor *rd, kind k, const char *s, size_t len)
{
    size_t h = hash(k, s, len) & (rd->nslots - 1);
    while (rd->slots[h]) {
        entry *e = &rd->v[rd->slots[h] - 1];
        if (e->k == k && e->klen == len && !memcmp(e->key, s, len)) return e->ph;
        h = (h + 1) & (rd->nslots - 1);
    }
    entry e = {.k = k, .key = ldxi_strndup(s, len), .klen = len};
    if (!e.key) return NULL;
    snprintf(e.ph, sizeof e.ph, "%s-%u", kind_names[k], ++rd->count[k]);
    if (LDXI_PUSH(rd->v, rd->n, rd->cap, e) != LDX_OK) {
        free(e.key);
        return NULL;
    }
    if (rd->n * 10 > rd->nslots * 7) {
        if (rehash(rd, rd->nslots * 2) != LDX_OK) {
            free(rd->v[--rd->n].key);
            return NULL;
        }
    } else {
        rd->slots[h] = rd->n;
    }
    return rd->v[rd->n - 1].ph;
}

static kind kind_of_mark(PCRE2_SPTR mark)
{
    for (int k = 0; mark && k < K_COUNT; k++)
        if (!strcmp((const char *)mark, kind_names[k])) return (kind)k;
    return K_TOKEN; /* unreachable: every alternative has a mark */
}

/* Pass 1: the patterns. */
static ldx_status redact_patterns(ldx_redactor *rd, const char *text, ldx_buf *out)
{
    size_t len = strlen(text), pos = 0, from = 0;
    while (from <= len) {
        int rc = pcre2_match(rd->re, (PCRE2_SPTR)text, len, from, 0, rd->md, NULL);
        if (rc < 0) break; /* no match, or a matching limit: keep the rest as it is */
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(rd->md);
        size_t s = ov[0], e = ov[1];
        if (e <= s || s < pos) { /* empty or odd (\K in a lookbehind): step over */
            from = (e > from ? e : from) + 1;
            continue;
        }
        if (!is_placeholder(text + s, e - s)) {
            const char *ph = placeholder(rd, kind_of_mark(pcre2_get_mark(rd->md)), text + s, e - s);
            if (!ph) return LDX_ENOMEM;
            LDX_TRY(ldxi_buf_append(out, text + pos, s - pos));
            LDX_TRY(ldxi_buf_append(out, ph, strlen(ph)));
            pos = e;
        }
        from = e;
    }
    return ldxi_buf_append(out, text + pos, len - pos);
}

static bool host_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '_';
}

/* Pass 2: whole-word occurrences of host names seen so far in this run. */
static ldx_status redact_known_hosts(ldx_redactor *rd, char **text)
{
    for (size_t i = 0; i < rd->n; i++) {
        const entry *e = &rd->v[i];
        size_t kl = e->klen;
        if (e->k != K_HOST || kl < 3) continue;
        const char *t = *text, *p = strstr(t, e->key);
        if (!p) continue;
        ldx_buf b;
        ldxi_buf_init(&b, (size_t)1 << 30);
        size_t pos = 0;
        ldx_status st = LDX_OK;
        for (; p && st == LDX_OK; p = strstr(p + 1, e->key)) {
            size_t s = (size_t)(p - t), end = s + kl;
            if (s < pos) continue;
            bool before = s > 0 && (host_char(t[s - 1]) || t[s - 1] == '.');
            bool after = host_char(t[end]) || (t[end] == '.' && host_char(t[end + 1]));
            if (before || after) continue;
            st = ldxi_buf_append(&b, t + pos, s - pos);
            if (st == LDX_OK) st = ldxi_buf_append(&b, e->ph, strlen(e->ph));
            pos = end;
        }
        if (st == LDX_OK) st = ldxi_buf_append(&b, t + pos, strlen(t + pos));
        if (st != LDX_OK) {
            ldxi_buf_free(&b);
            return st;
        }
        free(*text);
        *text = b.data;
    }
    return LDX_OK;
}

ldx_status ldx_redact_text(ldx_redactor *rd, const char *text, char **out)
{
    *out = NULL;
    ldx_buf b;
    ldxi_buf_init(&b, (size_t)1 << 30);
    ldx_status st = redact_patterns(rd, text, &b);
    if (st == LDX_OK && !b.data) st = ldxi_buf_append(&b, "", 0);
    if (st == LDX_OK) st = redact_known_hosts(rd, &b.data);
    if (st != LDX_OK) {
        ldxi_buf_free(&b);
        return st;
    }
    *out = b.data;
    return LDX_OK;
}

/* A host field (an evidence line's, the launcher's): an address or a name as a whole. */
/* A host field: the placeholder for its name (or address); *host is replaced. */
static ldx_status redact_host_field(ldx_redactor *rd, char **hostp)
{
    const char *host = *hostp;
    size_t len = host ? strlen(host) : 0;
    if (!len || is_placeholder(host, len) || !strcmp(host, "localhost")) return LDX_OK;
    bool addr = true;
    for (size_t i = 0; i < len; i++)
        if (!strchr("0123456789abcdefABCDEF.:", host[i])) addr = false;
    bool dotted = strchr(host, '.') != NULL, colon = strchr(host, ':') != NULL;
    const char *ph = placeholder(rd, addr && (dotted || colon) ? K_IP : K_HOST, host, len);
    char *copy = ph ? ldxi_strdup(ph) : NULL;
    if (!copy) return LDX_ENOMEM;
    free(*hostp);
    *hostp = copy;
    return LDX_OK;
}

static ldx_status redact_in_place(ldx_redactor *rd, char **s)
{
    if (!*s) return LDX_OK;
    char *r;
    LDX_TRY(ldx_redact_text(rd, *s, &r));
    free(*s);
    *s = r;
    return LDX_OK;
}

/* The messages of a file report carry its path and may quote its lines. */
ldx_status ldx_msgs_redact(ldx_redactor *rd, ldx_msgs **m)
{
    if (!*m || !ldx_msgs_count(*m)) return LDX_OK;
    ldx_msgs *n;
    LDX_TRY(ldx_msgs_create(&n));
    ldx_status st = LDX_OK;
    for (size_t i = 0; i < ldx_msgs_count(*m) && st == LDX_OK; i++) {
        const ldx_msg *msg = ldx_msgs_get(*m, i);
        char *path = NULL, *text = NULL;
        if (msg->path) st = ldx_redact_text(rd, msg->path, &path);
        if (st == LDX_OK) st = ldx_redact_text(rd, msg->text, &text);
        if (st == LDX_OK) ldx_msgs_add(n, msg->level, path, msg->line, msg->col, "%s", text);
        free(path);
        free(text);
    }
    if (st != LDX_OK) {
        ldx_msgs_destroy(n);
        return st;
    }
    ldx_msgs_destroy(*m);
    *m = n;
    return LDX_OK;
}

ldx_status ldx_file_report_redact(ldx_file_report *fr, ldx_redactor *rd)
{
    /* host fields first, so that pass 2 finds these names anywhere in the text */
    if (fr->launcher.present) LDX_TRY(redact_host_field(rd, (char **)&fr->launcher.host));
    for (size_t i = 0; i < fr->n; i++)
        for (size_t j = 0; j < fr->diagnoses[i].nevidence; j++) {
            ldx_evidence *e = &fr->diagnoses[i].evidence[j];
            LDX_TRY(redact_host_field(rd, &e->host));
        }
    LDX_TRY(redact_in_place(rd, &fr->path));
    LDX_TRY(redact_in_place(rd, &fr->launcher_note));
    for (size_t i = 0; i < fr->n; i++) {
        ldx_diagnosis *d = &fr->diagnoses[i];
        for (size_t j = 0; j < d->nevidence; j++) {
            ldx_evidence *e = &d->evidence[j];
            LDX_TRY(redact_in_place(rd, &e->text));
            for (size_t c = 0; c < e->ncaps; c++) LDX_TRY(redact_in_place(rd, &e->caps[c].value));
        }
    }
    return ldx_msgs_redact(rd, &fr->errors);
}
