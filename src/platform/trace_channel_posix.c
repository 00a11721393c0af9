/*
 * The doctor's channel (trace_channel.h). Why a socket with per-connection tokens, and what
 * it proves:
 *
 * The traced program and cdm-audit.so share one address space, so nothing can stop a
 * program from writing whatever it likes through the library's own connection once it
 * reads the library's memory: the trace is evidence of what loaded, not a security boundary
 * against the program. What the design does stop is a program, or a process it starts,
 * putting lines into the report by the means it is handed or can find without that:
 * - nothing is a file: the old design named a file in the environment, which the program
 *   could append to;
 * - a connection is believed only if it comes from a process of the command's own tree
 *   (its parents lead to the command, or it is in the command's own process group), so that
 *   another process of the user that has the library mapped (a cdm exec elsewhere) and
 *   reads the socket's name from /proc/<pid>/environ is refused;
 * - and only from a process that has the audit library
 *   mapped and has no other live connection (its earlier one gone with an exec); the audit
 *   library connects in la_version, before any code of the program runs, so in every
 *   process that the loader started with LD_AUDIT the first connection is the library's.
 *   Connecting to CDM_TRACE_SOCKET from the program itself, or from a child (whose own
 *   audit library connected first), or from a child run without LD_AUDIT is refused;
 * - each line carries its connection's token, which cdm sent on that connection only and
 *   the library read before the program ran: a line written to a descriptor the program
 *   finds in /proc/self/fd without it is ignored;
 * - what is kept is bounded (trace_channel.h) and the rest read and dropped.
 * What a program can still do besides reading memory: fork without exec and connect from
 * the fork (a new process, with the library mapped and no connection of its own), or close
 * the library's connection and connect again. Refused connections and ignored lines are
 * counted, and the doctor reports them.
 */
#define _GNU_SOURCE /* SO_PEERCRED, struct ucred */
#include "trace_channel.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* ld_audit.c's line, 6 * PATH_MAX, with room for the token and the pid */
#define MESSAGE_MAX (7 * 4096)
/* glibc's LA_SER_* values (<link.h>, a stable ABI), as ld_audit.c writes them */
enum { SER_LIBPATH = 0x02, SER_RUNPATH = 0x04, SER_CONFIG = 0x08, SER_DEFAULT = 0x40 };

struct connection {
    int fd;
    pid_t pid;
    unsigned long inode; /* of the process's end, from its hello; 0 before it */
    char token[33];      /* "" until the hello was accepted */
};

struct trace_channel {
    int listen_fd;
    pid_t root; /* the command; 0 before it started */
    char *path;
    char *audit;
    struct connection *conns;
    size_t count;
    size_t bytes; /* read from every connection */
    char *message;
};

int trace_channel_open(cdm_ctx *ctx, const char *dir, const char *audit, struct trace_channel **out)
{
    struct trace_channel *ch = xcalloc(1, sizeof(*ch));
    ch->path = path_join(dir, "channel");
    ch->audit = xstrdup(audit);
    ch->message = xmalloc(MESSAGE_MAX);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    ch->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (strlen(ch->path) >= sizeof(addr.sun_path)) {
        errno = ENAMETOOLONG;
    } else if (ch->listen_fd >= 0) {
        memcpy(addr.sun_path, ch->path, strlen(ch->path) + 1);
        if (bind(ch->listen_fd, (struct sockaddr *)&addr, sizeof(addr)) == 0 &&
            listen(ch->listen_fd, SOMAXCONN) == 0) {
            *out = ch;
            return CDM_OK;
        }
    }
    cdm_error_os(ctx, CDM_EIO, "cannot make the doctor's channel '%s'", ch->path);
    int rc = cdm_error_append(ctx, CDM_EIO, "; set TMPDIR to a short local folder");
    trace_channel_close(ch);
    return rc;
}

const char *trace_channel_path(const struct trace_channel *ch)
{
    return ch->path;
}

void trace_channel_set_root(struct trace_channel *ch, long pid)
{
    ch->root = (pid_t)pid;
}

/* pid's parent and process group, from /proc/<pid>/stat; false when it is gone. */
static bool parent_and_group(pid_t pid, pid_t *parent, pid_t *group)
{
    char path[64], text[1024];
    snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return false;
    text[n] = '\0';
    /* "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses */
    const char *end = strrchr(text, ')');
    long pp, pg;
    char state;
    if (!end || sscanf(end + 1, " %c %ld %ld", &state, &pp, &pg) != 3)
        return false;
    *parent = (pid_t)pp;
    *group = (pid_t)pg;
    return true;
}

/* Is pid the command or one of its processes? Its parents up to the command, or the
 * command's own process group (a child whose parent ended before it connected). */
static bool in_command_tree(const struct trace_channel *ch, pid_t pid)
{
    if (!ch->root)
        return false;
    for (int depth = 0; depth < 1024 && pid > 1; depth++) {
        pid_t parent, group;
        if (pid == ch->root)
            return true;
        if (!parent_and_group(pid, &parent, &group))
            return false;
        if (group == ch->root)
            return true;
        pid = parent;
    }
    return false;
}

/* Is the audit library mapped in pid? Read while the process waits for our answer. */
static bool has_audit_library(const struct trace_channel *ch, pid_t pid)
{
    char maps[64];
    snprintf(maps, sizeof(maps), "/proc/%ld/maps", (long)pid);
    FILE *f = fopen(maps, "re");
    if (!f)
        return false;
    bool found = false;
    size_t len = strlen(ch->audit);
    struct strbuf line = STRBUF_INIT;
    int c;
    while (!found && (c = fgetc(f)) != EOF) {
        if (c != '\n') {
            sb_addc(&line, (char)c);
            continue;
        }
        found = line.len > len && !strcmp(line.buf + line.len - len, ch->audit) &&
                line.buf[line.len - len - 1] == ' ';
        sb_reset(&line);
    }
    sb_free(&line);
    fclose(f);
    return found;
}

/* Does pid still hold the socket of that inode (its earlier connection)? */
static bool holds_socket(pid_t pid, unsigned long inode)
{
    char fd_dir[64], want[64];
    snprintf(fd_dir, sizeof(fd_dir), "/proc/%ld/fd", (long)pid);
    snprintf(want, sizeof(want), "socket:[%lu]", inode);
    DIR *d = opendir(fd_dir);
    if (!d)
        return false;
    bool held = false;
    struct dirent *e;
    while (!held && (e = readdir(d))) {
        char target[64];
        ssize_t n = readlinkat(dirfd(d), e->d_name, target, sizeof(target) - 1);
        held = n > 0 && (target[n] = '\0', !strcmp(target, want));
    }
    closedir(d);
    return held;
}

/* A connection's first message: the audit library's hello. Believed, and answered with
 * the token, only as the comment at the top says. */
static bool accept_hello(struct trace_channel *ch, struct connection *c, const char *msg)
{
    char *end;
    if (strncmp(msg, "H\t", 2) != 0)
        return false;
    unsigned long inode = strtoul(msg + 2, &end, 10);
    if (*end || !inode || !in_command_tree(ch, c->pid) || !has_audit_library(ch, c->pid))
        return false;
    for (size_t i = 0; i < ch->count; i++) {
        const struct connection *o = &ch->conns[i];
        if (o != c && o->token[0] && o->pid == c->pid && holds_socket(o->pid, o->inode))
            return false;
    }
    unsigned char random[16];
    if (getrandom(random, sizeof(random), 0) != (ssize_t)sizeof(random))
        return false;
    for (size_t i = 0; i < sizeof(random); i++)
        snprintf(c->token + 2 * i, 3, "%02x", random[i]);
    c->inode = inode;
    return send(c->fd, c->token, strlen(c->token), MSG_NOSIGNAL) > 0;
}

/* Undo ld_audit.c's escapes in place. */
static void unescape(char *s)
{
    char *w = s;
    for (const char *r = s; *r; r++) {
        if (*r == '\\' && r[1]) {
            r++;
            *w++ = *r == 't' ? '\t' : *r == 'n' ? '\n' : *r;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
}

static enum trace_how how_of(const char *text)
{
    if (!strcmp(text, "main"))
        return TRACE_MAIN;
    if (!strcmp(text, "path"))
        return TRACE_PATH;
    switch (atoi(text)) {
    case SER_LIBPATH:
        return TRACE_LIBPATH;
    case SER_RUNPATH:
        return TRACE_RUNPATH;
    case SER_CONFIG:
        return TRACE_CACHE;
    case SER_DEFAULT:
        return TRACE_DEFAULT;
    default:
        return TRACE_UNKNOWN;
    }
}

/* "O", the connection's token and six fields: an object. Anything else is ignored. */
static void take_line(const struct connection *c, char *msg, struct trace_result *r)
{
    size_t tlen = strlen(c->token);
    if (strncmp(msg, "O\t", 2) || !tlen || strncmp(msg + 2, c->token, tlen) ||
        msg[2 + tlen] != '\t') {
        r->ignored++;
        return;
    }
    size_t len = strlen(msg);
    if (len && msg[len - 1] == '\n') /* a line as a person would write it */
        msg[len - 1] = '\0';
    char *fields[6];
    size_t n = 0;
    for (char *p = msg + 3 + tlen; n < 6;) {
        fields[n++] = p;
        char *tab = strchr(p, '\t');
        if (!tab)
            break;
        *tab = '\0';
        p = tab + 1;
    }
    if (n != 6) {
        r->ignored++;
        return;
    }
    if (r->count >= TRACE_MAX_OBJECTS) {
        r->cut = true;
        return;
    }
    for (size_t i = 0; i < n; i++)
        unescape(fields[i]);
    ALLOC_GROW(r->objects, r->count);
    struct trace_object *o = &r->objects[r->count++];
    o->pid = strtoull(fields[0], NULL, 10);
    o->how = how_of(fields[1]);
    o->path = xstrdup(fields[2]);
    o->real_path = xstrdup(fields[3]);
    o->asked = xstrdup(fields[4]);
    o->asker = xstrdup(fields[5]);
    if (o->how == TRACE_MAIN)
        r->processes++;
}

static void drop_connection(struct trace_channel *ch, size_t i)
{
    close(ch->conns[i].fd);
    ch->conns[i] = ch->conns[--ch->count];
}

static void accept_connections(struct trace_channel *ch, struct trace_result *r)
{
    int fd;
    while ((fd = accept4(ch->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0) {
        struct ucred cred;
        socklen_t len = sizeof(cred);
        if (ch->count >= TRACE_MAX_CONNECTIONS ||
            getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
            r->cut = r->cut || ch->count >= TRACE_MAX_CONNECTIONS;
            r->ignored++;
            close(fd);
            continue;
        }
        ALLOC_GROW(ch->conns, ch->count);
        ch->conns[ch->count++] = (struct connection){.fd = fd, .pid = cred.pid};
    }
}

/* Read what connection i has; false when it is done (closed, or refused). */
static bool read_connection(struct trace_channel *ch, size_t i, struct trace_result *r)
{
    struct connection *c = &ch->conns[i];
    for (;;) {
        ssize_t n = recv(c->fd, ch->message, MESSAGE_MAX - 1, MSG_TRUNC);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
            return false;
        if (n < 0)
            return true;
        bool whole = (size_t)n < MESSAGE_MAX; /* else cut by the buffer: not ld_audit.c's */
        if (whole)
            ch->message[n] = '\0';
        if (!c->token[0]) {
            /* answered even past the bounds: the process waits for it to start */
            if (!whole || !accept_hello(ch, c, ch->message)) {
                r->ignored++;
                return false;
            }
            continue;
        }
        ch->bytes += (size_t)n;
        if (ch->bytes > TRACE_MAX_BYTES)
            r->cut = true;
        else if (!whole)
            r->ignored++;
        else
            take_line(c, ch->message, r);
    }
}

size_t trace_channel_poll(struct trace_channel *ch, int ms, struct trace_result *r)
{
    size_t n = ch->count + 1;
    struct pollfd *fds = xcalloc(n, sizeof(*fds));
    for (size_t i = 0; i < ch->count; i++)
        fds[i] = (struct pollfd){.fd = ch->conns[i].fd, .events = POLLIN};
    fds[n - 1] = (struct pollfd){.fd = ch->listen_fd, .events = POLLIN};
    size_t handled = 0;
    if (poll(fds, n, ms) > 0) {
        /* the connections first, so an exec's closed connection is seen before the new
         * image's hello; backwards, as drop_connection moves the last one into the gap */
        for (size_t i = n - 1; i-- > 0;) {
            if (!fds[i].revents)
                continue;
            handled++;
            if (!read_connection(ch, i, r))
                drop_connection(ch, i);
        }
        if (fds[n - 1].revents) {
            handled++;
            accept_connections(ch, r);
        }
    }
    free(fds);
    return handled;
}

void trace_channel_close(struct trace_channel *ch)
{
    if (!ch)
        return;
    while (ch->count)
        drop_connection(ch, ch->count - 1);
    if (ch->listen_fd >= 0) {
        close(ch->listen_fd);
        unlink(ch->path);
    }
    free(ch->conns);
    free(ch->message);
    free(ch->audit);
    free(ch->path);
    free(ch);
}
