/* logdx --follow FILE: diagnoses a log while it grows, for runs that take days.
 *
 * The file is read once to its end, then polled every POLL_MS for new bytes; only the
 * new bytes are read, and the scanner keeps its state between them (a diagnosis is
 * built from the state at any time without disturbing it). Nothing is printed until a
 * rule fires; then one line per newly fired rule, at once, in the -q format (on stdout
 * for text, on stderr for the other formats, so that stdout stays one document). When
 * logdx is stopped (SIGINT, SIGTERM), the file is deleted, or a piped input ends, the
 * full diagnosis follows in the chosen format.
 *
 * A file that shrinks was truncated (logrotate's copytruncate), and one whose name now
 * leads to another file was rotated or recreated: either way the file is read again from
 * its start as the log's next part, and what was found before stays found (said on
 * stderr); line numbers go on counting across the parts. Without FILE, or with "-",
 * standard input is followed until it ends.
 * It also ends by itself with --pid PID, once that process has exited and what it
 * wrote is read (as tail --pid), and with --idle SECONDS, when nothing new came for
 * that long.
 * Compressed files are not recognised here: a growing log is plain text. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define CHUNK (256u * 1024u)
#define POLL_MS 250

static volatile sig_atomic_t stop_sig;

static void on_stop(int sig) { stop_sig = sig; }

typedef struct {
    cli_live lv;
    cli_splitter sp;
    uint64_t lineno;
    uint64_t diagnosed_at; /* lineno when the diagnosis last ran */
    const ldx_rule_info **seen; /* rules already announced */
    size_t nseen;
    const char *name;
    FILE *live_fp;
    bool live_color;
    double last_announce;
    double last_data;      /* when bytes last came */
    int pid;               /* --pid, 0: none */
    double idle;           /* --idle, 0: none */
    bool ended;            /* --pid or --idle ended the watch (said on stderr) */
    bool never;            /* ... before the file appeared: there is nothing to report */
} follow_ctx;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL); /* a signal ends it early, which is what we want */
}

static bool seen(const follow_ctx *c, const ldx_rule_info *r)
{
    for (size_t i = 0; i < c->nseen; i++)
        if (c->seen[i] == r) return true;
    return false;
}

/* Prints the rules that fired since the last call, one line each. */
static ldx_status announce(follow_ctx *c)
{
    c->last_announce = now_s();
    if (c->lineno == c->diagnosed_at) return LDX_OK;
    c->diagnosed_at = c->lineno;
    ldx_file_report *fr;
    LDX_TRY(cli_live_diagnose(&c->lv, c->name, &fr));
    ldx_diagnosis *fresh = fr->n ? malloc(fr->n * sizeof(*fresh)) : NULL;
    const ldx_rule_info **ns = fr->n ? realloc(c->seen, (c->nseen + fr->n) * sizeof(*ns)) : c->seen;
    if (fr->n && (!fresh || !ns)) {
        free(fresh);
        if (ns) c->seen = ns;
        ldx_file_report_destroy(fr);
        return LDX_ENOMEM;
    }
    c->seen = ns;
    size_t k = 0;
    for (size_t i = 0; i < fr->n; i++) {
        const ldx_diagnosis *d = &fr->diagnoses[i];
        if (seen(c, d->rule)) continue;
        c->seen[c->nseen++] = d->rule;
        if (!d->in_baseline) fresh[k++] = *d; /* normal for this job: not news */
    }
    if (k) {
        /* A view of the report with only the new diagnoses; it borrows their data. */
        ldx_file_report view = *fr;
        view.diagnoses = fresh;
        view.n = k;
        ldx_report_opts ro = {.color = c->live_color, .quiet = true, .fail_on = c->lv.o->fail_on};
        ldx_report *rep;
        if (ldx_report_create(&rep, "text", &ro, c->live_fp) == LDX_OK) {
            ldx_report_file(rep, &view);
            ldx_report_finish(rep, NULL);
            ldx_report_destroy(rep);
        }
    }
    free(fresh);
    ldx_file_report_destroy(fr);
    return LDX_OK;
}

/* The file starts again (truncated, or a new file under its name): its unfinished last
 * line ends here, and the scan goes on, so that nothing found before is lost. */
static void next_part(follow_ctx *c)
{
    cli_splitter_flush(&c->sp, &c->lineno, cli_live_line, &c->lv);
}

/* Whether --pid or --idle ends the watch now; says why once. Called when all that
 * was written has been read, so that the process's last lines are in the report. */
static bool done(follow_ctx *c)
{
    if (c->ended) return true;
    if (c->pid && kill(c->pid, 0) != 0 && errno == ESRCH) {
        fprintf(stderr, "logdx: process %d has exited\n", c->pid);
        c->ended = true;
    } else if (c->idle > 0 && now_s() - c->last_data >= c->idle) {
        fprintf(stderr, "logdx: nothing new for %g s\n", c->idle);
        c->ended = true;
    }
    return c->ended;
}

/* Opens the file, waiting for it to appear if it is not there yet (a job just
 * starting). -1 when stopped first or on another error (said). */
static int open_wait(follow_ctx *c, const char *path)
{
    bool said = false;
    while (!stop_sig && !done(c)) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) return fd;
        if (errno != ENOENT) {
            fprintf(stderr, "logdx: %s: cannot open: %s\n", path, strerror(errno));
            return -1;
        }
        if (!said) fprintf(stderr, "logdx: waiting for %s to appear\n", path);
        said = true;
        sleep_ms(POLL_MS);
    }
    return -1;
}

static ldx_status feed(follow_ctx *c, const char *buf, size_t n)
{
    c->lv.bytes += n;
    c->last_data = now_s();
    return cli_splitter_feed(&c->sp, buf, n, &c->lineno, cli_live_line, &c->lv);
}

/* Reads what fd holds now; LDX_EOF when it is all read, LDX_EIO on a read error. */
static ldx_status drain(follow_ctx *c, int fd, char *buf)
{
    while (!stop_sig) {
        ssize_t r = read(fd, buf, CHUNK);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return LDX_EIO;
        if (r == 0) return LDX_EOF;
        LDX_TRY(feed(c, buf, (size_t)r));
        if (now_s() - c->last_announce >= POLL_MS / 1000.0) LDX_TRY(announce(c));
    }
    return LDX_OK;
}

/* On an interrupt: the bytes the file holds now, which drain() would leave (it stops at
 * once on a signal, so that a huge backlog does not hold a Ctrl-C), up to the size the
 * file has at this moment. */
static ldx_status drain_written(follow_ctx *c, int fd, char *buf)
{
    struct stat st;
    off_t at = lseek(fd, 0, SEEK_CUR);
    if (fstat(fd, &st) != 0 || at < 0) return LDX_EOF;
    while (at < st.st_size) {
        size_t want = (size_t)(st.st_size - at) < CHUNK ? (size_t)(st.st_size - at) : CHUNK;
        ssize_t r = read(fd, buf, want);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return LDX_EIO;
        if (r == 0) break;
        LDX_TRY(feed(c, buf, (size_t)r));
        at += r;
    }
    return LDX_EOF;
}

/* A regular file: poll it for growth, truncation, rotation and deletion. */
static ldx_status follow_file(follow_ctx *c, const char *path, char *buf)
{
    int fd = open_wait(c, path);
    if (fd < 0 && c->ended) {
        /* a gate must not pass on a log that was never written */
        fprintf(stderr, "logdx: %s never appeared\n", path);
        c->never = true;
        return LDX_EIO;
    }
    if (fd < 0) return stop_sig ? LDX_OK : LDX_EIO;
    struct stat st;
    fstat(fd, &st);
    ldx_status s = LDX_OK;
    for (;;) {
        s = drain(c, fd, buf);
        if (s == LDX_EIO) fprintf(stderr, "logdx: %s: read error: %s\n", path, strerror(errno));
        if (s != LDX_EOF) break;
        if ((s = announce(c)) != LDX_OK) break;
        /* the process gone: one more read takes what it wrote last */
        bool gone = c->pid && kill(c->pid, 0) != 0 && errno == ESRCH;
        if (gone || done(c)) {
            if (gone && (s = drain(c, fd, buf)) == LDX_EOF) s = announce(c);
            done(c);
            break;
        }
        sleep_ms(POLL_MS);
        if (stop_sig) break;
        struct stat now, named;
        if (fstat(fd, &now) != 0) break;
        bool renamed = stat(path, &named) == 0 && (named.st_ino != st.st_ino || named.st_dev != st.st_dev);
        if (renamed) {
            /* the last lines written to the old file before it went */
            if (drain(c, fd, buf) == LDX_EOF) announce(c);
            next_part(c);
            fprintf(stderr, "logdx: %s is a new file now (rotated or recreated); reading it too, "
                            "keeping what was found (from line %llu on)\n",
                    path, (unsigned long long)c->lineno + 1);
            close(fd);
            if ((fd = open_wait(c, path)) < 0) return stop_sig || c->ended ? LDX_OK : LDX_EIO;
            fstat(fd, &st);
        } else if (now.st_nlink == 0) {
            if (drain(c, fd, buf) == LDX_EIO) s = LDX_EIO;
            fprintf(stderr, "logdx: %s was deleted\n", path);
            break;
        } else if (now.st_size < lseek(fd, 0, SEEK_CUR)) {
            next_part(c);
            fprintf(stderr, "logdx: %s shrank (truncated, as copytruncate does); reading it again "
                            "from its start, keeping what was found (from line %llu on)\n",
                    path, (unsigned long long)c->lineno + 1);
            lseek(fd, 0, SEEK_SET);
        }
    }
    if (stop_sig && (s == LDX_OK || s == LDX_EOF)) {
        /* what was written before the interrupt belongs to the report */
        s = drain_written(c, fd, buf);
        if (s == LDX_EOF) s = announce(c);
    }
    close(fd);
    return s == LDX_EOF ? LDX_OK : s;
}

/* A pipe or terminal: read until it ends, announcing between reads. */
static ldx_status follow_stream(follow_ctx *c, int fd, char *buf)
{
    struct pollfd pf = {.fd = fd, .events = POLLIN};
    while (!stop_sig) {
        int n = poll(&pf, 1, POLL_MS);
        if (n < 0 && errno == EINTR) continue;
        if (n == 0) {
            LDX_TRY(announce(c));
            if (done(c)) break; /* a quiet pipe: what it had is read */
            continue;
        }
        ssize_t r = read(fd, buf, CHUNK);
        if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (r < 0) {
            fprintf(stderr, "logdx: %s: read error: %s\n", c->name, strerror(errno));
            return LDX_EIO;
        }
        if (r == 0) break;
        LDX_TRY(feed(c, buf, (size_t)r));
        if (now_s() - c->last_announce >= POLL_MS / 1000.0) LDX_TRY(announce(c));
    }
    return LDX_OK;
}

int cmd_follow(cli_opts *o)
{
    if (o->nargs > 1) {
        fprintf(stderr, "logdx: --follow watches one log, not %zu\n", o->nargs);
        return EXIT_ERROR;
    }
    const char *path = o->nargs ? o->args[0] : "-";
    follow_ctx c = {.name = path, .pid = o->pid, .idle = o->idle};
    if (cli_live_start(&c.lv, o) != LDX_OK) {
        cli_live_end(&c.lv);
        return EXIT_ERROR;
    }
    cli_splitter_init(&c.sp);
    bool text = !strcmp(o->format, "text");
    c.live_fp = text ? stdout : stderr;
    c.live_color = cli_color(o, text ? STDOUT_FILENO : STDERR_FILENO);
    c.last_announce = c.last_data = now_s();

    struct sigaction sa = {0}, old_int, old_term;
    sa.sa_handler = on_stop; /* no SA_RESTART: a blocked read or sleep ends at once */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    char *buf = malloc(CHUNK);
    ldx_status st = LDX_ENOMEM;
    struct stat sb;
    bool found = strcmp(path, "-") && stat(path, &sb) == 0;
    if (!buf) {
        st = LDX_ENOMEM;
    } else if (!strcmp(path, "-")) {
        st = follow_stream(&c, STDIN_FILENO, buf);
    } else if (found && S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "logdx: %s: --follow watches a file, not a folder\n", path);
        st = LDX_EIO;
    } else if (found && !S_ISREG(sb.st_mode)) {
        int fd = open(path, O_RDONLY | O_CLOEXEC); /* a FIFO: a stream like stdin */
        if (fd < 0) {
            fprintf(stderr, "logdx: %s: cannot open: %s\n", path, strerror(errno));
            st = LDX_EIO;
        } else {
            st = follow_stream(&c, fd, buf);
            close(fd);
        }
    } else {
        st = follow_file(&c, path, buf);
    }
    free(buf);
    if (st == LDX_ENOMEM) fprintf(stderr, "logdx: out of memory\n");
    cli_splitter_flush(&c.sp, &c.lineno, cli_live_line, &c.lv);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    fflush(c.live_fp);
    /* with -q in text, each diagnosis was printed as it came, in the very same line: the
     * report would say it all again */
    bool said = o->quiet && c.live_fp == stdout;
    int rc = c.never ? EXIT_ERROR : cli_live_report(&c.lv, path, stdout, cli_color(o, STDOUT_FILENO), said);
    if (st != LDX_OK) rc = EXIT_ERROR;
    cli_splitter_free(&c.sp);
    free(c.seen);
    cli_live_end(&c.lv);
    return rc;
}
