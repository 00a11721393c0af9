/*
 * HTTP through libcurl, loaded with dlopen when a download starts.
 *
 * Why not linked: Debian's libcurl cannot be linked statically (pkg-config --static
 * asks for the static archives of Kerberos, OpenLDAP, librtmp, libssh2, libpsl and
 * nghttp2, which Debian does not ship), and linking the shared one makes every start of
 * cdm load it and its thirty-odd libraries, a cost `cdm activate` would pay in every
 * shell prompt. Only the download commands pay it now, and a system without libcurl
 * still runs every other command.
 */
#define CURL_DISABLE_DEPRECATION
#include "http.h"
#include "cdm.h"
#include "base/util.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

struct curl_api {
    CURLcode (*global_init)(long flags);
    void (*global_cleanup)(void);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *h);
    void (*easy_reset)(CURL *h);
    CURLcode (*easy_setopt)(CURL *h, CURLoption option, ...);
    CURLcode (*easy_perform)(CURL *h);
    CURLcode (*easy_getinfo)(CURL *h, CURLINFO info, ...);
    const char *(*easy_strerror)(CURLcode code);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *s);
    void (*slist_free_all)(struct curl_slist *list);
};

struct http_session {
    void *lib;
    struct curl_api api;
    CURL *curl;
};

/* The names libcurl 7 and 8 are installed under (the OpenSSL and the GnuTLS builds). */
static const char *const curl_names[] = {"libcurl.so.4", "libcurl-gnutls.so.4"};

static bool load_symbols(void *lib, struct curl_api *api)
{
    const struct {
        const char *name;
        void **slot;
    } table[] = {
        {"curl_global_init", (void **)&api->global_init},
        {"curl_global_cleanup", (void **)&api->global_cleanup},
        {"curl_easy_init", (void **)&api->easy_init},
        {"curl_easy_cleanup", (void **)&api->easy_cleanup},
        {"curl_easy_reset", (void **)&api->easy_reset},
        {"curl_easy_setopt", (void **)&api->easy_setopt},
        {"curl_easy_perform", (void **)&api->easy_perform},
        {"curl_easy_getinfo", (void **)&api->easy_getinfo},
        {"curl_easy_strerror", (void **)&api->easy_strerror},
        {"curl_slist_append", (void **)&api->slist_append},
        {"curl_slist_free_all", (void **)&api->slist_free_all},
    };
    for (size_t i = 0; i < CDM_ARRAY_LEN(table); i++) {
        /* POSIX allows the conversion dlsym's result needs; ISO C does not know it. */
        void *sym = dlsym(lib, table[i].name);
        if (!sym)
            return false;
        memcpy(table[i].slot, &sym, sizeof(sym));
    }
    return true;
}

struct http_session *http_session_new(struct http_result *result)
{
    memset(result, 0, sizeof(*result));
    void *lib = NULL;
    for (size_t i = 0; i < CDM_ARRAY_LEN(curl_names) && !lib; i++)
        lib = dlopen(curl_names[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        result->failure = HTTP_UNAVAILABLE;
        snprintf(result->detail, sizeof(result->detail),
                 "libcurl is not installed (%s); install it (Debian and Ubuntu: apt-get "
                 "install libcurl4; Fedora: dnf install libcurl)",
                 dlerror());
        return NULL;
    }
    struct http_session *s = xcalloc(1, sizeof(*s));
    s->lib = lib;
    if (!load_symbols(lib, &s->api) || s->api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK ||
        !(s->curl = s->api.easy_init())) {
        result->failure = HTTP_UNAVAILABLE;
        COPY_STR_ARRAY(result->detail, "the libcurl found cannot be used (a symbol is missing "
                                       "or it failed to start)");
        dlclose(lib);
        free(s);
        return NULL;
    }
    return s;
}

void http_session_free(struct http_session *s)
{
    if (!s)
        return;
    s->api.easy_cleanup(s->curl);
    s->api.global_cleanup();
    dlclose(s->lib);
    free(s);
}

/* One request's state, shared by the header and body callbacks. */
struct transfer {
    const struct http_request *req;
    struct http_head head;
    bool head_given; /* req->head was called for this response */
    bool stopped;    /* a callback asked to stop */
    bool stalled;    /* no byte came for the whole timeout */
    double last;     /* when the last byte came, seconds */
    curl_off_t last_now;
    long timeout;
    struct http_speed speed;
    enum http_failure limit; /* HTTP_SLOW or HTTP_TOO_LONG once one is passed, else HTTP_OK */
    char limit_detail[128];
    struct http_result *result; /* its headers: those of the latest response */
};

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* libcurl's low-speed limit averages over several seconds, so a burst then silence is
 * noticed late: time the silence itself (libcurl calls this at least once a second). */
static int on_xfer(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                   curl_off_t ulnow)
{
    (void)dltotal, (void)ultotal;
    struct transfer *t = arg;
    double now = seconds_now();
    dlnow += ulnow; /* an upload's progress is progress too */
    if (http_speed_check(&t->speed, t->req, now, (uint64_t)dlnow, &t->limit, t->limit_detail,
                         sizeof(t->limit_detail)))
        return 1;
    if (dlnow != t->last_now || t->last == 0) {
        t->last_now = dlnow;
        t->last = now;
    } else if (now - t->last > (double)t->timeout) {
        t->stalled = true;
        return 1;
    }
    return 0;
}

static bool header_is(const char *line, size_t n, const char *name)
{
    size_t len = strlen(name);
    return n > len && !strncasecmp(line, name, len);
}

/* A header's value, without the spaces around it, into out (cut to its size). */
static void header_value(const char *buf, const char *name, char *out, size_t size)
{
    const char *v = buf + strlen(name);
    v += strspn(v, " \t");
    size_t n = strcspn(v, "\r\n");
    while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
        n--;
    char *value = xstrndup(v, n);
    copy_text(out, size, value);
    free(value);
}

static size_t on_header(char *line, size_t size, size_t count, void *arg)
{
    struct transfer *t = arg;
    struct http_result *r = t->result;
    size_t n = size * count;
    char buf[4200];
    size_t keep = n < sizeof(buf) - 1 ? n : sizeof(buf) - 1;
    memcpy(buf, line, keep);
    buf[keep] = '\0';
    if (header_is(buf, keep, "HTTP/")) {
        /* a new response (the first, or the one after a redirect): forget the last */
        memset(&t->head, 0, sizeof(t->head));
        r->location[0] = r->authenticate[0] = r->digest[0] = '\0';
        const char *sp = strchr(buf, ' ');
        t->head.status = sp ? atoi(sp + 1) : 0;
    } else if (header_is(buf, keep, "Location:")) {
        header_value(buf, "Location:", r->location, sizeof(r->location));
    } else if (header_is(buf, keep, "WWW-Authenticate:")) {
        header_value(buf, "WWW-Authenticate:", r->authenticate, sizeof(r->authenticate));
    } else if (header_is(buf, keep, "Docker-Content-Digest:")) {
        header_value(buf, "Docker-Content-Digest:", r->digest, sizeof(r->digest));
    } else if (header_is(buf, keep, "Content-Range:")) {
        unsigned long long start;
        if (sscanf(buf + strlen("Content-Range:"), " bytes %llu-", &start) == 1) {
            t->head.has_range = true;
            t->head.range_start = start;
        }
    } else if (header_is(buf, keep, "Content-Length:")) {
        t->head.length = strtoull(buf + strlen("Content-Length:"), NULL, 10);
    }
    return n;
}

static bool give_head(struct transfer *t)
{
    if (!t->head_given) {
        t->head_given = true;
        if (t->req->head && t->req->head(t->req->arg, &t->head))
            t->stopped = true;
    }
    return !t->stopped;
}

static size_t on_body(char *data, size_t size, size_t count, void *arg)
{
    struct transfer *t = arg;
    size_t n = size * count;
    if (t->head.status < 200 || t->head.status > 299)
        return n; /* an error page: read and dropped */
    if (!give_head(t))
        return 0;
    if (t->req->body && t->req->body(t->req->arg, data, n)) {
        t->stopped = true;
        return 0;
    }
    return n;
}

static size_t on_read(char *buf, size_t size, size_t count, void *arg)
{
    struct transfer *t = arg;
    size_t n = t->req->upload_read ? t->req->upload_read(t->req->arg, buf, size * count) : 0;
    if (n == SIZE_MAX) {
        t->stopped = true;
        return CURL_READFUNC_ABORT;
    }
    return n;
}

static enum http_failure classify(CURLcode code, const struct transfer *t, const char *url)
{
    if (t->stopped)
        return HTTP_STOPPED;
    if (t->stalled)
        return HTTP_TIMEOUT;
    if (t->limit != HTTP_OK)
        return t->limit;
    switch (code) {
    case CURLE_OK:
        return HTTP_OK;
    case CURLE_URL_MALFORMAT:
        return HTTP_BAD_URL;
    case CURLE_UNSUPPORTED_PROTOCOL:
        /* our own URL's scheme is allowed: a redirect went to one that is not */
        return strncmp(url, "http://", 7) && strncmp(url, "https://", 8) ? HTTP_BAD_URL
                                                                         : HTTP_REDIRECTS;
    case CURLE_COULDNT_RESOLVE_HOST:
        return HTTP_DNS;
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_PROXY:
        return HTTP_PROXY;
    case CURLE_COULDNT_CONNECT:
        return HTTP_CONNECT;
    case CURLE_OPERATION_TIMEDOUT:
        return HTTP_TIMEOUT;
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
        return HTTP_CUT;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_USE_SSL_FAILED:
        return HTTP_TLS;
    case CURLE_TOO_MANY_REDIRECTS:
        return HTTP_REDIRECTS;
    case CURLE_WRITE_ERROR:
    case CURLE_ABORTED_BY_CALLBACK:
        return HTTP_STOPPED;
    default:
        return HTTP_OTHER;
    }
}

/* The method, the body and whether redirects are followed: only a GET or a HEAD follows. */
static void set_method(const struct curl_api *api, CURL *c, const struct http_request *req,
                       struct transfer *t)
{
    const char *m = req->method ? req->method : "GET";
    bool upload = !strcmp(m, "PUT") || !strcmp(m, "POST");
    if (!strcmp(m, "HEAD"))
        api->easy_setopt(c, CURLOPT_NOBODY, 1L);
    if (!strcmp(m, "PUT")) {
        api->easy_setopt(c, CURLOPT_UPLOAD, 1L);
        api->easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)req->upload_size);
    } else if (!strcmp(m, "POST")) {
        api->easy_setopt(c, CURLOPT_POST, 1L);
        api->easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->upload_size);
    }
    if (upload) {
        api->easy_setopt(c, CURLOPT_READFUNCTION, on_read);
        api->easy_setopt(c, CURLOPT_READDATA, t);
    } else {
        api->easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
        api->easy_setopt(c, CURLOPT_MAXREDIRS, 10L);
    }
}

/* The request's header lines: what it accepts, the caller's, and no "Expect: 100-continue"
 * (a wait of a second before each upload's body). */
static struct curl_slist *header_lines(const struct curl_api *api, const struct http_request *req)
{
    struct curl_slist *headers = api->slist_append(NULL, "Expect:");
    if (req->accept) {
        char *accept = xasprintf("Accept: %s", req->accept);
        headers = api->slist_append(headers, accept);
        free(accept);
    }
    for (const char *const *h = req->headers; h && *h; h++)
        headers = api->slist_append(headers, *h);
    return headers;
}

enum http_failure http_send(struct http_session *s, const struct http_request *req,
                            struct http_result *result)
{
    memset(result, 0, sizeof(*result));
    const struct curl_api *api = &s->api;
    CURL *c = s->curl;
    long timeout = req->timeout ? (long)req->timeout : 30;
    struct transfer t = {.req = req, .timeout = timeout, .result = result};
    char errbuf[CURL_ERROR_SIZE] = "";
    char range[48];
    bool https = !strncmp(req->url, "https://", 8);
    api->easy_reset(c); /* keeps the connections, drops the last request's options */
    api->easy_setopt(c, CURLOPT_URL, req->url);
    api->easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    api->easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    api->easy_setopt(c, CURLOPT_USERAGENT, "cdm/" CDM_VERSION_STRING);
    if (api->easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_UNKNOWN_OPTION)
        api->easy_setopt(c, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
    if (api->easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, https ? "https" : "http,https") ==
        CURLE_UNKNOWN_OPTION)
        api->easy_setopt(c, CURLOPT_REDIR_PROTOCOLS,
                         (long)(https ? CURLPROTO_HTTPS : CURLPROTO_HTTP | CURLPROTO_HTTPS));
    set_method(api, c, req, &t);
    api->easy_setopt(c, CURLOPT_CONNECTTIMEOUT, timeout);
    api->easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    api->easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_xfer);
    api->easy_setopt(c, CURLOPT_XFERINFODATA, &t);
    if (req->ca_file)
        api->easy_setopt(c, CURLOPT_CAINFO, req->ca_file);
    if (req->to)
        snprintf(range, sizeof(range), "%llu-%llu", (unsigned long long)req->from,
                 (unsigned long long)req->to);
    else if (req->from)
        snprintf(range, sizeof(range), "%llu-", (unsigned long long)req->from);
    if (req->from || req->to)
        api->easy_setopt(c, CURLOPT_RANGE, range);
    struct curl_slist *headers = header_lines(api, req);
    api->easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    api->easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    api->easy_setopt(c, CURLOPT_HEADERDATA, &t);
    api->easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    api->easy_setopt(c, CURLOPT_WRITEDATA, &t);
    CURLcode code = api->easy_perform(c);
    api->slist_free_all(headers);
    long status = 0;
    api->easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    result->status = (int)status;
    /* a 2xx response with an empty body still has a head */
    if (code == CURLE_OK && status >= 200 && status <= 299)
        give_head(&t);
    result->failure = classify(code, &t, req->url);
    if (t.stalled)
        snprintf(result->detail, sizeof(result->detail), "no data for %ld s", timeout);
    else if (t.limit != HTTP_OK)
        COPY_STR_ARRAY(result->detail, t.limit_detail);
    else if (result->failure != HTTP_OK)
        copy_text(result->detail, sizeof(result->detail),
                  *errbuf ? errbuf : api->easy_strerror(code));
    return result->failure;
}

void http_pause(unsigned seconds)
{
    struct timespec t = {(time_t)seconds, 0};
    while (nanosleep(&t, &t) != 0 && errno == EINTR)
        ;
}
