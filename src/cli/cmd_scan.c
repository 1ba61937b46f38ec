/* logdx [scan] PATH...: diagnose each input and report.
 *
 * The paths are expanded first (folders walked in sorted order, --include/--exclude
 * applied) into a list of inputs; -j N worker threads, each with its own scanner over
 * the one shared, immutable ruleset, take inputs from the list in order. The main
 * thread reports the results strictly in list order, holding back any that finish
 * early, so the output and exit status are the same for every -j. An input may be an
 * archive holding several logs: it yields one file report per log, and those stream
 * out as its logs are done, so an archive of a million members costs what one report
 * does. A worker ahead of the input being reported holds at most HOLD reports of its
 * own before it waits its turn. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* One input and, once a worker is done with it, what came out. */
typedef struct {
    char *path;               /* "-" for standard input */
    uint64_t size;            /* bytes on disk, for the progress line (0: unknown) */
    ldx_file_report **reports; /* one per log inside, not yet reported: [nout, nreports) */
    size_t nout, nreports, capreports;
    ldx_msgs *errors;         /* problems with the input as a whole: open, damaged archive */
    ldx_status st;            /* LDX_ENOMEM stops everything */
    bool done;
    ldx_input *in;            /* while a worker reads it (under mu): for the progress line */
    uint64_t ordinal;         /* its place among the inputs found, in every shard */
    uint64_t seen;            /* the furthest position read so far */
} task;


typedef struct {
    const ldx_file_report *baseline;
    uint64_t max_members, max_decoded; /* --max-members, --max-decoded (0: defaults) */
    bool in_folder;           /* walking a folder given (not a file named) */
    uint32_t shard_k, shard_n; /* --shard K/N; shard_n 0: every input */
    size_t inputs_seen;       /* inputs found, in every shard */
    size_t nbinary;           /* binary files met in folders and skipped */
    task *tasks;
    size_t ntasks, captasks;
    /* Shared with the workers, under mu. */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t next;              /* the next task to hand out */
    size_t current;           /* the task being reported */
    bool inline_out;          /* one input, scanned on the main thread: report as it goes */
    size_t files_done;
    uint64_t bytes_done, bytes_total;
    bool total_known;         /* every input's size is known (no pipe): rate gives an ETA */
    task **running;           /* per worker, the task it is reading, or NULL */
    size_t nrunning;
    /* Main thread only. */
    cli_outputs out;
    ldx_msgs *errors;         /* problems outside any one log */
    ldx_redactor *redactor;   /* --redact: one mapping for the run, applied in list order */
    int worst;                /* the highest severity reported */
    bool failed;              /* some input could not be read */
    bool out_failed;
    cli_summary_row *rows;
    size_t nrows, caprows;
    /* The progress line. */
    bool progress;
    struct timespec t0;
    int drawn;                /* width of the line on screen, 0: none */
} scan_ctx;

/* Grows *v to hold need elements of elem bytes; false when out of memory. */
static bool grow(void **v, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return true;
    size_t ncap = *cap ? *cap * 2 : 8;
    while (ncap < need) ncap *= 2;
    void *nv = realloc(*v, ncap * elem);
    if (!nv) return false;
    *v = nv;
    *cap = ncap;
    return true;
}
#define PUSH(vec, n, cap, val)                                                           \
    (grow((void **)&(vec), &(cap), (n) + 1, sizeof(*(vec))) ? ((vec)[(n)++] = (val), LDX_OK) \
                                                            : LDX_ENOMEM)

/* ---- building the list of inputs ---- */

static ldx_status add_task(scan_ctx *c, const char *path)
{
    /* the caller has counted it among the inputs found */
    task t = {.path = strdup(path), .ordinal = c->inputs_seen - 1};
    if (!t.path) return LDX_ENOMEM;
    struct stat sb;
    if (strcmp(path, "-") && stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
        t.size = (uint64_t)sb.st_size;
    if (PUSH(c->tasks, c->ntasks, c->captasks, t) != LDX_OK) {
        free(t.path);
        return LDX_ENOMEM;
    }
    c->bytes_total += t.size;
    return LDX_OK;
}

/* A binary met inside a folder is skipped, as rg skips them; a file named on the command
 * line is always scanned. */
static bool binary_file(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return false; /* the scan says why it cannot be read */
    unsigned char head[LDX_BINARY_BYTES];
    ssize_t n = read(fd, head, sizeof head);
    close(fd);
    return n > 0 && ldx_input_looks_binary(head, (size_t)n);
}

/* Which shard an input belongs to: FNV-1a of its path as given, so that a file added to
 * the archive never moves another between shards, and every task of a job array that is
 * given the same arguments agrees without talking to the others. */
static uint32_t shard_of(const char *path, uint32_t n)
{
    uint64_t h = 14695981039346656037ull;
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        h ^= *p;
        h *= 1099511628211ull;
    }
    return (uint32_t)(h % n);
}

static ldx_status walk_found(const char *path, void *vctx)
{
    scan_ctx *c = vctx;
    c->inputs_seen++;
    /* before anything reads the file: another shard's inputs cost nothing here */
    if (c->shard_n && shard_of(path, c->shard_n) != c->shard_k) return LDX_OK;
    if (c->in_folder && binary_file(path)) {
        c->nbinary++;
        return LDX_OK;
    }
    return add_task(c, path);
}

/* ---- the workers ---- */

#define HOLD 16

static ldx_status report_one(scan_ctx *c, task *t, ldx_file_report *fr);

/* Hands a finished report on: to the output when it is this input's turn (or it is the
 * only input), else into the task's queue, waiting while that queue is full. */
static ldx_status deliver(scan_ctx *c, task *t, ldx_file_report *fr)
{
    if (c->inline_out) {
        ldx_status st = report_one(c, t, fr);
        ldx_file_report_destroy(fr);
        return st;
    }
    pthread_mutex_lock(&c->mu);
    while (t->nreports - t->nout >= HOLD && &c->tasks[c->current] != t)
        pthread_cond_wait(&c->cv, &c->mu);
    if (t->nout == t->nreports) t->nout = t->nreports = 0;
    ldx_status st = PUSH(t->reports, t->nreports, t->capreports, fr);
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    if (st != LDX_OK) ldx_file_report_destroy(fr);
    return st;
}

/* spare: this input has threads of its own (decoding ahead, matching batches). */
static void run_task(scan_ctx *c, ldx_scanner *s, task *t, bool spare)
{
    if (ldx_msgs_create(&t->errors) != LDX_OK) {
        t->st = LDX_ENOMEM;
        return;
    }
    ldx_input *in = NULL;
    ldx_status st;
    if (!strcmp(t->path, "-")) {
        int fd = dup(STDIN_FILENO);
        st = fd < 0 ? LDX_EIO : ldx_input_open_fd(&in, fd, "-");
    } else {
        st = ldx_input_open(&in, t->path);
    }
    if (st != LDX_OK) {
        if (st == LDX_ENOMEM) t->st = st;
        else
            ldx_msgs_add(t->errors, LDX_MSG_ERROR, t->path, 0, 0, "cannot open: %s",
                         strerror(errno));
        return;
    }
    ldx_input_set_readahead(in, spare);
    ldx_input_set_limits(in, c->max_members, c->max_decoded);
    pthread_mutex_lock(&c->mu);
    t->in = in;
    pthread_mutex_unlock(&c->mu);
    ldx_reader *r;
    while ((st = ldx_input_next(in, &r)) != LDX_EOF) {
        if (st == LDX_EIO) {
            ldx_msgs_add(t->errors, LDX_MSG_ERROR, t->path, 0, 0, "cannot read the %s: %s",
                         ldx_input_is_archive(in) ? "archive" : "compressed input",
                         ldx_input_error(in));
            continue;
        }
        if (st != LDX_OK) break;
        ldx_file_report *fr = NULL;
        st = ldx_analyze(s, r, &fr);
        if (fr) {
            ldx_file_report_baseline(fr, c->baseline);
            if (deliver(c, t, fr) != LDX_OK) st = LDX_ENOMEM;
        }
        if (st == LDX_ENOMEM) break;
    }
    if (st == LDX_ENOMEM) t->st = st;
    pthread_mutex_lock(&c->mu);
    t->in = NULL;
    uint64_t at = ldx_input_position(in); /* what a pipe held, for the count */
    if (at > t->seen) t->seen = at;
    pthread_mutex_unlock(&c->mu);
    ldx_input_destroy(in);
}

typedef struct {
    scan_ctx *c;
    ldx_scanner *scanner;
    bool spare; /* threads to spend inside each input */
    size_t id;  /* its slot in c->running */
    pthread_t thread;
} worker;

static void *worker_main(void *arg)
{
    worker *w = arg;
    scan_ctx *c = w->c;
    for (;;) {
        pthread_mutex_lock(&c->mu);
        size_t i = c->next < c->ntasks ? c->next++ : c->ntasks;
        pthread_mutex_unlock(&c->mu);
        if (i >= c->ntasks) break;
        task *t = &c->tasks[i];
        pthread_mutex_lock(&c->mu);
        if (c->running) c->running[w->id] = t;
        pthread_mutex_unlock(&c->mu);
        run_task(c, w->scanner, t, w->spare);
        pthread_mutex_lock(&c->mu);
        if (c->running) c->running[w->id] = NULL;
        t->done = true;
        c->files_done++;
        c->bytes_done += t->size ? t->size : t->seen;
        pthread_cond_broadcast(&c->cv);
        pthread_mutex_unlock(&c->mu);
    }
    return NULL;
}

/* ---- progress on stderr ---- */

static void human_bytes(double b, char *buf, size_t n)
{
    const char *u[] = {"B", "kB", "MB", "GB", "TB"};
    int k = 0;
    while (b >= 1000 && k < 4) {
        b /= 1000;
        k++;
    }
    snprintf(buf, n, k ? "%.1f %s" : "%.0f %s", b, u[k]);
}

static void progress_clear(scan_ctx *c)
{
    if (!c->drawn) return;
    fprintf(stderr, "\r%*s\r", c->drawn, "");
    fflush(stderr);
    c->drawn = 0;
}

/* Bytes read of the inputs done and of those being read: each running input's position,
 * never past its size or back from what was shown (a zip reader seeks to its end first). */
static uint64_t progress_bytes(scan_ctx *c)
{
    uint64_t b = c->bytes_done;
    for (size_t k = 0; k < c->nrunning; k++) {
        task *t = c->running[k];
        if (!t || !t->in) continue;
        uint64_t at = ldx_input_position(t->in);
        if (t->size && at > t->size) at = t->size;
        if (at > t->seen) t->seen = at;
        b += t->seen;
    }
    return b;
}

static void human_time(double s, char *buf, size_t n)
{
    long v = (long)(s + 0.5);
    if (v >= 3600) snprintf(buf, n, "%ldh%02ldm", v / 3600, v / 60 % 60);
    else if (v >= 60) snprintf(buf, n, "%ldm%02lds", v / 60, v % 60);
    else snprintf(buf, n, "%lds", v);
}

/* Called with mu held. */
static void progress_draw(scan_ctx *c)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double secs = (double)(now.tv_sec - c->t0.tv_sec) + (now.tv_nsec - c->t0.tv_nsec) / 1e9;
    uint64_t bytes = progress_bytes(c);
    double rate = secs > 0 ? (double)bytes / secs : 0.0;
    char done[32], total[32], eta[48] = "";
    human_bytes((double)bytes, done, sizeof done);
    human_bytes((double)c->bytes_total, total, sizeof total);
    /* after a second: the first blocks' rate says little */
    if (c->total_known && rate > 0 && secs >= 1.0 && bytes < c->bytes_total) {
        char t[24];
        human_time((double)(c->bytes_total - bytes) / rate, t, sizeof t);
        snprintf(eta, sizeof eta, ", ETA %s", t);
    }
    char line[200];
    int n = c->total_known
                ? snprintf(line, sizeof line, "logdx: %zu/%zu files, %s of %s, %.1f MB/s%s",
                           c->files_done, c->ntasks, done, total, rate / 1e6, eta)
                : snprintf(line, sizeof line, "logdx: %zu/%zu files, %s, %.1f MB/s",
                           c->files_done, c->ntasks, done, rate / 1e6);
    if (n < 0) return;
    if (n >= (int)sizeof line) n = (int)sizeof line - 1;
    fprintf(stderr, "\r%s%*s", line, c->drawn > n ? c->drawn - n : 0, "");
    fflush(stderr);
    c->drawn = n;
}

/* ---- reporting, in list order ---- */

static ldx_status report_one(scan_ctx *c, task *t, ldx_file_report *fr)
{
    ldx_status st = LDX_OK;
    /* redacted before anything of it is printed: its messages go to stderr */
    if (c->redactor && ldx_file_report_redact(fr, c->redactor) != LDX_OK) st = LDX_ENOMEM;
    if (ldx_msgs_errors(fr->errors)) c->failed = true;
    fr->input = t->ordinal;
    cli_print_msgs(fr->errors);
    if (!cli_outputs_file(&c->out, fr)) c->out_failed = true;
    cli_summary_row row;
    bool have_row = cli_summary_row_of(fr, &row);
    if (row.worst > c->worst) c->worst = row.worst;
    if (!have_row || PUSH(c->rows, c->nrows, c->caprows, row) != LDX_OK) {
        free(row.path);
        st = LDX_ENOMEM;
    }
    return st;
}

/* What is wrong with the input as a whole (it cannot be opened, the archive is damaged
 * after its good members): once its reports are out. */
static void report_errors(scan_ctx *c, task *t)
{
    if (t->errors && ldx_msgs_count(t->errors)) {
        if (c->redactor) ldx_msgs_redact(c->redactor, &t->errors);
        size_t before = ldx_msgs_count(c->errors);
        ldx_msgs_append(c->errors, t->errors);
        cli_print_msgs_from(c->errors, before);
        if (ldx_msgs_errors(t->errors)) c->failed = true;
    }
}

static void free_task(task *t)
{
    for (size_t i = t->nout; i < t->nreports; i++) ldx_file_report_destroy(t->reports[i]);
    free(t->reports);
    ldx_msgs_destroy(t->errors);
    free(t->path);
    t->reports = NULL;
    t->nout = t->nreports = t->capreports = 0;
    t->errors = NULL;
    t->path = NULL;
}

/* Waits for task t's reports and writes each as it comes, until t is done. Called
 * with mu held; returns with it held. */
static ldx_status drain_task(scan_ctx *c, task *t, ldx_status st)
{
    for (;;) {
        if (t->nout < t->nreports) {
            ldx_file_report *fr = t->reports[t->nout];
            t->reports[t->nout++] = NULL;
            pthread_cond_broadcast(&c->cv); /* room in t's queue */
            pthread_mutex_unlock(&c->mu);
            progress_clear(c);
            if (st == LDX_OK && report_one(c, t, fr) != LDX_OK) st = LDX_ENOMEM;
            ldx_file_report_destroy(fr);
            if (c->progress) fflush(stdout);
            pthread_mutex_lock(&c->mu);
            continue;
        }
        if (t->done) return st;
        if (c->progress) {
            progress_draw(c);
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_nsec += 200 * 1000000L;
            if (until.tv_nsec >= 1000000000L) {
                until.tv_sec++;
                until.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&c->cv, &c->mu, &until);
        } else {
            pthread_cond_wait(&c->cv, &c->mu);
        }
    }
}

/* Runs the workers and reports each task when its turn comes. */
static ldx_status scan_all(scan_ctx *c, const ldx_ruleset *rs, int jobs)
{
    if (c->ntasks == 0) return LDX_OK;
    size_t nw = (size_t)jobs < c->ntasks ? (size_t)jobs : c->ntasks;
    worker *ws = calloc(nw, sizeof(*ws));
    if (!ws) return LDX_ENOMEM;
    ldx_status st = LDX_OK;
    size_t started = 0;
    /* One input and no progress line to draw: it is scanned on this thread. A thread of
     * its own, with the malloc arena glibc gives a new thread, was a tenth of the
     * start-up of `logdx small.log`. */
    bool here = c->ntasks == 1 && !c->progress;
    c->inline_out = here;
    if (c->progress && !(c->running = calloc(nw, sizeof(*c->running)))) c->progress = false;
    c->nrunning = c->running ? nw : 0;
    for (; started < nw; started++) {
        ws[started].c = c;
        ws[started].id = started;
        if (ldx_scanner_create(&ws[started].scanner, rs) != LDX_OK) {
            st = LDX_ENOMEM;
            break;
        }
        /* fewer inputs than threads: spend the spare ones inside each input, matching
         * its batches side by side */
        ws[started].spare = (size_t)jobs >= 2 * nw;
        if (ws[started].spare) ldx_scanner_set_threads(ws[started].scanner, jobs / (int)nw);
        if (here) {
            worker_main(&ws[started]);
            continue;
        }
        if (pthread_create(&ws[started].thread, NULL, worker_main, &ws[started]) != 0) {
            ldx_scanner_destroy(ws[started].scanner);
            if (started == 0) st = LDX_ENOMEM; /* with one or more, the rest still gets done */
            break;
        }
    }
    for (size_t i = 0; i < c->ntasks && started; i++) {
        task *t = &c->tasks[i];
        pthread_mutex_lock(&c->mu);
        c->current = i;
        pthread_cond_broadcast(&c->cv); /* a worker waiting on t's full queue goes on */
        st = drain_task(c, t, st);
        pthread_mutex_unlock(&c->mu);
        progress_clear(c);
        if (t->st == LDX_ENOMEM) st = LDX_ENOMEM;
        if (st == LDX_OK) report_errors(c, t);
        free_task(t);
        if (c->progress) {
            fflush(stdout);
            pthread_mutex_lock(&c->mu);
            progress_draw(c);
            pthread_mutex_unlock(&c->mu);
        }
    }
    for (size_t i = 0; i < started; i++) {
        if (!here) pthread_join(ws[i].thread, NULL);
        ldx_scanner_destroy(ws[i].scanner);
    }
    progress_clear(c);
    free(ws);
    free(c->running);
    c->running = NULL;
    c->nrunning = 0;
    return st;
}

/* ---- the command ---- */

/* --files-from: the names in FILE ("-": standard input), one a line or NUL-terminated
 * (-0); empty names are skipped. 0, or -1 with a message. */
static int read_names(const char *path, bool nul, char ***out, size_t *n)
{
    FILE *fp = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!fp) {
        fprintf(stderr, "logdx: --files-from %s: %s\n", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0, vcap = 0;
    ssize_t len;
    int rc = 0;
    while ((len = getdelim(&line, &cap, nul ? '\0' : '\n', fp)) >= 0) {
        if (len && line[len - 1] == (nul ? '\0' : '\n')) line[--len] = '\0';
        if (!nul && len && line[len - 1] == '\r') line[--len] = '\0'; /* a list made on Windows */
        if (!len) continue;
        char *name = strdup(line);
        if (!name || !grow((void **)out, &vcap, *n + 1, sizeof(char *))) {
            free(name);
            fprintf(stderr, "logdx: out of memory\n");
            rc = -1;
            break;
        }
        (*out)[(*n)++] = name;
    }
    if (rc == 0 && ferror(fp)) {
        fprintf(stderr, "logdx: --files-from %s: read error: %s\n", path, strerror(errno));
        rc = -1;
    }
    free(line);
    if (fp != stdin) fclose(fp);
    return rc;
}

static int default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

int cmd_scan(cli_opts *o)
{
    bool rule_errors;
    ldx_ruleset *rs = cli_load_rules(o, NULL, 0, &rule_errors);
    if (!rs) {
        fprintf(stderr, "logdx: out of memory\n");
        return EXIT_ERROR;
    }
    scan_ctx c = {.worst = -1};
    pthread_mutex_init(&c.mu, NULL);
    pthread_cond_init(&c.cv, NULL);
    ldx_file_report *baseline = NULL;
    int rc = cli_outputs_open(&c.out, o, stdout, cli_color(o, STDOUT_FILENO),
                              cli_width(STDOUT_FILENO), o->quiet, false);
    /* a report that cannot be written stops the scan before it starts */
    if (rc >= 0 || c.out.open_failed) {
        rc = EXIT_ERROR;
        goto out;
    }
    rc = EXIT_ERROR;
    if (ldx_msgs_create(&c.errors) != LDX_OK ||
        (o->redact && ldx_redactor_create(&c.redactor) != LDX_OK)) {
        fprintf(stderr, "logdx: out of memory\n");
        goto out;
    }
    if (rule_errors)
        ldx_msgs_add(c.errors, LDX_MSG_ERROR, NULL, 0, 0,
                     "some rules are invalid and were left out (see the messages above)");
    if (o->baseline) {
        ldx_scanner *s = NULL;
        ldx_status bs = ldx_scanner_create(&s, rs);
        if (bs != LDX_OK) fprintf(stderr, "logdx: out of memory\n");
        else bs = cli_load_baseline(s, o->baseline, &baseline);
        ldx_scanner_destroy(s);
        if (bs != LDX_OK) goto out;
    }
    c.baseline = baseline;
    c.max_members = o->max_members;
    c.max_decoded = o->max_decoded;

    ldx_status st = LDX_OK;
    c.shard_k = o->shard_k;
    c.shard_n = o->shard_n;
    char **listed = NULL;
    size_t nlisted = 0;
    if (o->files_from && read_names(o->files_from, o->null_names, &listed, &nlisted) != 0)
        goto out_listed;
    bool from_stdin = o->nargs == 0 && !o->files_from;
    for (size_t i = 0; i < o->nargs; i++) from_stdin |= !strcmp(o->args[i], "-");
    for (size_t i = 0; i < nlisted; i++) from_stdin |= !strcmp(listed[i], "-");
    if (from_stdin && o->shard_n) {
        fprintf(stderr, "logdx: --shard splits files and folders; standard input cannot be split\n");
        goto out_listed;
    }
    if (o->nargs == 0 && !o->files_from) {
        if (isatty(STDIN_FILENO))
            fprintf(stderr, "logdx: reading a log from standard input (see logdx --help)\n");
        c.inputs_seen++;
        st = add_task(&c, "-");
    }
    ldx_walk_filter filter = {o->include, o->ninclude, o->exclude, o->nexclude, o->follow_links};
    for (size_t i = 0; i < o->nargs + nlisted && st != LDX_ENOMEM; i++) {
        const char *p = i < o->nargs ? o->args[i] : listed[i - o->nargs];
        if (!strcmp(p, "-")) {
            c.inputs_seen++;
            st = add_task(&c, p);
            continue;
        }
        /* the walk's notes and errors name paths: redacted like the reports' */
        ldx_msgs *walk_msgs = NULL;
        if (ldx_msgs_create(&walk_msgs) != LDX_OK) {
            st = LDX_ENOMEM;
            break;
        }
        struct stat psb;
        c.in_folder = stat(p, &psb) == 0 && S_ISDIR(psb.st_mode);
        ldx_status ws = ldx_walk_filtered(p, &filter, walk_found, &c, walk_msgs);
        if (ws == LDX_ENOMEM) st = ws;
        if (ldx_msgs_count(walk_msgs)) {
            if (c.redactor) ldx_msgs_redact(c.redactor, &walk_msgs);
            size_t before = ldx_msgs_count(c.errors);
            ldx_msgs_append(c.errors, walk_msgs);
            if (ldx_msgs_errors(walk_msgs)) c.failed = true;
            cli_print_msgs_from(c.errors, before);
        }
        ldx_msgs_destroy(walk_msgs);
    }

    c.progress = o->progress == 1 || (o->progress == -1 && isatty(STDERR_FILENO));
    /* a log typed or pasted into the terminal: a redrawn line would write over it */
    bool stdin_tty = isatty(STDIN_FILENO);
    c.total_known = true;
    for (size_t i = 0; i < c.ntasks; i++)
        if (!strcmp(c.tasks[i].path, "-")) {
            c.total_known = false;
            if (stdin_tty) c.progress = false;
        }
    ldx_run_info run = {.ruleset = ldx_ruleset_digest(rs), .sharded = c.shard_n != 0,
                        .shard_index = c.shard_k, .shard_count = c.shard_n,
                        .inputs = c.inputs_seen, .binary_skipped = c.nbinary};
    cli_outputs_set_run(&c.out, &run);
    clock_gettime(CLOCK_MONOTONIC, &c.t0);
    if (st == LDX_OK) st = scan_all(&c, rs, o->jobs > 0 ? o->jobs : default_jobs());
    if (c.nbinary)
        fprintf(stderr, "logdx: %zu binary file%s in the folders skipped (name one to scan it)\n",
                c.nbinary, c.nbinary == 1 ? "" : "s");
    /* nothing to scan (empty folders, or nothing --include lets through) is an error: a CI
     * gate must not pass on no input; a shard that got none of the inputs found is not */
    if (st == LDX_OK && c.ntasks == 0 && !(c.shard_n && c.inputs_seen)) {
        ldx_msgs_add(c.errors, LDX_MSG_ERROR, NULL, 0, 0, "no log files found%s",
                     o->ninclude || o->nexclude ? " (see --include/--exclude)" : "");
        cli_print_msgs_from(c.errors, ldx_msgs_count(c.errors) - 1);
        c.failed = true;
    }

    /* a text report of several files ends with what they have in common (the text
     * format's own end prints nothing) */
    for (size_t i = 0; i < c.out.n; i++)
        if (!strcmp(c.out.v[i].format, "text") && !o->quiet && c.nrows > 1 && !c.out.v[i].failed)
            cli_print_summary(c.out.v[i].fp, c.rows, c.nrows, c.nbinary);
    if (!cli_outputs_finish(&c.out, c.errors)) c.out_failed = true;
    if (!cli_outputs_close(&c.out)) c.out_failed = true;
    if (c.out_failed) {
        rc = EXIT_ERROR;
    } else if (st == LDX_ENOMEM) {
        fprintf(stderr, "logdx: out of memory\n");
        rc = EXIT_ERROR;
    } else if (c.failed || rule_errors) {
        rc = EXIT_ERROR;
    } else {
        rc = (o->fail_on >= 0 && c.worst >= o->fail_on) ? EXIT_FOUND : EXIT_CLEAN;
    }
out_listed:
    for (size_t i = 0; i < nlisted; i++) free(listed[i]);
    free(listed);
out:
    for (size_t i = 0; i < c.ntasks; i++) free_task(&c.tasks[i]);
    free(c.tasks);
    for (size_t i = 0; i < c.nrows; i++) free(c.rows[i].path);
    free(c.rows);
    cli_outputs_close(&c.out);
    ldx_redactor_destroy(c.redactor);
    ldx_file_report_destroy(baseline);
    ldx_msgs_destroy(c.errors);
    ldx_ruleset_destroy(rs);
    pthread_cond_destroy(&c.cv);
    pthread_mutex_destroy(&c.mu);
    return rc;
}
