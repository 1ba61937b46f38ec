/* runtime OUT CMD [ARG...]: runs CMD (stdout to /dev/null, stderr to OUT.err) and writes
 * "SECONDS MAXRSS_KIB EXIT" to OUT. The wall time is measured around fork and wait in
 * this process, so it is the command's own: timing with date(1) and /usr/bin/time
 * counts their start-up too, several milliseconds on a small VM, which swamps the
 * start-up row. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: runtime OUT CMD [ARG...]\n");
        return 2;
    }
    char err[4096];
    snprintf(err, sizeof err, "%s.err", argv[1]);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) return 2;
    if (pid == 0) {
        int out = open("/dev/null", O_WRONLY), e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out < 0 || e < 0) _exit(127);
        dup2(out, 1);
        dup2(e, 2);
        execvp(argv[2], argv + 2);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) return 2;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    FILE *f = fopen(argv[1], "w");
    if (!f) return 2;
    fprintf(f, "%.4f %ld %d\n", (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
            ru.ru_maxrss, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    return fclose(f) == 0 ? 0 : 2;
}
