// Content decoders for CurlTransport, loaded at run time from the libraries libcurl itself links on
// Debian (libz.so.1, libbrotlidec.so.1, libzstd.so.1): no header, no link flag. The exchange decodes
// above libcurl's pause instead of letting libcurl decode, so that a paused transfer holds a small
// constant, whatever the compression ratio (issue 39, item 8).
#include "CLibcurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

// zlib's z_stream, restated exactly (zlib.h): its size is passed to inflateInit2_, which refuses a
// layout it does not know.
typedef struct {
    const uint8_t *next_in;
    unsigned int avail_in;
    unsigned long total_in;
    uint8_t *next_out;
    unsigned int avail_out;
    unsigned long total_out;
    const char *msg;
    void *state;
    void *zalloc;
    void *zfree;
    void *opaque;
    int data_type;
    unsigned long adler;
    unsigned long reserved;
} zlib_stream;

enum { Z_OK_ = 0, Z_STREAM_END_ = 1, Z_BUF_ERROR_ = -5, Z_NO_FLUSH_ = 0 };
// 15: a 32 KiB window; +32: a gzip or a zlib header, told apart by zlib; negative: raw deflate.
enum { WINDOW_GZIP = 15 + 32, WINDOW_ZLIB = 15, WINDOW_RAW = -15 };
// Brotli's results (brotli/decode.h).
enum { BROTLI_ERROR = 0, BROTLI_SUCCESS = 1, BROTLI_NEEDS_MORE_INPUT = 2, BROTLI_NEEDS_MORE_OUTPUT = 3 };
// zstd's buffers (zstd.h) and ZSTD_d_windowLogMax: RFC 9659 bounds an HTTP zstd window to 8 MiB, so
// a frame asking for more is refused instead of making the decoder allocate it.
typedef struct {
    const void *src;
    size_t size;
    size_t pos;
} zstd_in;
typedef struct {
    void *dst;
    size_t size;
    size_t pos;
} zstd_out;
enum { ZSTD_D_WINDOW_LOG_MAX = 100, ZSTD_WINDOW_LOG_HTTP = 23 };

static struct {
    const char *(*zlibVersion)(void);
    int (*inflateInit2_)(zlib_stream *, int, const char *, int);
    int (*inflate)(zlib_stream *, int);
    int (*inflateEnd)(zlib_stream *);
    void *(*BrotliDecoderCreateInstance)(void *, void *, void *);
    int (*BrotliDecoderDecompressStream)(void *, size_t *, const uint8_t **, size_t *, uint8_t **, size_t *);
    void (*BrotliDecoderDestroyInstance)(void *);
    void *(*ZSTD_createDStream)(void);
    size_t (*ZSTD_initDStream)(void *);
    size_t (*ZSTD_decompressStream)(void *, zstd_out *, zstd_in *);
    size_t (*ZSTD_freeDStream)(void *);
    unsigned (*ZSTD_isError)(size_t);
    const char *(*ZSTD_getErrorName)(size_t);
    size_t (*ZSTD_DCtx_setParameter)(void *, int, int);
} lib;

static int loaded[5];  // by content_coding
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

// Resolves `name` into `slot` from `library`; 0 when either is missing. A library stays loaded.
static int resolve(void *library, const char *name, void **slot) {
    *slot = library != NULL ? dlsym(library, name) : NULL;
    return *slot != NULL;
}

#define RESOLVE(library, field) resolve(library, #field, (void **)&lib.field)

static void load(void) {
    void *z = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
    loaded[CONTENT_CODING_GZIP] = RESOLVE(z, zlibVersion) && RESOLVE(z, inflateInit2_) && RESOLVE(z, inflate) &&
                                  RESOLVE(z, inflateEnd);
    loaded[CONTENT_CODING_DEFLATE] = loaded[CONTENT_CODING_GZIP];
    void *br = dlopen("libbrotlidec.so.1", RTLD_NOW | RTLD_LOCAL);
    loaded[CONTENT_CODING_BROTLI] = RESOLVE(br, BrotliDecoderCreateInstance) &&
                                    RESOLVE(br, BrotliDecoderDecompressStream) && RESOLVE(br, BrotliDecoderDestroyInstance);
    // ZSTD_DCtx_setParameter, for the window bound, is in zstd 1.4.0 and later.
    void *zstd = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
    loaded[CONTENT_CODING_ZSTD] = RESOLVE(zstd, ZSTD_createDStream) && RESOLVE(zstd, ZSTD_initDStream) &&
                                  RESOLVE(zstd, ZSTD_decompressStream) && RESOLVE(zstd, ZSTD_freeDStream) &&
                                  RESOLVE(zstd, ZSTD_isError) && RESOLVE(zstd, ZSTD_getErrorName) &&
                                  RESOLVE(zstd, ZSTD_DCtx_setParameter);
}

int content_decoder_available(int coding) {
    if (coding < CONTENT_CODING_GZIP || coding > CONTENT_CODING_ZSTD) return 0;
    pthread_once(&load_once, load);
    return loaded[coding];
}

struct content_decoder {
    int coding;
    // No call has run yet: a deflate body without its zlib header may still be retried as raw deflate.
    int first;
    // The stream ended (zstd: the last frame did); a gzip, deflate or br stream takes nothing more.
    int ended;
    zlib_stream zlib;
    void *other;  // the Brotli or zstd state
};

content_decoder *content_decoder_make(int coding) {
    if (!content_decoder_available(coding)) return NULL;
    content_decoder *decoder = calloc(1, sizeof(content_decoder));
    if (decoder == NULL) return NULL;
    decoder->coding = coding;
    decoder->first = 1;
    int ok = 0;
    switch (coding) {
        case CONTENT_CODING_GZIP:
        case CONTENT_CODING_DEFLATE: {
            int window = coding == CONTENT_CODING_GZIP ? WINDOW_GZIP : WINDOW_ZLIB;
            ok = lib.inflateInit2_(&decoder->zlib, window, lib.zlibVersion(), (int)sizeof(zlib_stream)) == Z_OK_;
            break;
        }
        case CONTENT_CODING_BROTLI:
            decoder->other = lib.BrotliDecoderCreateInstance(NULL, NULL, NULL);
            ok = decoder->other != NULL;
            break;
        case CONTENT_CODING_ZSTD:
            decoder->other = lib.ZSTD_createDStream();
            ok = decoder->other != NULL && !lib.ZSTD_isError(lib.ZSTD_initDStream(decoder->other)) &&
                 !lib.ZSTD_isError(lib.ZSTD_DCtx_setParameter(decoder->other, ZSTD_D_WINDOW_LOG_MAX, ZSTD_WINDOW_LOG_HTTP));
            break;
    }
    if (!ok) {
        content_decoder_free(decoder);
        return NULL;
    }
    return decoder;
}

static int run_zlib(content_decoder *decoder, const uint8_t *input, size_t input_size, size_t *consumed,
                    uint8_t *output, size_t output_size, size_t *produced, const char **problem) {
    zlib_stream *z = &decoder->zlib;
    z->next_in = input;
    z->avail_in = (unsigned int)input_size;
    z->next_out = output;
    z->avail_out = (unsigned int)output_size;
    int result = lib.inflate(z, Z_NO_FLUSH_);
    if (result != Z_OK_ && result != Z_STREAM_END_ && result != Z_BUF_ERROR_ && decoder->first &&
        decoder->coding == CONTENT_CODING_DEFLATE) {
        // Some servers send raw deflate for `deflate`; libcurl retries such a body the same way.
        lib.inflateEnd(z);
        memset(z, 0, sizeof *z);
        if (lib.inflateInit2_(z, WINDOW_RAW, lib.zlibVersion(), (int)sizeof(zlib_stream)) != Z_OK_) {
            *problem = "out of memory";
            return CONTENT_DECODE_ERROR;
        }
        z->next_in = input;
        z->avail_in = (unsigned int)input_size;
        z->next_out = output;
        z->avail_out = (unsigned int)output_size;
        result = lib.inflate(z, Z_NO_FLUSH_);
    }
    *consumed = input_size - z->avail_in;
    *produced = output_size - z->avail_out;
    if (result == Z_STREAM_END_) {
        decoder->ended = 1;
        return CONTENT_DECODE_END;
    }
    if (result != Z_OK_ && result != Z_BUF_ERROR_) {
        *problem = z->msg != NULL ? z->msg : "invalid data";
        return CONTENT_DECODE_ERROR;
    }
    return CONTENT_DECODE_MORE;
}

int content_decoder_run(content_decoder *decoder, const uint8_t *input, size_t input_size, size_t *consumed,
                        uint8_t *output, size_t output_size, size_t *produced, const char **problem) {
    *consumed = 0;
    *produced = 0;
    *problem = NULL;
    // zlib counts in 32-bit unsigned ints; the callers' pieces are far smaller.
    if (input_size > 1u << 30) input_size = 1u << 30;
    if (output_size > 1u << 30) output_size = 1u << 30;
    if (decoder->ended && decoder->coding != CONTENT_CODING_ZSTD) {
        // Bytes after the end of a gzip, deflate or br stream are refused, as libcurl refuses them
        // (a second gzip member included): what they are is unknown.
        if (input_size == 0) return CONTENT_DECODE_END;
        *problem = "data after the end of the compressed stream";
        return CONTENT_DECODE_ERROR;
    }
    int status;
    switch (decoder->coding) {
        case CONTENT_CODING_GZIP:
        case CONTENT_CODING_DEFLATE:
            status = run_zlib(decoder, input, input_size, consumed, output, output_size, produced, problem);
            break;
        case CONTENT_CODING_BROTLI: {
            size_t in_left = input_size, out_left = output_size;
            const uint8_t *next_in = input;
            uint8_t *next_out = output;
            int result = lib.BrotliDecoderDecompressStream(decoder->other, &in_left, &next_in, &out_left, &next_out, NULL);
            *consumed = input_size - in_left;
            *produced = output_size - out_left;
            if (result == BROTLI_ERROR) {
                *problem = "invalid brotli data";
                status = CONTENT_DECODE_ERROR;
            } else if (result == BROTLI_SUCCESS) {
                decoder->ended = 1;
                status = CONTENT_DECODE_END;
            } else {
                status = CONTENT_DECODE_MORE;
            }
            break;
        }
        case CONTENT_CODING_ZSTD: {
            zstd_in in = {input, input_size, 0};
            zstd_out out = {output, output_size, 0};
            size_t result = lib.ZSTD_decompressStream(decoder->other, &out, &in);
            *consumed = in.pos;
            *produced = out.pos;
            if (lib.ZSTD_isError(result)) {
                *problem = lib.ZSTD_getErrorName(result);
                status = CONTENT_DECODE_ERROR;
            } else {
                // 0: a frame ended and was flushed whole. Otherwise a frame is under way, unless the
                // call moved nothing (an empty call at a frame boundary returns the next header's size).
                if (result == 0) {
                    decoder->ended = 1;
                } else if (in.pos > 0 || out.pos > 0) {
                    decoder->ended = 0;
                }
                status = decoder->ended ? CONTENT_DECODE_END : CONTENT_DECODE_MORE;
            }
            break;
        }
        default:
            *problem = "unknown coding";
            status = CONTENT_DECODE_ERROR;
    }
    decoder->first = 0;
    return status;
}

int content_decoder_ended(const content_decoder *decoder) { return decoder->ended; }

void content_decoder_free(content_decoder *decoder) {
    if (decoder == NULL) return;
    switch (decoder->coding) {
        case CONTENT_CODING_GZIP:
        case CONTENT_CODING_DEFLATE:
            if (decoder->zlib.state != NULL) lib.inflateEnd(&decoder->zlib);
            break;
        case CONTENT_CODING_BROTLI:
            if (decoder->other != NULL) lib.BrotliDecoderDestroyInstance(decoder->other);
            break;
        case CONTENT_CODING_ZSTD:
            if (decoder->other != NULL) lib.ZSTD_freeDStream(decoder->other);
            break;
    }
    free(decoder);
}
