// The raw libcurl baseline's access to libcurl: the library is opened at run time (dlopen of
// "libcurl.so.4"), so the Benchmarks package builds on a machine without curl headers. Swift cannot
// call C's variadic functions, so curl_easy_setopt and curl_easy_getinfo get one typed entry each.
// Written for the benchmarks; the constants are libcurl's documented values.
#ifndef CRAWCURL_H
#define CRAWCURL_H

#include <stddef.h>

/// CURLOPT_URL and the other string options (libcurl copies the text).
#define RAWCURL_OPT_URL 10002
#define RAWCURL_OPT_WRITEDATA 10001
#define RAWCURL_OPT_HTTPHEADER 10023
#define RAWCURL_OPT_COPYPOSTFIELDS 10165
#define RAWCURL_OPT_POSTFIELDSIZE 60
#define RAWCURL_OPT_NOSIGNAL 99
#define RAWCURL_OPT_PRIVATE 10103
/// CURLOPT_CAINFO: the CA file of the TLS benchmarks.
#define RAWCURL_OPT_CAINFO 10065
#define RAWCURL_MOPT_MAX_HOST_CONNECTIONS 7
/// The options the transport's rules add (`RawLibcurlUnderRules`): headers to a callback, a body
/// from a read callback, decompression asked for.
#define RAWCURL_OPT_HEADERDATA 10029
#define RAWCURL_OPT_READDATA 10009
#define RAWCURL_OPT_POST 47
#define RAWCURL_OPT_ACCEPT_ENCODING 10102

/// The write callback: libcurl hands the body over in pieces.
typedef size_t (*rawcurl_write)(char *bytes, size_t size, size_t count, void *user);

/// Opens libcurl.so.4 once and looks up every function below; 0 when all are there.
int rawcurl_open(void);

void *rawcurl_easy_init(void);
void rawcurl_easy_cleanup(void *easy);
int rawcurl_set_long(void *easy, int option, long value);
int rawcurl_set_pointer(void *easy, int option, const void *value);
int rawcurl_set_write(void *easy, rawcurl_write callback);
/// CURLOPT_HEADERFUNCTION: one response line at a time, with the same signature as the write callback.
int rawcurl_set_header(void *easy, rawcurl_write callback);
/// CURLOPT_READFUNCTION: the request body in pieces (`bytes` is the buffer to fill).
int rawcurl_set_read(void *easy, rawcurl_write callback);
void rawcurl_easy_reset(void *easy);
/// CURLINFO_RESPONSE_CODE.
long rawcurl_status(void *easy);
/// CURLINFO_PRIVATE: what was set with RAWCURL_OPT_PRIVATE.
void *rawcurl_private(void *easy);

void *rawcurl_multi_init(void);
void rawcurl_multi_cleanup(void *multi);
int rawcurl_multi_set_long(void *multi, int option, long value);
int rawcurl_multi_add(void *multi, void *easy);
int rawcurl_multi_remove(void *multi, void *easy);
int rawcurl_multi_perform(void *multi, int *running);
int rawcurl_multi_poll(void *multi, int timeout_ms);
int rawcurl_multi_wakeup(void *multi);
/// The next finished transfer: its handle, with its CURLcode in `code`; NULL when none is left.
void *rawcurl_multi_finished(void *multi, int *code);

/// The event-driven loop (curl_multi_socket_action over epoll): set up on `multi` (NULL on failure),
/// woken from any thread, and run once: waits up to `timeout_ms` (less when libcurl's timer is due
/// sooner), then lets libcurl act on each ready socket and on its timer.
void *rawcurl_events_init(void *multi);
void rawcurl_events_wake(void *events);
void rawcurl_events_run(void *events, int timeout_ms);

void *rawcurl_list_append(void *list, const char *line);
void rawcurl_list_free(void *list);

#endif
