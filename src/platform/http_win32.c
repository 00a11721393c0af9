/*
 * HTTP through WinHTTP: part of Windows, so cdm.exe ships no TLS library and needs no
 * DLL beside it. WinHTTP takes the system's proxy settings (automatic proxy, Windows
 * 8.1 and later; the WinHTTP proxy before) and checks certificates against the system's
 * store. A [fetch] ca_file adds trust anchors for a private mirror: WinHTTP is told to
 * accept an unknown root, and the chain is then checked here, before any byte of the
 * body is read, against the system's store or, failing that, the file's certificates.
 */
#include "fs.h"
#include "http.h"
#include "cdm.h"
#include "base/util.h"
#include "win32_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wincrypt.h>
#include <winhttp.h>

#define READ_SIZE (256 * 1024)

struct http_session {
    HINTERNET h;
};

struct http_session *http_session_new(struct http_result *result)
{
    memset(result, 0, sizeof(*result));
    const wchar_t *agent = L"cdm/" CDM_VERSION_STRING;
    HINTERNET h = WinHttpOpen(agent, WINHTTP_ACCESS_TYPE_AUTOMATIC_PROXY, WINHTTP_NO_PROXY_NAME,
                              WINHTTP_NO_PROXY_BYPASS, 0);
    if (!h) /* before Windows 8.1: the proxy set with netsh winhttp */
        h = WinHttpOpen(agent, WINHTTP_ACCESS_TYPE_DEFAULT_PROXY, WINHTTP_NO_PROXY_NAME,
                        WINHTTP_NO_PROXY_BYPASS, 0);
    if (!h) {
        char *why = win_error_text(GetLastError());
        result->failure = HTTP_UNAVAILABLE;
        snprintf(result->detail, sizeof(result->detail), "WinHTTP cannot start: %s", why);
        free(why);
        return NULL;
    }
    struct http_session *s = xcalloc(1, sizeof(*s));
    s->h = h;
    return s;
}

void http_session_free(struct http_session *s)
{
    if (!s)
        return;
    WinHttpCloseHandle(s->h);
    free(s);
}

static enum http_failure classify(DWORD e)
{
    switch (e) {
    case ERROR_WINHTTP_NAME_NOT_RESOLVED:
        return HTTP_DNS;
    case ERROR_WINHTTP_CANNOT_CONNECT:
        return HTTP_CONNECT;
    case ERROR_WINHTTP_TIMEOUT:
        return HTTP_TIMEOUT;
    case ERROR_WINHTTP_CONNECTION_ERROR:
    case ERROR_WINHTTP_INVALID_SERVER_RESPONSE:
        return HTTP_CUT;
    case ERROR_WINHTTP_SECURE_FAILURE:
    case ERROR_WINHTTP_SECURE_CERT_DATE_INVALID:
    case ERROR_WINHTTP_SECURE_CERT_CN_INVALID:
    case ERROR_WINHTTP_SECURE_INVALID_CA:
    case ERROR_WINHTTP_SECURE_CERT_REV_FAILED:
    case ERROR_WINHTTP_SECURE_CHANNEL_ERROR:
    case ERROR_WINHTTP_SECURE_INVALID_CERT:
    case ERROR_WINHTTP_SECURE_CERT_REVOKED:
    case ERROR_WINHTTP_SECURE_CERT_WRONG_USAGE:
        return HTTP_TLS;
    case ERROR_WINHTTP_REDIRECT_FAILED:
        return HTTP_REDIRECTS;
    case ERROR_WINHTTP_INVALID_URL:
    case ERROR_WINHTTP_UNRECOGNIZED_SCHEME:
        return HTTP_BAD_URL;
    case ERROR_WINHTTP_AUTO_PROXY_SERVICE_ERROR:
    case ERROR_WINHTTP_AUTODETECTION_FAILED:
    case ERROR_WINHTTP_BAD_AUTO_PROXY_SCRIPT:
    case ERROR_WINHTTP_UNABLE_TO_DOWNLOAD_SCRIPT:
        return HTTP_PROXY;
    default:
        return HTTP_OTHER;
    }
}

static enum http_failure fail(struct http_result *r, enum http_failure kind, DWORD e)
{
    char *why = win_error_text(e);
    r->failure = kind;
    copy_text(r->detail, sizeof(r->detail), why);
    free(why);
    return kind;
}

/* ---- [fetch] ca_file ---------------------------------------------------------------- */

/* The PEM certificates of path in a memory store; NULL (why set) when there are none. */
static HCERTSTORE load_ca_file(const char *path, char *why, size_t why_size)
{
    FILE *f = fs_fopen_read(path);
    if (!f) {
        snprintf(why, why_size, "cannot read [fetch] ca_file '%s'", path);
        return NULL;
    }
    struct strbuf pem = STRBUF_INIT;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0 && pem.len < (1u << 20))
        sb_addn(&pem, buf, n);
    fclose(f);
    HCERTSTORE store = CertOpenStore(CERT_STORE_PROV_MEMORY, 0, 0, 0, NULL);
    unsigned added = 0;
    const char *begin = "-----BEGIN CERTIFICATE-----", *end = "-----END CERTIFICATE-----";
    for (const char *p = strstr(sb_str(&pem), begin); store && p; p = strstr(p, begin)) {
        const char *e = strstr(p, end);
        if (!e)
            break;
        e += strlen(end);
        DWORD der_len = 0;
        if (CryptStringToBinaryA(p, (DWORD)(e - p), CRYPT_STRING_BASE64HEADER, NULL, &der_len, NULL,
                                 NULL)) {
            BYTE *der = xmalloc(der_len);
            if (CryptStringToBinaryA(p, (DWORD)(e - p), CRYPT_STRING_BASE64HEADER, der, &der_len,
                                     NULL, NULL) &&
                CertAddEncodedCertificateToStore(store, X509_ASN_ENCODING, der, der_len,
                                                 CERT_STORE_ADD_ALWAYS, NULL))
                added++;
            free(der);
        }
        p = e;
    }
    sb_free(&pem);
    if (store && !added) {
        CertCloseStore(store, 0);
        store = NULL;
    }
    if (!store)
        snprintf(why, why_size, "[fetch] ca_file '%s' holds no PEM certificate", path);
    return store;
}

static DWORD ssl_policy(PCCERT_CHAIN_CONTEXT chain, wchar_t *host, DWORD ignore)
{
    SSL_EXTRA_CERT_CHAIN_POLICY_PARA ssl;
    memset(&ssl, 0, sizeof(ssl));
    ssl.cbSize = sizeof(ssl);
    ssl.dwAuthType = AUTHTYPE_SERVER;
    ssl.fdwChecks = ignore;
    ssl.pwszServerName = host;
    CERT_CHAIN_POLICY_PARA para;
    memset(&para, 0, sizeof(para));
    para.cbSize = sizeof(para);
    para.pvExtraPolicyPara = &ssl;
    CERT_CHAIN_POLICY_STATUS status;
    memset(&status, 0, sizeof(status));
    status.cbSize = sizeof(status);
    if (!CertVerifyCertificateChainPolicy(CERT_CHAIN_POLICY_SSL, chain, &para, &status))
        return (DWORD)CERT_E_CHAINING;
    return (DWORD)status.dwError;
}

/* The server's chain is trusted by the system, or ends at one of extra's certificates. */
static bool chain_trusted(HINTERNET request, HCERTSTORE extra, wchar_t *host, DWORD *status)
{
    PCCERT_CONTEXT cert = NULL;
    DWORD size = sizeof(cert);
    if (!WinHttpQueryOption(request, WINHTTP_OPTION_SERVER_CERT_CONTEXT, &cert, &size) || !cert)
        return false;
    CERT_CHAIN_PARA para;
    memset(&para, 0, sizeof(para));
    para.cbSize = sizeof(para);
    PCCERT_CHAIN_CONTEXT chain = NULL;
    bool ok = false;
    if (CertGetCertificateChain(NULL, cert, NULL, extra, &para, 0, NULL, &chain) && chain) {
        /* The chain's own status first: the SSL policy alone lets a partial chain (an
         * issuer found nowhere) pass under Wine. */
        DWORD st = *status = chain->TrustStatus.dwErrorStatus;
        if (st == CERT_TRUST_NO_ERROR) {
            ok = ssl_policy(chain, host, 0) == 0;
        } else if (st == CERT_TRUST_IS_UNTRUSTED_ROOT && chain->cChain > 0) {
            const CERT_SIMPLE_CHAIN *simple = chain->rgpChain[0];
            PCCERT_CONTEXT root = simple->rgpElement[simple->cElement - 1]->pCertContext;
            PCCERT_CONTEXT found = CertFindCertificateInStore(extra, X509_ASN_ENCODING, 0,
                                                              CERT_FIND_EXISTING, root, NULL);
            if (found) { /* a root of ca_file: the names and dates must hold all the same */
                CertFreeCertificateContext(found);
                ok = ssl_policy(chain, host, SECURITY_FLAG_IGNORE_UNKNOWN_CA) == 0;
            }
        }
        CertFreeCertificateChain(chain);
    }
    CertFreeCertificateContext(cert);
    return ok;
}

/* ---- one GET ------------------------------------------------------------------------ */

static bool query_text(HINTERNET request, DWORD what, wchar_t *out, DWORD chars)
{
    DWORD size = chars * sizeof(wchar_t);
    return WinHttpQueryHeaders(request, what, WINHTTP_HEADER_NAME_BY_INDEX, out, &size,
                               WINHTTP_NO_HEADER_INDEX) != FALSE;
}

static void read_head(HINTERNET request, struct http_head *head)
{
    memset(head, 0, sizeof(*head));
    DWORD status = 0, size = sizeof(status);
    if (WinHttpQueryHeaders(request, WINHTTP_QUERY_STATUS_CODE | WINHTTP_QUERY_FLAG_NUMBER,
                            WINHTTP_HEADER_NAME_BY_INDEX, &status, &size, WINHTTP_NO_HEADER_INDEX))
        head->status = (int)status;
    wchar_t text[128];
    unsigned long long start;
    if (query_text(request, WINHTTP_QUERY_CONTENT_RANGE, text, CDM_ARRAY_LEN(text)) &&
        swscanf(text, L"bytes %llu-", &start) == 1) {
        head->has_range = true;
        head->range_start = start;
    }
    if (query_text(request, WINHTTP_QUERY_CONTENT_LENGTH, text, CDM_ARRAY_LEN(text)))
        head->length = wcstoull(text, NULL, 10);
}

/* The body: handed on for a 2xx status, dropped for any other. */
static enum http_failure read_body(HINTERNET request, const struct http_request *req,
                                   const struct http_head *head, struct http_result *r)
{
    bool wanted = head->status >= 200 && head->status <= 299;
    if (wanted && req->head && req->head(req->arg, head))
        return r->failure = HTTP_STOPPED;
    char *buf = xmalloc(READ_SIZE);
    uint64_t got = 0;
    enum http_failure kind = HTTP_OK;
    struct http_speed speed = {0};
    /* each read returns what came, so a trickle passes here often enough to be judged */
    while (!http_speed_check(&speed, req, (double)GetTickCount64() / 1000.0, got, &kind, r->detail,
                             sizeof(r->detail))) {
        DWORD n = 0;
        if (!WinHttpReadData(request, buf, READ_SIZE, &n)) {
            DWORD e = GetLastError();
            kind = fail(r, classify(e), e);
            break;
        }
        if (n == 0)
            break;
        got += n;
        if (wanted && req->body && req->body(req->arg, buf, n)) {
            kind = r->failure = HTTP_STOPPED;
            break;
        }
    }
    free(buf);
    if (kind == HTTP_SLOW || kind == HTTP_TOO_LONG)
        r->failure = kind;
    /* A connection closed early can end like a whole body: count against the length. */
    if (kind == HTTP_OK && head->length && got < head->length) {
        kind = r->failure = HTTP_CUT;
        snprintf(r->detail, sizeof(r->detail), "the connection closed after %llu of %llu bytes",
                 (unsigned long long)got, (unsigned long long)head->length);
    }
    return kind;
}

/* The request's own headers: the range a resumed download starts at, what it accepts. */
static void add_headers(HINTERNET request, const struct http_request *req)
{
    if (req->from || req->to) {
        wchar_t range[80];
        if (req->to)
            swprintf(range, CDM_ARRAY_LEN(range), L"Range: bytes=%llu-%llu",
                     (unsigned long long)req->from, (unsigned long long)req->to);
        else
            swprintf(range, CDM_ARRAY_LEN(range), L"Range: bytes=%llu-",
                     (unsigned long long)req->from);
        WinHttpAddRequestHeaders(request, range, (DWORD)-1L, WINHTTP_ADDREQ_FLAG_ADD);
    }
    if (req->accept) {
        char *line = xasprintf("Accept: %s", req->accept);
        wchar_t *accept = win_wide(line);
        WinHttpAddRequestHeaders(request, accept, (DWORD)-1L,
                                 WINHTTP_ADDREQ_FLAG_ADD | WINHTTP_ADDREQ_FLAG_REPLACE);
        free(accept);
        free(line);
    }
    for (const char *const *h = req->headers; h && *h; h++) {
        wchar_t *line = win_wide(*h);
        WinHttpAddRequestHeaders(request, line, (DWORD)-1L,
                                 WINHTTP_ADDREQ_FLAG_ADD | WINHTTP_ADDREQ_FLAG_REPLACE);
        free(line);
    }
}

/* A header of the response into out as UTF-8, "" when absent (name: for a custom one). */
static void query_into(HINTERNET request, DWORD what, const wchar_t *name, char *out, size_t size)
{
    wchar_t text[4096];
    DWORD bytes = sizeof(text);
    out[0] = '\0';
    if (!WinHttpQueryHeaders(request, what, name ? name : WINHTTP_HEADER_NAME_BY_INDEX, text,
                             &bytes, WINHTTP_NO_HEADER_INDEX))
        return;
    char *utf8 = win_narrow(text);
    if (utf8)
        copy_text(out, size, utf8);
    free(utf8);
}

static void read_protocol_headers(HINTERNET request, struct http_result *r)
{
    query_into(request, WINHTTP_QUERY_LOCATION, NULL, r->location, sizeof(r->location));
    query_into(request, WINHTTP_QUERY_WWW_AUTHENTICATE, NULL, r->authenticate,
               sizeof(r->authenticate));
    query_into(request, WINHTTP_QUERY_CUSTOM, L"Docker-Content-Digest", r->digest,
               sizeof(r->digest));
}

/* Send the request and its body (a PUT's or a POST's), then wait for the response's head. */
static enum http_failure send_request(HINTERNET request, const struct http_request *req,
                                      struct http_result *r)
{
    uint64_t size = req->upload_size;
    DWORD total = size > 0xffffffffu ? WINHTTP_IGNORE_REQUEST_TOTAL_LENGTH : (DWORD)size;
    if (size > 0xffffffffu) {
        wchar_t length[64];
        swprintf(length, CDM_ARRAY_LEN(length), L"Content-Length: %llu", (unsigned long long)size);
        WinHttpAddRequestHeaders(request, length, (DWORD)-1L, WINHTTP_ADDREQ_FLAG_ADD);
    }
    if (!WinHttpSendRequest(request, WINHTTP_NO_ADDITIONAL_HEADERS, 0, WINHTTP_NO_REQUEST_DATA, 0,
                            total, 0)) {
        DWORD e = GetLastError();
        return fail(r, classify(e), e);
    }
    char *buf = size ? xmalloc(READ_SIZE) : NULL;
    for (uint64_t sent = 0; sent < size;) {
        size_t want = size - sent < READ_SIZE ? (size_t)(size - sent) : READ_SIZE;
        size_t n = req->upload_read ? req->upload_read(req->arg, buf, want) : 0;
        DWORD wrote = 0;
        if (n == SIZE_MAX || n == 0) {
            free(buf);
            COPY_STR_ARRAY(r->detail, "the body to send could not be read whole");
            return r->failure = HTTP_STOPPED;
        }
        if (!WinHttpWriteData(request, buf, (DWORD)n, &wrote)) {
            DWORD e = GetLastError();
            free(buf);
            return fail(r, classify(e), e);
        }
        sent += n;
    }
    free(buf);
    if (!WinHttpReceiveResponse(request, NULL)) {
        DWORD e = GetLastError();
        return fail(r, classify(e), e);
    }
    read_protocol_headers(request, r);
    return HTTP_OK;
}

/* With [fetch] ca_file: the chain of the host that answered last (after any redirect) is
 * trusted by Windows or by one of the file's certificates. */
static enum http_failure check_extra_trust(HINTERNET request, const char *url, HCERTSTORE extra,
                                           struct http_result *r)
{
    wchar_t host[256], final_url[4096];
    DWORD size = sizeof(final_url);
    URL_COMPONENTS fc;
    memset(&fc, 0, sizeof(fc));
    fc.dwStructSize = sizeof(fc);
    fc.lpszHostName = host;
    fc.dwHostNameLength = CDM_ARRAY_LEN(host);
    host[0] = L'\0';
    wchar_t *asked = win_wide(url);
    WinHttpCrackUrl(WinHttpQueryOption(request, WINHTTP_OPTION_URL, final_url, &size) ? final_url
                                                                                      : asked,
                    0, 0, &fc);
    free(asked);
    DWORD status = 0;
    if (chain_trusted(request, extra, host, &status))
        return HTTP_OK;
    snprintf(r->detail, sizeof(r->detail),
             "the server's certificate is trusted neither by Windows nor by a certificate of "
             "[fetch] ca_file; chain status 0x%lx",
             (unsigned long)status);
    return r->failure = HTTP_TLS;
}

/* Open the request to the URL's host and path, its timeouts set; the extra trust of
 * [fetch] ca_file loaded into *extra for https. */
static enum http_failure open_request(struct http_session *s, const struct http_request *req,
                                      bool follow, HINTERNET *connect, HINTERNET *request,
                                      HCERTSTORE *extra, struct http_result *r)
{
    wchar_t *url = win_wide(req->url);
    wchar_t host[256], path[4096];
    URL_COMPONENTS uc;
    memset(&uc, 0, sizeof(uc));
    uc.dwStructSize = sizeof(uc);
    uc.lpszHostName = host;
    uc.dwHostNameLength = CDM_ARRAY_LEN(host);
    uc.lpszUrlPath = path;
    uc.dwUrlPathLength = CDM_ARRAY_LEN(path);
    bool cracked = WinHttpCrackUrl(url, 0, 0, &uc);
    free(url);
    if (!cracked || (uc.nScheme != INTERNET_SCHEME_HTTP && uc.nScheme != INTERNET_SCHEME_HTTPS)) {
        COPY_STR_ARRAY(r->detail, "not an http:// or https:// URL");
        return r->failure = HTTP_BAD_URL;
    }
    bool https = uc.nScheme == INTERNET_SCHEME_HTTPS;
    if (https && req->ca_file &&
        !(*extra = load_ca_file(req->ca_file, r->detail, sizeof(r->detail))))
        return r->failure = HTTP_TLS;
    int ms = (int)(req->timeout ? req->timeout : 30) * 1000;
    wchar_t *method = win_wide(req->method ? req->method : "GET");
    *connect = WinHttpConnect(s->h, host, uc.nPort, 0);
    if (*connect)
        *request =
            WinHttpOpenRequest(*connect, method, path, NULL, WINHTTP_NO_REFERER,
                               WINHTTP_DEFAULT_ACCEPT_TYPES, https ? WINHTTP_FLAG_SECURE : 0);
    free(method);
    if (!*connect || !*request || !WinHttpSetTimeouts(*request, ms, ms, ms, ms)) {
        DWORD e = GetLastError();
        return fail(r, classify(e), e);
    }
    if (!follow) { /* a POST or a PUT, or a GET whose redirects http_send follows itself */
        DWORD off = WINHTTP_DISABLE_REDIRECTS;
        WinHttpSetOption(*request, WINHTTP_OPTION_DISABLE_FEATURE, &off, sizeof(off));
    }
    if (*extra) {
        DWORD flags = SECURITY_FLAG_IGNORE_UNKNOWN_CA;
        WinHttpSetOption(*request, WINHTTP_OPTION_SECURITY_FLAGS, &flags, sizeof(flags));
    }
    return HTTP_OK;
}

/* One request; WinHTTP follows its redirects when follow is true. */
static enum http_failure send_once(struct http_session *s, const struct http_request *req,
                                   bool follow, struct http_result *r)
{
    memset(r, 0, sizeof(*r));
    HINTERNET connect = NULL, request = NULL;
    HCERTSTORE extra = NULL;
    enum http_failure kind = open_request(s, req, follow, &connect, &request, &extra, r);
    if (kind == HTTP_OK) {
        add_headers(request, req);
        kind = send_request(request, req, r);
    }
    if (kind == HTTP_OK && extra)
        kind = check_extra_trust(request, req->url, extra, r);
    if (kind == HTTP_OK) {
        struct http_head head;
        read_head(request, &head);
        r->status = head.status;
        if (req->method && !strcmp(req->method, "HEAD")) /* a length, and no body */
            kind =
                req->head && head.status >= 200 && head.status <= 299 && req->head(req->arg, &head)
                    ? (r->failure = HTTP_STOPPED)
                    : HTTP_OK;
        else
            kind = read_body(request, req, &head, r);
    }
    if (request)
        WinHttpCloseHandle(request);
    if (connect)
        WinHttpCloseHandle(connect);
    if (extra)
        CertCloseStore(extra, 0);
    return kind;
}

void http_pause(unsigned seconds)
{
    Sleep(seconds * 1000);
}

/* ---- redirects that carry the caller's headers ------------------------------------------ */

/* "scheme://host[:port]" of url: its length. */
static size_t origin_length(const char *url)
{
    const char *host = strstr(url, "://");
    return host ? (size_t)(host + 3 - url) + strcspn(host + 3, "/?#") : 0;
}

/* Where a Location leads, as an absolute URL (malloc'd; NULL when cdm cannot tell). */
static char *redirect_target(const char *from, const char *location)
{
    if (strstr(location, "://"))
        return xstrdup(location);
    size_t origin = origin_length(from);
    if (!origin)
        return NULL;
    if (location[0] == '/')
        return xasprintf("%.*s%s", (int)origin, from, location);
    const char *end = from + origin + strcspn(from + origin, "?#");
    const char *slash = end;
    while (slash > from + origin && slash[-1] != '/')
        slash--;
    return xasprintf("%.*s%s%s", (int)(slash - from), from, slash == from + origin ? "/" : "",
                     location);
}

static bool redirect_status(int status)
{
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

enum http_failure http_send(struct http_session *s, const struct http_request *req,
                            struct http_result *r)
{
    bool get = !req->method || !strcmp(req->method, "GET") || !strcmp(req->method, "HEAD");
    if (!req->headers || !get)
        return send_once(s, req, get, r);
    /* WinHTTP would send the caller's headers (a registry's token) on to wherever a redirect
     * leads, a storage host that refuses them (S3's signed URLs) or should never see them:
     * follow by hand, keeping them only on the same scheme, host and port */
    struct http_request hop = *req;
    char *url = NULL;
    enum http_failure kind;
    for (int n = 0;; n++) {
        kind = send_once(s, &hop, false, r);
        if (kind != HTTP_OK || !redirect_status(r->status) || !*r->location)
            break;
        char *next = redirect_target(hop.url, r->location);
        bool downgrade = next && !strncmp(hop.url, "https://", 8) && strncmp(next, "https://", 8);
        if (n == 10 || !next || downgrade) {
            free(next);
            COPY_STR_ARRAY(r->detail, "more than 10 redirects, or one from https to http");
            kind = r->failure = HTTP_REDIRECTS;
            break;
        }
        size_t origin = origin_length(hop.url);
        if (origin != origin_length(next) || strncmp(hop.url, next, origin))
            hop.headers = NULL;
        free(url);
        hop.url = url = next;
    }
    free(url);
    return kind;
}
