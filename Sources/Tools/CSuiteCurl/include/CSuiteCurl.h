#ifndef CSUITECURL_H
#define CSUITECURL_H

#include <stddef.h>

/// How a transfer ended.
typedef enum {
    SUITE_HTTP_OK = 0,          ///< an answer came (any status)
    SUITE_HTTP_NO_LIBRARY = 1,  ///< libcurl could not be loaded; `error` says why
    SUITE_HTTP_TIMED_OUT = 2,   ///< nothing complete within the timeout
    SUITE_HTTP_TOO_LARGE = 3,   ///< the body passed `max_body` bytes
    SUITE_HTTP_FAILED = 4,      ///< any other failure; `error` says what
} suite_http_outcome;

/// The answer. Free with `suite_http_result_free`.
typedef struct {
    long status;
    char *body;
    size_t body_length;
    /// The header block of the last answer (after redirects), lines ending in CRLF.
    char *headers;
    size_t headers_length;
    char error[256];
} suite_http_result;

/// Sends one request with libcurl, loaded with `dlopen` on first use so that programs pay for
/// it only when they fetch. `headers` are "Name: value" strings. Blocks until done.
suite_http_outcome suite_http_perform(const char *url, const char *method,
                                      const char *const *headers, int header_count,
                                      const void *body, size_t body_length,
                                      long timeout_ms, size_t max_body, int follow_redirects,
                                      suite_http_result *result);

/// Frees what `suite_http_perform` allocated in `result`.
void suite_http_result_free(suite_http_result *result);

#endif
