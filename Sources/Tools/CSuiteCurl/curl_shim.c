// libcurl through dlopen: `suite` links no HTTP stack, so commands that never fetch start fast.
// The option numbers are libcurl's stable ABI (curl/curl.h), declared here so no headers are needed.
#include "CSuiteCurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void CURL;
struct curl_slist;

enum {
    OPT_WRITEDATA = 10001, OPT_URL = 10002, OPT_ERRORBUFFER = 10010, OPT_WRITEFUNCTION = 20011,
    OPT_POSTFIELDS = 10015, OPT_HTTPHEADER = 10023, OPT_HEADERDATA = 10029, OPT_CUSTOMREQUEST = 10036,
    OPT_NOPROGRESS = 43, OPT_FOLLOWLOCATION = 52, OPT_POSTFIELDSIZE = 60, OPT_MAXREDIRS = 68,
    OPT_HEADERFUNCTION = 20079, OPT_NOSIGNAL = 99, OPT_ACCEPT_ENCODING = 10102, OPT_TIMEOUT_MS = 155,
    OPT_PROTOCOLS_STR = 10318, OPT_REDIR_PROTOCOLS_STR = 10319, OPT_HTTPGET = 80,
};
enum { INFO_RESPONSE_CODE = 0x200000 + 2 };
enum { CURLE_OK = 0, CURLE_WRITE_ERROR = 23, CURLE_OPERATION_TIMEDOUT = 28 };

static struct {
    int (*global_init)(long);
    CURL *(*easy_init)(void);
    int (*easy_setopt)(CURL *, int, ...);
    int (*easy_perform)(CURL *);
    int (*easy_getinfo)(CURL *, int, ...);
    void (*easy_cleanup)(CURL *);
    const char *(*easy_strerror)(int);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    char load_error[200];
    int loaded;
} curl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void) {
    static const char *const names[] = {"libcurl.so.4", "libcurl.so", "libcurl-gnutls.so.4", "libcurl.4.dylib"};
    void *handle = NULL;
    for (size_t i = 0; i < sizeof names / sizeof *names && !handle; i++) handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(curl.load_error, sizeof curl.load_error, "libcurl is not installed (install the libcurl4 package)");
        return;
    }
#define SYMBOL(field, name) *(void **)(&curl.field) = dlsym(handle, name); if (!curl.field) goto missing;
    SYMBOL(global_init, "curl_global_init")
    SYMBOL(easy_init, "curl_easy_init")
    SYMBOL(easy_setopt, "curl_easy_setopt")
    SYMBOL(easy_perform, "curl_easy_perform")
    SYMBOL(easy_getinfo, "curl_easy_getinfo")
    SYMBOL(easy_cleanup, "curl_easy_cleanup")
    SYMBOL(easy_strerror, "curl_easy_strerror")
    SYMBOL(slist_append, "curl_slist_append")
    SYMBOL(slist_free_all, "curl_slist_free_all")
#undef SYMBOL
    if (curl.global_init(3) != CURLE_OK) {
        snprintf(curl.load_error, sizeof curl.load_error, "libcurl failed to initialise");
        return;
    }
    curl.loaded = 1;
    return;
missing:
    snprintf(curl.load_error, sizeof curl.load_error, "the libcurl found is too old or incomplete");
}

typedef struct {
    char *data;
    size_t length, capacity, limit;
    int too_large;
} buffer;

static int append(buffer *b, const char *bytes, size_t count) {
    if (b->length + count > b->limit) { b->too_large = 1; return 0; }
    if (b->length + count + 1 > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 4096;
        while (capacity < b->length + count + 1) capacity *= 2;
        char *grown = realloc(b->data, capacity);
        if (!grown) return 0;
        b->data = grown;
        b->capacity = capacity;
    }
    memcpy(b->data + b->length, bytes, count);
    b->length += count;
    b->data[b->length] = 0;
    return 1;
}

static size_t on_body(char *bytes, size_t size, size_t count, void *context) {
    return append(context, bytes, size * count) ? size * count : 0;
}

static size_t on_header(char *bytes, size_t size, size_t count, void *context) {
    buffer *b = context;
    // A new status line starts the next answer's headers (after a redirect or a 100 Continue).
    if (size * count >= 5 && memcmp(bytes, "HTTP/", 5) == 0) b->length = 0;
    return append(b, bytes, size * count) ? size * count : 0;
}

suite_http_outcome suite_http_perform(const char *url, const char *method,
                                      const char *const *headers, int header_count,
                                      const void *body, size_t body_length,
                                      long timeout_ms, size_t max_body, int follow_redirects,
                                      suite_http_result *result) {
    memset(result, 0, sizeof *result);
    pthread_once(&load_once, load);
    if (!curl.loaded) {
        snprintf(result->error, sizeof result->error, "%s", curl.load_error);
        return SUITE_HTTP_NO_LIBRARY;
    }
    CURL *handle = curl.easy_init();
    if (!handle) {
        snprintf(result->error, sizeof result->error, "libcurl could not start a transfer");
        return SUITE_HTTP_FAILED;
    }
    buffer body_buffer = {.limit = max_body}, header_buffer = {.limit = 1 << 20};
    char error[256] = {0};
    struct curl_slist *list = NULL;
    for (int i = 0; i < header_count; i++) list = curl.slist_append(list, headers[i]);

    curl.easy_setopt(handle, OPT_URL, url);
    curl.easy_setopt(handle, OPT_PROTOCOLS_STR, "http,https");
    curl.easy_setopt(handle, OPT_REDIR_PROTOCOLS_STR, "http,https");
    curl.easy_setopt(handle, OPT_FOLLOWLOCATION, follow_redirects ? 1L : 0L);
    curl.easy_setopt(handle, OPT_MAXREDIRS, 5L);
    curl.easy_setopt(handle, OPT_NOSIGNAL, 1L);
    curl.easy_setopt(handle, OPT_NOPROGRESS, 1L);
    curl.easy_setopt(handle, OPT_TIMEOUT_MS, timeout_ms);
    curl.easy_setopt(handle, OPT_ACCEPT_ENCODING, "");
    curl.easy_setopt(handle, OPT_ERRORBUFFER, error);
    curl.easy_setopt(handle, OPT_HTTPHEADER, list);
    curl.easy_setopt(handle, OPT_WRITEFUNCTION, on_body);
    curl.easy_setopt(handle, OPT_WRITEDATA, &body_buffer);
    curl.easy_setopt(handle, OPT_HEADERFUNCTION, on_header);
    curl.easy_setopt(handle, OPT_HEADERDATA, &header_buffer);
    if (body) {
        curl.easy_setopt(handle, OPT_POSTFIELDSIZE, (long)body_length);
        curl.easy_setopt(handle, OPT_POSTFIELDS, body);
    }
    if (strcmp(method, "GET") == 0) curl.easy_setopt(handle, OPT_HTTPGET, 1L);
    else if (!(body && strcmp(method, "POST") == 0)) curl.easy_setopt(handle, OPT_CUSTOMREQUEST, method);

    int code = curl.easy_perform(handle);
    suite_http_outcome outcome = SUITE_HTTP_OK;
    if (code == CURLE_OK) {
        curl.easy_getinfo(handle, INFO_RESPONSE_CODE, &result->status);
    } else if (code == CURLE_WRITE_ERROR && body_buffer.too_large) {
        outcome = SUITE_HTTP_TOO_LARGE;
        snprintf(result->error, sizeof result->error, "the answer is larger than %zu bytes", max_body);
    } else if (code == CURLE_OPERATION_TIMEDOUT) {
        outcome = SUITE_HTTP_TIMED_OUT;
        snprintf(result->error, sizeof result->error, "timed out");
    } else {
        outcome = SUITE_HTTP_FAILED;
        snprintf(result->error, sizeof result->error, "%s", error[0] ? error : curl.easy_strerror(code));
    }
    curl.slist_free_all(list);
    curl.easy_cleanup(handle);
    if (outcome == SUITE_HTTP_OK) {
        result->body = body_buffer.data;
        result->body_length = body_buffer.length;
        result->headers = header_buffer.data;
        result->headers_length = header_buffer.length;
    } else {
        free(body_buffer.data);
        free(header_buffer.data);
    }
    return outcome;
}

void suite_http_result_free(suite_http_result *result) {
    free(result->body);
    free(result->headers);
    result->body = result->headers = NULL;
}
