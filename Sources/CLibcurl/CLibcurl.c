#define _GNU_SOURCE
#include "CLibcurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

// libcurl's own declarations, restated: a CURLMsg is { int msg; CURL *easy; union { void *; int result; } }.
typedef struct {
    int msg;
    void *easy;
    union {
        void *whatever;
        int result;
    } data;
} libcurl_message;

enum { LIBCURL_MSG_DONE = 1, LIBCURL_GLOBAL_ALL = 3 };

struct libcurl_functions {
    int (*global_init)(long);
    char *(*version)(void);
    void *(*easy_init)(void);
    void (*easy_cleanup)(void *);
    void (*easy_reset)(void *);
    int (*easy_setopt)(void *, int, ...);
    int (*easy_getinfo)(void *, int, ...);
    int (*easy_pause)(void *, int);
    const char *(*easy_strerror)(int);
    void *(*multi_init)(void);
    int (*multi_cleanup)(void *);
    int (*multi_setopt)(void *, int, ...);
    int (*multi_add_handle)(void *, void *);
    int (*multi_remove_handle)(void *, void *);
    int (*multi_perform)(void *, int *);
    int (*multi_poll)(void *, void *, unsigned int, int, int *);
    int (*multi_wakeup)(void *);
    libcurl_message *(*multi_info_read)(void *, int *);
};

static struct libcurl_functions curl;

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static int load_result = 1;  // 1: not tried yet
static char load_reason[512];

static int resolve(void *library, const char *name, void **slot, char *reason, size_t reason_size) {
    *slot = dlsym(library, name);
    if (*slot == NULL) {
        snprintf(reason, reason_size, "libcurl has no %s (version 7.68 or later is needed)", name);
        return -1;
    }
    return 0;
}

#define RESOLVE(field, name) \
    if (resolve(library, name, (void **)&into->field, reason, reason_size) != 0) { \
        dlclose(library);                                                       \
        return -1;                                                              \
    }

static int resolve_all(const char *path, struct libcurl_functions *into, char *reason, size_t reason_size) {
    void *library = dlopen(path ? path : "libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *error = dlerror();
        snprintf(reason, reason_size, "%s", error ? error : "dlopen failed");
        return -1;
    }
    RESOLVE(global_init, "curl_global_init");
    RESOLVE(version, "curl_version");
    RESOLVE(easy_init, "curl_easy_init");
    RESOLVE(easy_cleanup, "curl_easy_cleanup");
    RESOLVE(easy_reset, "curl_easy_reset");
    RESOLVE(easy_setopt, "curl_easy_setopt");
    RESOLVE(easy_getinfo, "curl_easy_getinfo");
    RESOLVE(easy_pause, "curl_easy_pause");
    RESOLVE(easy_strerror, "curl_easy_strerror");
    RESOLVE(multi_init, "curl_multi_init");
    RESOLVE(multi_cleanup, "curl_multi_cleanup");
    RESOLVE(multi_setopt, "curl_multi_setopt");
    RESOLVE(multi_add_handle, "curl_multi_add_handle");
    RESOLVE(multi_remove_handle, "curl_multi_remove_handle");
    RESOLVE(multi_perform, "curl_multi_perform");
    RESOLVE(multi_poll, "curl_multi_poll");
    RESOLVE(multi_wakeup, "curl_multi_wakeup");
    RESOLVE(multi_info_read, "curl_multi_info_read");
    return 0;
}

static int load_symbols(const char *path) {
    if (resolve_all(path, &curl, load_reason, sizeof load_reason) != 0) return -1;
    // Not thread-safe in old libcurl; done once, here, under the load lock.
    if (curl.global_init(LIBCURL_GLOBAL_ALL) != 0) {
        snprintf(load_reason, sizeof load_reason, "curl_global_init failed");
        return -1;
    }
    return 0;
}

int libcurl_load(const char *path, char *reason, size_t reason_size) {
    pthread_mutex_lock(&load_lock);
    if (load_result == 1) load_result = load_symbols(path);
    int result = load_result;
    if (result != 0 && reason != NULL && reason_size > 0) snprintf(reason, reason_size, "%s", load_reason);
    pthread_mutex_unlock(&load_lock);
    return result;
}

int libcurl_probe(const char *path, char *reason, size_t reason_size) {
    struct libcurl_functions scratch;
    return resolve_all(path, &scratch, reason, reason_size);
}

const char *libcurl_version(void) { return curl.version(); }

libcurl_easy *libcurl_easy_init(void) { return curl.easy_init(); }
void libcurl_easy_cleanup(libcurl_easy *easy) { curl.easy_cleanup(easy); }
void libcurl_easy_reset(libcurl_easy *easy) { curl.easy_reset(easy); }
int libcurl_easy_setopt_long(libcurl_easy *easy, int option, long value) { return curl.easy_setopt(easy, option, value); }
int libcurl_easy_setopt_offset(libcurl_easy *easy, int option, int64_t value) {
    return curl.easy_setopt(easy, option, (long long)value);
}
int libcurl_easy_setopt_pointer(libcurl_easy *easy, int option, const void *value) {
    return curl.easy_setopt(easy, option, value);
}
int libcurl_easy_setopt_data_callback(libcurl_easy *easy, int option, libcurl_data_callback callback) {
    return curl.easy_setopt(easy, option, callback);
}
int libcurl_easy_setopt_progress_callback(libcurl_easy *easy, int option, libcurl_progress_callback callback) {
    return curl.easy_setopt(easy, option, callback);
}
int libcurl_easy_getinfo_long(libcurl_easy *easy, int info, long *value) { return curl.easy_getinfo(easy, info, value); }
int libcurl_easy_pause(libcurl_easy *easy, int bitmask) { return curl.easy_pause(easy, bitmask); }
const char *libcurl_easy_strerror(int code) { return curl.easy_strerror(code); }

libcurl_multi *libcurl_multi_init(void) { return curl.multi_init(); }
int libcurl_multi_cleanup(libcurl_multi *multi) { return curl.multi_cleanup(multi); }
int libcurl_multi_setopt_long(libcurl_multi *multi, int option, long value) { return curl.multi_setopt(multi, option, value); }
int libcurl_multi_add_handle(libcurl_multi *multi, libcurl_easy *easy) { return curl.multi_add_handle(multi, easy); }
int libcurl_multi_remove_handle(libcurl_multi *multi, libcurl_easy *easy) { return curl.multi_remove_handle(multi, easy); }
int libcurl_multi_perform(libcurl_multi *multi, int *running) { return curl.multi_perform(multi, running); }
int libcurl_multi_poll(libcurl_multi *multi, int timeout_ms, int *ready) {
    return curl.multi_poll(multi, NULL, 0, timeout_ms, ready);
}
int libcurl_multi_wakeup(libcurl_multi *multi) { return curl.multi_wakeup(multi); }

int libcurl_multi_next_done(libcurl_multi *multi, libcurl_easy **easy, int *result) {
    int left = 0;
    libcurl_message *message;
    while ((message = curl.multi_info_read(multi, &left)) != NULL) {
        if (message->msg != LIBCURL_MSG_DONE) continue;
        *easy = message->easy;
        *result = message->data.result;
        return 1;
    }
    return 0;
}

// libcurl's `struct curl_slist`, restated: libcurl only reads the list it is given.
typedef struct libcurl_list_node {
    char *data;
    struct libcurl_list_node *next;
} libcurl_list_node;

libcurl_list *libcurl_list_make(const char *lines, size_t length) {
    size_t count = 0;
    for (size_t index = 0; index < length; index++) {
        if (lines[index] == '\0') count++;
    }
    if (count == 0) return NULL;
    libcurl_list_node *nodes = malloc(count * sizeof(libcurl_list_node) + length);
    if (nodes == NULL) return NULL;
    char *text = (char *)(nodes + count);
    memcpy(text, lines, length);
    size_t node = 0;
    char *start = text;
    for (size_t index = 0; index < length && node < count; index++) {
        if (text[index] != '\0') continue;
        nodes[node].data = start;
        nodes[node].next = node + 1 < count ? &nodes[node + 1] : NULL;
        node++;
        start = text + index + 1;
    }
    return nodes;
}

void libcurl_list_free(libcurl_list *list) { free(list); }

// Linux's calls; the transport runs only there, and on Apple platforms the two do nothing.
#ifdef __linux__
void libcurl_name_this_thread(const char *name) { pthread_setname_np(pthread_self(), name); }

void libcurl_tighten_timer_slack(void) { (void)prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL); }
#else
void libcurl_name_this_thread(const char *name) { (void)name; }

void libcurl_tighten_timer_slack(void) {}
#endif
