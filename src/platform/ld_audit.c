/*
 * cdm-audit.so: the LD_AUDIT library that `cdm doctor -- CMD` and `cdm exec` put into a
 * command's processes (trace_posix.c and exec_posix.c set LD_AUDIT; children inherit it).
 *
 * Redirect (CDM_REDIRECT_DIR set, by cdm exec): every cuDNN library the loader is asked
 * for, by name or by path (a soname in DT_NEEDED, dlopen("libcudnn_graph.so.9"),
 * ctypes.CDLL("/elsewhere/libcudnn.so.9")), is looked for in that folder first, by its file
 * name; when the folder has a file of that name the loader is handed it instead, so an
 * RPATH or a preload by path cannot take another copy. A name the folder lacks passes
 * unchanged: the redirect never makes a load fail that would have worked.
 *
 * Trace (CDM_TRACE_SOCKET set, by cdm doctor -- CMD): the variable names a listening
 * SOCK_SEQPACKET socket in cdm's private folder. In la_version, before any code of the
 * program runs, this process connects and says hello ("H <tab> inode of its socket"); cdm
 * checks that the process has this library mapped and has no other live connection, and
 * answers with a random token of this connection alone. The connection is moved to a high
 * descriptor with FD_CLOEXEC (an exec'd child connects anew: the variable stays for it, as
 * does LD_AUDIT, since Python's subprocess closes inherited descriptors and copies the
 * environment), and each line carries the token. trace_channel_posix.c says what that does
 * and does not prove. glibc's loader calls la_objsearch for every name it looks up and every
 * folder it tries, and la_objopen for every object it maps, whether opened by name or by
 * path; one message per object:
 *
 *   O <tab> token <tab> pid <tab> how <tab> path as opened <tab> real path
 *     <tab> name asked for <tab> the object that asked
 *
 * how: the LA_SER_* flag of the folder that found it (0 when unknown), "path" for a name
 * holding a slash, "main" for the program itself. Fields are escaped (\\, \t, \n). A
 * message is one send(), so messages of several processes never interleave; MSG_NOSIGNAL,
 * so a doctor that has stopped listening never kills the program.
 *
 * This file runs inside other programs, in the loader's audit namespace: it uses only
 * the C library, allocates nothing, and never fails the program it watches.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

/* the banned functions, without the rest of base/util.h, which this library does not link */
#include "base/banned.h"

#define LINE_MAX_BYTES (6 * PATH_MAX)

/* the connection to cdm (a high descriptor, FD_CLOEXEC) and the token cdm gave it */
static int out_fd = -1;
static char token[64];
/* The search in progress: the loader holds its lock from the search to the object's
 * mapping, so one search is open at a time. */
static char asked[PATH_MAX];
static char asker[PATH_MAX];
static char tried[PATH_MAX];
static unsigned tried_flag;
static int searching;

/* CDM_REDIRECT_DIR, "" when unset; the file a redirected name is handed as */
static char redirect_dir[PATH_MAX];
static char redirected[PATH_MAX];

/* A variable of the environment, "" or NULL when unset. getenv works in the audit namespace
 * of current glibc; /proc/self/environ (read into buf) is the fallback for loaders that
 * start the namespace without an environment. */
static const char *env_value(const char *name, char *buf, size_t size)
{
    const char *v = getenv(name);
    if (v && *v)
        return v;
    int fd = open("/proc/self/environ", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    ssize_t n = read(fd, buf, size - 1);
    close(fd);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    size_t len = strlen(name);
    for (char *p = buf; p < buf + n; p += strlen(p) + 1)
        if (!strncmp(p, name, len) && p[len] == '=' && p[len + 1])
            return p + len + 1;
    return NULL;
}

/* Descriptors from here up are the program's least likely to be dup2'd over or closed
 * by number; below it where the limit on open files is lower. */
#define CHANNEL_FD_MIN 900

/* Connect to cdm's socket, say hello, wait for the token (at most 10 s: a doctor that does
 * not answer leaves the program untraced, never stuck). out_fd stays -1 on any failure. */
static void connect_channel(const char *path)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    size_t len = strlen(path);
    if (len >= sizeof(addr.sun_path))
        return;
    memcpy(addr.sun_path, path, len + 1);
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return;
    struct stat st;
    struct timeval wait = {.tv_sec = 10};
    char hello[32] = "H\t", *p = hello + sizeof(hello) - 1;
    ssize_t n = -1;
    if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0 && fstat(fd, &st) == 0 &&
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait)) == 0) {
        unsigned long v = (unsigned long)st.st_ino;
        *p = '\0';
        do {
            *--p = (char)('0' + v % 10);
            v /= 10;
        } while (v);
        memmove(hello + 2, p, strlen(p) + 1);
        if (send(fd, hello, strlen(hello), MSG_NOSIGNAL) > 0)
            n = recv(fd, token, sizeof(token) - 1, 0);
    }
    if (n <= 0) {
        close(fd);
        token[0] = '\0';
        return;
    }
    token[n] = '\0';
    int high = fcntl(fd, F_DUPFD_CLOEXEC, CHANNEL_FD_MIN);
    if (high >= 0) {
        close(fd);
        fd = high;
    }
    out_fd = fd;
}

unsigned int la_version(unsigned int version)
{
    static char env[65536];
    const char *sock = env_value("CDM_TRACE_SOCKET", env, sizeof(env));
    if (sock)
        connect_channel(sock);
    const char *dir = env_value("CDM_REDIRECT_DIR", env, sizeof(env));
    if (dir && strlen(dir) < sizeof(redirect_dir))
        memcpy(redirect_dir, dir, strlen(dir) + 1);
    /* The interface version the loader offers is the one this file was written for
     * (la_objsearch and la_objopen are in every version). */
    return version;
}

static void copy_field(char *dst, size_t size, const char *src)
{
    size_t n = src ? strlen(src) : 0;
    if (n >= size)
        n = size - 1;
    memcpy(dst, src ? src : "", n);
    dst[n] = '\0';
}

/* The install's file of the same name as the cuDNN library name (by name or path), or NULL:
 * another library, no redirect asked for, or no such regular file in the install. */
static const char *redirect(const char *name)
{
    if (!redirect_dir[0] || !name)
        return NULL;
    const char *slash = strrchr(name, '/');
    const char *base = slash ? slash + 1 : name;
    size_t dir_len = strlen(redirect_dir), base_len = strlen(base);
    if (strncmp(base, "libcudnn", 8) != 0 || dir_len + 1 + base_len >= sizeof(redirected))
        return NULL;
    memcpy(redirected, redirect_dir, dir_len);
    redirected[dir_len] = '/';
    memcpy(redirected + dir_len + 1, base, base_len + 1);
    /* a regular file only (through its links): anything else of that name (a folder) would
     * make a load that works without cdm fail, so the search goes on as without it */
    struct stat st;
    return stat(redirected, &st) == 0 && S_ISREG(st.st_mode) ? redirected : NULL;
}

char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag)
{
    if (flag == LA_SER_ORIG) {
        const char *to = redirect(name);
        const struct link_map *by = cookie ? (const struct link_map *)*cookie : NULL;
        copy_field(asked, sizeof(asked), name);
        copy_field(asker, sizeof(asker), by && by->l_name ? by->l_name : "");
        if (!asker[0]) {
            /* the loader names the main program "" */
            ssize_t n = readlink("/proc/self/exe", asker, sizeof(asker) - 1);
            asker[n > 0 ? n : 0] = '\0';
        }
        tried[0] = '\0';
        tried_flag = 0;
        searching = 1;
        if (to) {
            /* the loader opens the install's file by its path */
            copy_field(tried, sizeof(tried), to);
            return (char *)to;
        }
    } else {
        copy_field(tried, sizeof(tried), name);
        tried_flag = flag;
    }
    return (char *)name;
}

struct line {
    char buf[LINE_MAX_BYTES];
    size_t len;
};

static void add_raw(struct line *l, const char *s)
{
    while (*s && l->len + 1 < sizeof(l->buf))
        l->buf[l->len++] = *s++;
}

static void add_field(struct line *l, const char *s)
{
    if (l->len + 1 < sizeof(l->buf))
        l->buf[l->len++] = '\t';
    for (; s && *s && l->len + 2 < sizeof(l->buf); s++) {
        const char *esc = *s == '\\' ? "\\\\" : *s == '\t' ? "\\t" : *s == '\n' ? "\\n" : NULL;
        if (esc) {
            add_raw(l, esc);
        } else {
            l->buf[l->len++] = *s;
        }
    }
}

static void add_number(struct line *l, unsigned long v)
{
    char digits[24];
    size_t n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v && n < sizeof(digits));
    char text[24];
    for (size_t i = 0; i < n; i++)
        text[i] = digits[n - 1 - i];
    text[n] = '\0';
    add_field(l, text);
}

unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
    (void)lmid;
    (void)cookie;
    if (out_fd < 0)
        return 0;
    static struct line l;
    static char real[PATH_MAX];
    const char *path = map->l_name ? map->l_name : "";
    const char *how = "0";
    const char *name = "";
    const char *by = "";
    if (!*path) {
        /* the main program: the loader names it "" */
        ssize_t n = readlink("/proc/self/exe", real, sizeof(real) - 1);
        real[n > 0 ? n : 0] = '\0';
        path = real;
        how = "main";
    } else if (searching) {
        name = asked;
        by = asker;
        if (strchr(asked, '/'))
            how = "path";
        else if (tried[0] && !strcmp(tried, path)) {
            static char flag_text[16];
            char *p = flag_text + sizeof(flag_text) - 1;
            unsigned v = tried_flag;
            *p = '\0';
            do {
                *--p = (char)('0' + v % 10);
                v /= 10;
            } while (v);
            how = p;
        }
    }
    searching = 0;
    if (path != real && !realpath(path, real))
        real[0] = '\0';
    l.len = 0;
    add_raw(&l, "O");
    add_field(&l, token);
    add_number(&l, (unsigned long)getpid());
    add_field(&l, how);
    add_field(&l, path);
    add_field(&l, real);
    add_field(&l, name);
    add_field(&l, by);
    ssize_t w = send(out_fd, l.buf, l.len, MSG_NOSIGNAL);
    (void)w; /* nothing to do about a doctor gone from inside another program */
    return 0;
}
