/*
 * HTTP(S) requests, one API per platform: http_posix.c (libcurl, loaded at run time) and
 * http_win32.c (WinHTTP). Returns facts (status, what failed); the engine decides what
 * they mean, what to retry and what to tell the user.
 *
 * Both follow redirects (at most 10) but never from https to http, send the caller's own
 * headers (a registry's token) only to the host they were meant for, take proxies from the
 * system (libcurl: http_proxy, https_proxy, no_proxy; WinHTTP: the system's proxy
 * settings), and check TLS certificates against the system's store, or only against
 * ca_file when one is given.
 */
#ifndef CDM_HTTP_H
#define CDM_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum http_failure {
    HTTP_OK,          /* a response arrived (any status) and its body was read whole */
    HTTP_UNAVAILABLE, /* no HTTP client on this system (libcurl missing) */
    HTTP_BAD_URL,     /* not an http:// or https:// URL cdm can use */
    HTTP_DNS,         /* the host name does not resolve */
    HTTP_CONNECT,     /* connection refused or unreachable */
    HTTP_PROXY,       /* the proxy failed */
    HTTP_TLS,         /* TLS handshake or certificate check failed */
    HTTP_TIMEOUT,     /* no connection or no data within the timeout */
    HTTP_SLOW,        /* fewer than low_speed bytes a second over low_speed_time */
    HTTP_TOO_LONG,    /* the transfer took more than max_time */
    HTTP_CUT,         /* the connection closed before the body was whole */
    HTTP_REDIRECTS,   /* too many redirects, or one from https to http */
    HTTP_STOPPED,     /* a callback asked to stop */
    HTTP_OTHER,
};

/* The head of the final response (after redirects), for a 2xx status. */
struct http_head {
    int status;
    bool has_range;       /* a Content-Range header came */
    uint64_t range_start; /* its first byte */
    uint64_t length;      /* Content-Length of this body; 0 when unknown */
};

struct http_request {
    const char *url;
    const char *method; /* NULL: GET; also HEAD, POST and PUT (which follow no redirect) */
    /* More header lines ("Authorization: Bearer x"), NULL-terminated; NULL: none */
    const char *const *headers;
    /* A request body of upload_size bytes (POST, PUT), read in order from upload_read, which
     * returns the bytes it gave (as many as asked until the end), SIZE_MAX on an error */
    uint64_t upload_size;
    size_t (*upload_read)(void *arg, void *buf, size_t n);
    uint64_t from;       /* > 0: ask for the bytes from here on (Range: bytes=from-) */
    uint64_t to;         /* > 0: and up to this one (Range: bytes=from-to) */
    const char *accept;  /* the Accept header's value; NULL: the client's default */
    const char *ca_file; /* NULL: the system's certificate store */
    unsigned timeout;    /* seconds: to connect, and the longest wait for data */
    /* A trickle is no progress either: stop below low_speed bytes a second, averaged over
     * each low_speed_time seconds (0: no limit), and after max_time seconds in all (0: none) */
    unsigned low_speed, low_speed_time, max_time;
    /* Called once before the body of a 2xx response; nonzero stops the transfer. */
    int (*head)(void *arg, const struct http_head *head);
    /* The body of a 2xx response, in order; nonzero stops the transfer. The body of any
     * other status is read and dropped. */
    int (*body)(void *arg, const void *data, size_t n);
    void *arg;
};

struct http_result {
    enum http_failure failure;
    int status;       /* the final status, 0 when no response came */
    char detail[256]; /* the client's own words for a failure */
    /* Headers of the final response a registry's protocol needs ("" when absent; longer
     * values are cut): where an upload goes on, how to authenticate, the content's digest */
    char location[4096];
    char authenticate[1024];
    char digest[96];
};

/* A client session: connections are kept between requests to the same host. */
struct http_session;
/* NULL with result->failure set (HTTP_UNAVAILABLE and why in detail) when there is none. */
struct http_session *http_session_new(struct http_result *result);
void http_session_free(struct http_session *s);

/* One request. Returns the failure kind (also in result->failure). */
enum http_failure http_send(struct http_session *s, const struct http_request *req,
                            struct http_result *result);

/* The low-speed and overall limits of one transfer, kept the same way by each client: fed
 * the time (seconds, monotonic) and the body's bytes so far, at least once a second; true,
 * with *failure (HTTP_SLOW or HTTP_TOO_LONG) and why, once a limit of req is passed. */
struct http_speed {
    double start, window;  /* when the transfer and the current window began; 0: not yet */
    uint64_t window_bytes; /* the bytes at the window's start */
};
bool http_speed_check(struct http_speed *s, const struct http_request *req, double now,
                      uint64_t bytes, enum http_failure *failure, char *why, size_t size);

/* Wait before trying again. */
void http_pause(unsigned seconds);

#endif
