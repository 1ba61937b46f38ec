/* logdx run [OPTIONS] -- CMD [ARG...]: runs a command with its standard output and
 * error on two pipes, passes every byte through unchanged as it comes (each stream to
 * the same stream of ours, never reordered), scans the lines as they complete, and when
 * the command ends prints the diagnosis on standard error, so that the command's
 * standard output is exactly what it wrote. It keeps only what the scan keeps (the
 * log's tail, the evidence), never the whole output; --keep-log PATH writes a copy.
 *
 * Line numbers count over both streams together, in the order lines were completed;
 * each stream keeps its own unfinished line, so a line split across reads is joined
 * and a stderr line cannot cut a stdout line in two. The saved copy holds the lines in
 * that same order, one per "\n", so the line numbers of the report point into it.
 *
 * When the command has exited, what its background children still write is passed on
 * for a bounded time (until the pipes are quiet for DRAIN_MS, at most DRAIN_MAX_MS),
 * then the report comes: a daemon the command left behind cannot hold logdx. A signal
 * after the command's end stops the wait at once; a signal while it runs is passed on
 * to it, and a second one stops the wait (the command is left running).
 *
 * Exit status: the command's own (128+N when a signal N ended it), so wrapping a job
 * in logdx changes nothing for what runs it. With --fail-on, a command that failed still
 * gives its own status (a crashed job is never a green build, as with timeout(1)); one
 * that succeeded gives logdx's 0, 1 when a diagnosis reaches --fail-on, or 2. */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define CHUNK (64u * 1024u)
#define DRAIN_MS 250      /* after the command ended: quiet this long ends the wait */
#define DRAIN_MAX_MS 2000 /* and the wait never lasts longer */

static volatile sig_atomic_t child_pid;
static volatile sig_atomic_t signals_seen;

/* Forwards a signal sent to logdx (kill, a job scheduler) to the command. One typed at
 * the terminal (si_code SI_KERNEL) reached the command already, being in the same
 * foreground process group; sending it again would interrupt it twice. Either way,
 * logdx itself stays to read what the command writes while it dies, and report. */
static void forward(int sig, siginfo_t *info, void *uctx)
{
    (void)uctx;
    signals_seen++;
    if (child_pid > 0 && info->si_code != SI_KERNEL) kill((pid_t)child_pid, sig);
}

typedef struct {
    cli_live lv;
    FILE *copy;
    char *copy_path;
    uint64_t lineno;
} run_ctx;

static void on_line(const ldx_line *line, void *vctx)
{
    run_ctx *c = vctx;
    cli_live_line(line, &c->lv);
    if (c->copy) {
        fwrite(line->text, 1, line->len, c->copy);
        fputc('\n', c->copy);
    }
}

/* --keep-log PATH: the output, as logdx read it, for the report's line numbers. */
static FILE *open_copy(const char *path, char **path_out)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        fprintf(stderr, "logdx: --keep-log %s: %s\n", path, strerror(errno));
        return NULL;
    }
    FILE *fp = fdopen(fd, "w");
    *path_out = fp ? strdup(path) : NULL;
    if (!fp || !*path_out) {
        if (fp) fclose(fp);
        else close(fd);
        free(*path_out);
        *path_out = NULL;
        return NULL;
    }
    return fp;
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void discard_copy(run_ctx *c)
{
    if (c->copy) fclose(c->copy);
    c->copy = NULL;
    free(c->copy_path);
    c->copy_path = NULL;
}

static bool write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* In the child: the command gets logdx's stdin and the two pipes, and the signal
 * dispositions a shell would give it (main() ignores SIGPIPE, which exec keeps). */
static void exec_child(char **argv, int out_w, int err_w, int status_w)
{
    signal(SIGPIPE, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (dup2(out_w, STDOUT_FILENO) < 0 || dup2(err_w, STDERR_FILENO) < 0) _exit(127);
    close(out_w);
    close(err_w);
    /* Python writes stdout in blocks when it is a pipe, and a job killed by the OOM
     * killer would take its last lines, the ones that matter, with it. */
    setenv("PYTHONUNBUFFERED", "1", 0);
    execvp(argv[0], argv);
    int e = errno;
    ssize_t w = write(status_w, &e, sizeof e);
    (void)w;
    _exit(e == ENOENT ? 127 : 126);
}

static void describe_end(const char *cmd, int status)
{
    if (WIFSIGNALED(status))
        fprintf(stderr, "logdx: %s was killed by signal %d (%s)\n", cmd, WTERMSIG(status),
                strsignal(WTERMSIG(status)));
    else if (WIFEXITED(status) && WEXITSTATUS(status))
        fprintf(stderr, "logdx: %s exited with status %d\n", cmd, WEXITSTATUS(status));
}

int cmd_run(cli_opts *o)
{
    if (o->nargs == 0) {
        fprintf(stderr, "logdx: run needs a command: logdx run [OPTIONS] -- CMD [ARG...]\n");
        return EXIT_ERROR;
    }
    if (o->follow) {
        fprintf(stderr, "logdx: --follow watches a file; it does not go with run\n");
        return EXIT_ERROR;
    }
    run_ctx c = {0};
    if (cli_live_start(&c.lv, o) != LDX_OK) {
        cli_live_end(&c.lv);
        return EXIT_ERROR;
    }
    if (o->keep_log) {
        c.copy = open_copy(o->keep_log, &c.copy_path);
        if (!c.copy) {
            cli_live_end(&c.lv);
            return EXIT_ERROR;
        }
    }
    signals_seen = 0;

    int out_p[2], err_p[2], st_p[2];
    if (pipe2(out_p, O_CLOEXEC) || pipe2(err_p, O_CLOEXEC) || pipe2(st_p, O_CLOEXEC)) {
        fprintf(stderr, "logdx: cannot create a pipe: %s\n", strerror(errno));
        discard_copy(&c);
        cli_live_end(&c.lv);
        return EXIT_ERROR;
    }
    struct sigaction sa = {0}, old_int, old_term, old_hup;
    sa.sa_sigaction = forward;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);

    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "logdx: cannot start %s: %s\n", o->args[0], strerror(errno));
        for (int i = 0; i < 2; i++) {
            close(out_p[i]);
            close(err_p[i]);
            close(st_p[i]);
        }
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        sigaction(SIGHUP, &old_hup, NULL);
        discard_copy(&c);
        cli_live_end(&c.lv);
        return EXIT_ERROR;
    }
    if (pid == 0) exec_child((char **)o->args, out_p[1], err_p[1], st_p[1]);
    child_pid = pid;
    close(out_p[1]);
    close(err_p[1]);
    close(st_p[1]);

    int rc = EXIT_ERROR;
    int exec_errno = 0;
    ssize_t got;
    do got = read(st_p[0], &exec_errno, sizeof exec_errno);
    while (got < 0 && errno == EINTR);
    close(st_p[0]);
    int status = 0;
    if (got == (ssize_t)sizeof exec_errno) {
        /* Nothing ran, so there is nothing to diagnose: say so as a shell would. */
        fprintf(stderr, "logdx: cannot run %s: %s\n", o->args[0], strerror(exec_errno));
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        close(out_p[0]);
        close(err_p[0]);
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        sigaction(SIGHUP, &old_hup, NULL);
        discard_copy(&c);
        cli_live_end(&c.lv);
        return o->fail_on_set ? EXIT_ERROR : (exec_errno == ENOENT ? 127 : 126);
    }

    char *buf = malloc(CHUNK);
    cli_splitter sp[2];
    cli_splitter_init(&sp[0]);
    cli_splitter_init(&sp[1]);
    struct pollfd pf[2] = {{.fd = out_p[0], .events = POLLIN}, {.fd = err_p[0], .events = POLLIN}};
    bool pass[2] = {true, true}; /* our own stream still takes writes */
    bool reaped = false, oom = !buf, left_running = false;
    long long drain_end = 0, quiet_until = 0;
    while (!oom && (pf[0].fd >= 0 || pf[1].fd >= 0)) {
        int wait = 1000;
        if (reaped) {
            long long now = now_ms();
            if (now >= drain_end || now >= quiet_until) break;
            /* after a signal, only what is already in the pipes */
            wait = signals_seen ? 0 : (int)((drain_end < quiet_until ? drain_end : quiet_until) - now);
        } else if (signals_seen >= 2) {
            left_running = true; /* asked twice: report now */
            break;
        }
        int n = poll(pf, 2, wait);
        if (n < 0 && errno != EINTR) break;
        if (!reaped && waitpid(pid, &status, WNOHANG) == pid) {
            reaped = true;
            child_pid = 0;
            drain_end = now_ms() + DRAIN_MAX_MS;
            quiet_until = now_ms() + DRAIN_MS;
            continue; /* poll again: what is left in the pipes comes at once */
        }
        if (n <= 0) {
            if (reaped && signals_seen) break;
            continue;
        }
        if (reaped) quiet_until = now_ms() + DRAIN_MS;
        for (int i = 0; i < 2; i++) {
            if (pf[i].fd < 0 || !pf[i].revents) continue;
            ssize_t r = read(pf[i].fd, buf, CHUNK);
            if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
            if (r <= 0) {
                /* an unfinished last line waits for the end of both streams, so
                 * that its place does not depend on which pipe was polled first */
                close(pf[i].fd);
                pf[i].fd = -1;
                continue;
            }
            if (pass[i] && !write_all(i ? STDERR_FILENO : STDOUT_FILENO, buf, (size_t)r))
                pass[i] = false; /* our reader went away; the command still runs */
            c.lv.bytes += (uint64_t)r;
            if (cli_splitter_feed(&sp[i], buf, (size_t)r, &c.lineno, on_line, &c) != LDX_OK)
                oom = true;
        }
    }
    for (int i = 0; i < 2; i++) {
        if (pf[i].fd >= 0) close(pf[i].fd);
        cli_splitter_flush(&sp[i], &c.lineno, on_line, &c);
        cli_splitter_free(&sp[i]);
    }
    free(buf);
    if (!reaped && !left_running)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    child_pid = 0;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);

    if (oom) fprintf(stderr, "logdx: out of memory; the diagnosis covers the output up to here\n");
    bool copy_ok = false;
    if (c.copy) {
        copy_ok = fclose(c.copy) == 0;
        if (!copy_ok)
            fprintf(stderr, "logdx: %s: cannot write the copy: %s\n", c.copy_path, strerror(errno));
    }
    if (left_running)
        fprintf(stderr, "logdx: %s is still running (pid %ld); the diagnosis covers its output up to here\n",
                o->args[0], (long)pid);
    else
        describe_end(o->args[0], status);
    int lrc = cli_live_report(&c.lv, copy_ok ? c.copy_path : o->args[0], stderr,
                              cli_color(o, STDERR_FILENO), false);
    if (copy_ok)
        fprintf(stderr, "logdx: the output (%llu line%s) is saved in %s\n",
                (unsigned long long)c.lineno, c.lineno == 1 ? "" : "s", c.copy_path);
    /* the command's own status, as a shell reports it */
    int child_rc = left_running ? 128 + SIGINT
                   : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
    if (!o->fail_on_set)
        rc = child_rc;
    else if (child_rc != 0)
        rc = child_rc; /* a failed command never passes: its status goes through */
    else
        rc = oom ? EXIT_ERROR : lrc; /* it succeeded: logdx's 0, 1 (--fail-on) or 2 */
    free(c.copy_path);
    cli_live_end(&c.lv);
    return rc;
}
