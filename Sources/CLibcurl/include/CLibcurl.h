// The few libcurl calls EndpointRouter makes, loaded at run time from libcurl.so.4 with dlopen:
// no curl headers, no link flag. Swift cannot call C variadic functions (curl_easy_setopt,
// curl_multi_setopt, curl_easy_getinfo), so each use gets a typed wrapper here.
#ifndef CLIBCURL_H
#define CLIBCURL_H

#include <stddef.h>
#include <stdint.h>

typedef void libcurl_easy;
typedef void libcurl_multi;
typedef void libcurl_list;

/// CURLOPT_WRITEFUNCTION, CURLOPT_HEADERFUNCTION and CURLOPT_READFUNCTION callbacks.
typedef size_t (*libcurl_data_callback)(char *bytes, size_t size, size_t count, void *user);
/// CURLOPT_XFERINFOFUNCTION callback.
typedef int (*libcurl_progress_callback)(void *user, int64_t download_total, int64_t download_now,
                                         int64_t upload_total, int64_t upload_now);

/// Loads `path` (NULL: "libcurl.so.4") and every symbol used; 0 on success, otherwise -1 with the
/// reason written to `reason`. Safe to call more than once; only the first call loads.
int libcurl_load(const char *path, char *reason, size_t reason_size);
/// Whether `path` can be loaded with every symbol used, without making it the one in use: 0 when it
/// can, otherwise -1 with the reason. The library stays loaded (dlopen counts references).
int libcurl_probe(const char *path, char *reason, size_t reason_size);
/// libcurl's version text, such as "libcurl/7.88.1 OpenSSL/3.0.11".
const char *libcurl_version(void);

libcurl_easy *libcurl_easy_init(void);
void libcurl_easy_cleanup(libcurl_easy *easy);
/// Sets every option of `easy` back to its default, keeping what libcurl caches (connections, DNS).
void libcurl_easy_reset(libcurl_easy *easy);
int libcurl_easy_setopt_long(libcurl_easy *easy, int option, long value);
int libcurl_easy_setopt_offset(libcurl_easy *easy, int option, int64_t value);
int libcurl_easy_setopt_pointer(libcurl_easy *easy, int option, const void *value);
int libcurl_easy_setopt_data_callback(libcurl_easy *easy, int option, libcurl_data_callback callback);
int libcurl_easy_setopt_progress_callback(libcurl_easy *easy, int option, libcurl_progress_callback callback);
int libcurl_easy_getinfo_long(libcurl_easy *easy, int info, long *value);
int libcurl_easy_pause(libcurl_easy *easy, int bitmask);
const char *libcurl_easy_strerror(int code);

libcurl_multi *libcurl_multi_init(void);
int libcurl_multi_cleanup(libcurl_multi *multi);
int libcurl_multi_setopt_long(libcurl_multi *multi, int option, long value);
int libcurl_multi_add_handle(libcurl_multi *multi, libcurl_easy *easy);
int libcurl_multi_remove_handle(libcurl_multi *multi, libcurl_easy *easy);
int libcurl_multi_perform(libcurl_multi *multi, int *running);
int libcurl_multi_poll(libcurl_multi *multi, int timeout_ms, int *ready);
int libcurl_multi_wakeup(libcurl_multi *multi);
/// Reads the next "transfer done" message: 1 with `easy` and `result` set, 0 when there is none.
int libcurl_multi_next_done(libcurl_multi *multi, libcurl_easy **easy, int *result);

/// A header list for CURLOPT_HTTPHEADER made of `length` bytes of NUL-terminated lines, laid out as
/// libcurl's `struct curl_slist` in one block of this library's memory: it calls nothing of libcurl,
/// so any thread may make it. NULL when there is no line or no memory. Freed with libcurl_list_free.
/// Names the calling thread (at most 15 bytes, Linux's limit) for `top -H`, `perf` and debuggers:
/// Glibc's pthread_setname_np needs _GNU_SOURCE, which Swift's Glibc module is not built with.
void libcurl_name_this_thread(const char *name);
/// Makes the calling thread's timed waits end within a microsecond of their time rather than
/// Linux's default 50: a CurlLoop dozing until just before an expected call must be awake by then.
void libcurl_tighten_timer_slack(void);

libcurl_list *libcurl_list_make(const char *lines, size_t length);
void libcurl_list_free(libcurl_list *list);

// MARK: - Content decoders (Decoders.c)
//
// gzip, deflate, br and zstd decoding for CurlTransport, which decodes above libcurl's pause
// (CURLOPT_HTTP_CONTENT_DECODING off) so that a paused transfer holds a small constant. Loaded at
// run time from libz.so.1, libbrotlidec.so.1 and libzstd.so.1, the libraries libcurl links.

typedef struct content_decoder content_decoder;

/// The codings a content_decoder decodes. GZIP takes a zlib header too; DEFLATE takes raw deflate
/// when its zlib header is missing, as libcurl does.
enum { CONTENT_CODING_GZIP = 1, CONTENT_CODING_DEFLATE = 2, CONTENT_CODING_BROTLI = 3, CONTENT_CODING_ZSTD = 4 };
/// What content_decoder_run returns: more to come, the stream ended, or the input is corrupt.
enum { CONTENT_DECODE_MORE = 0, CONTENT_DECODE_END = 1, CONTENT_DECODE_ERROR = -1 };

/// Whether `coding`'s library loaded (tried once, on the first call, from any thread).
int content_decoder_available(int coding);
/// A decoder for `coding`; NULL when its library is missing or there is no memory.
content_decoder *content_decoder_make(int coding);
/// Decodes from `input` into `output`, at most `output_size` bytes: sets `consumed` and `produced`;
/// on CONTENT_DECODE_ERROR sets `problem` to the library's static text. A gzip, deflate or br stream
/// that ended refuses any byte after it, as libcurl does; zstd decodes the next frame.
int content_decoder_run(content_decoder *decoder, const uint8_t *input, size_t input_size, size_t *consumed,
                        uint8_t *output, size_t output_size, size_t *produced, const char **problem);
/// Whether the stream ended whole (zstd: its last frame did): a body that stops before is cut short.
int content_decoder_ended(const content_decoder *decoder);
void content_decoder_free(content_decoder *decoder);

#endif
