/* Asking a cuDNN library on POSIX: in a child process, so that it cannot take cdm down
 * (probe.h). */
#define _GNU_SOURCE /* strsignal */
#include "fs.h"
#include "probe.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void write_line(void *arg, const char *line)
{
    int fd = *(int *)arg;
    size_t n = strlen(line);
    char buf[700];
    if (n >= sizeof(buf))
        n = sizeof(buf) - 1;
    memcpy(buf, line, n);
    buf[n] = '\n';
    /* one write a line: what came before a crash is in the pipe already */
    ssize_t w = write(fd, buf, n + 1);
    (void)w;
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void cudnn_probe(const char *path, unsigned timeout_ms, struct cudnn_probe *out)
{
    int fds[2];
    struct strbuf lines = STRBUF_INIT;
    memset(out, 0, sizeof(*out));
    if (pipe(fds) != 0) {
        snprintf(out->death, sizeof(out->death), "no pipe to a child: %s", strerror(errno));
        return;
    }
    fflush(NULL); /* nothing buffered is written twice by the child */
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(out->death, sizeof(out->death), "no child process: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return;
    }
    if (pid == 0) {
        close(fds[0]);
        probe_ask(path, write_line, &fds[1]);
        _exit(0);
    }
    close(fds[1]);
    long long deadline = now_ms() + timeout_ms;
    bool timed_out = false;
    for (;;) {
        long long left = deadline - now_ms();
        struct pollfd p = {fds[0], POLLIN, 0};
        int ready = left > 0 ? poll(&p, 1, (int)left) : 0;
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0) {
            timed_out = ready == 0;
            break;
        }
        char buf[4096];
        ssize_t n = read(fds[0], buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (lines.len < (1u << 20))
            sb_addn(&lines, buf, (size_t)n);
    }
    close(fds[0]);
    if (timed_out)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    probe_parse(sb_str(&lines), out);
    sb_free(&lines);
    if (out->stopped == PROBE_DONE)
        return;
    if (timed_out)
        probe_note_timeout(out, timeout_ms);
    else if (WIFSIGNALED(status))
        snprintf(out->death, sizeof(out->death), "killed the process by signal %d (%s)",
                 WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(out->death, sizeof(out->death), "ended the process with status %d",
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}
