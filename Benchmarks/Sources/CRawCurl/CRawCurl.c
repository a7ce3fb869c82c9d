#include "CRawCurl.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

// The part of libcurl's CURLMsg this file reads: which message, which handle, and the result.
struct finished_message {
    int kind; // CURLMSG_DONE is 1
    void *handle;
    union {
        void *pointer;
        int code;
    } result;
};

static struct {
    int (*global_init)(long flags);
    void *(*easy_init)(void);
    void (*easy_cleanup)(void *);
    void (*easy_reset)(void *);
    int (*easy_setopt)(void *, int, ...);
    int (*easy_getinfo)(void *, int, ...);
    void *(*multi_init)(void);
    int (*multi_cleanup)(void *);
    int (*multi_setopt)(void *, int, ...);
    int (*multi_add_handle)(void *, void *);
    int (*multi_remove_handle)(void *, void *);
    int (*multi_perform)(void *, int *);
    int (*multi_poll)(void *, void *, unsigned int, int, int *);
    int (*multi_wakeup)(void *);
    int (*multi_socket_action)(void *, int, int, int *);
    int (*multi_assign)(void *, int, void *);
    struct finished_message *(*multi_info_read)(void *, int *);
    void *(*slist_append)(void *, const char *);
    void (*slist_free_all)(void *);
} curl;

static pthread_once_t opened = PTHREAD_ONCE_INIT;
static int open_result = -1;

#define FIND(field, symbol)                                                                        \
    do {                                                                                           \
        *(void **)(&curl.field) = dlsym(library, symbol);                                          \
        if (curl.field == NULL) return;                                                            \
    } while (0)

static void open_once(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return;
    FIND(global_init, "curl_global_init");
    FIND(easy_init, "curl_easy_init");
    FIND(easy_cleanup, "curl_easy_cleanup");
    FIND(easy_reset, "curl_easy_reset");
    FIND(easy_setopt, "curl_easy_setopt");
    FIND(easy_getinfo, "curl_easy_getinfo");
    FIND(multi_init, "curl_multi_init");
    FIND(multi_cleanup, "curl_multi_cleanup");
    FIND(multi_setopt, "curl_multi_setopt");
    FIND(multi_add_handle, "curl_multi_add_handle");
    FIND(multi_remove_handle, "curl_multi_remove_handle");
    FIND(multi_perform, "curl_multi_perform");
    FIND(multi_poll, "curl_multi_poll");
    FIND(multi_wakeup, "curl_multi_wakeup");
    FIND(multi_socket_action, "curl_multi_socket_action");
    FIND(multi_assign, "curl_multi_assign");
    FIND(multi_info_read, "curl_multi_info_read");
    FIND(slist_append, "curl_slist_append");
    FIND(slist_free_all, "curl_slist_free_all");
    // CURL_GLOBAL_ALL (SSL | WIN32): once per process, before any handle.
    if (curl.global_init(3) != 0) return;
    open_result = 0;
}

int rawcurl_open(void) {
    pthread_once(&opened, open_once);
    return open_result;
}

void *rawcurl_easy_init(void) { return curl.easy_init(); }
void rawcurl_easy_cleanup(void *easy) { curl.easy_cleanup(easy); }
int rawcurl_set_long(void *easy, int option, long value) { return curl.easy_setopt(easy, option, value); }
int rawcurl_set_pointer(void *easy, int option, const void *value) { return curl.easy_setopt(easy, option, value); }
// CURLOPT_WRITEFUNCTION: function options are numbered from 20000.
int rawcurl_set_write(void *easy, rawcurl_write callback) { return curl.easy_setopt(easy, 20011, callback); }
int rawcurl_set_header(void *easy, rawcurl_write callback) { return curl.easy_setopt(easy, 20079, callback); }
int rawcurl_set_read(void *easy, rawcurl_write callback) { return curl.easy_setopt(easy, 20012, callback); }
void rawcurl_easy_reset(void *easy) { curl.easy_reset(easy); }

long rawcurl_status(void *easy) {
    long status = 0;
    // CURLINFO_RESPONSE_CODE: CURLINFO_LONG (0x200000) + 2.
    if (curl.easy_getinfo(easy, 0x200002, &status) != 0) return 0;
    return status;
}

void *rawcurl_private(void *easy) {
    char *value = NULL;
    // CURLINFO_PRIVATE: CURLINFO_STRING (0x100000) + 21, a pointer handed back as set.
    if (curl.easy_getinfo(easy, 0x100015, &value) != 0) return NULL;
    return value;
}

void *rawcurl_multi_init(void) { return curl.multi_init(); }
void rawcurl_multi_cleanup(void *multi) { curl.multi_cleanup(multi); }
int rawcurl_multi_set_long(void *multi, int option, long value) { return curl.multi_setopt(multi, option, value); }
int rawcurl_multi_add(void *multi, void *easy) { return curl.multi_add_handle(multi, easy); }
int rawcurl_multi_remove(void *multi, void *easy) { return curl.multi_remove_handle(multi, easy); }
int rawcurl_multi_perform(void *multi, int *running) { return curl.multi_perform(multi, running); }
int rawcurl_multi_poll(void *multi, int timeout_ms) { return curl.multi_poll(multi, NULL, 0, timeout_ms, NULL); }
int rawcurl_multi_wakeup(void *multi) { return curl.multi_wakeup(multi); }

void *rawcurl_multi_finished(void *multi, int *code) {
    int left = 0;
    struct finished_message *message;
    while ((message = curl.multi_info_read(multi, &left)) != NULL) {
        if (message->kind == 1) {
            *code = message->result.code;
            return message->handle;
        }
    }
    return NULL;
}

void *rawcurl_list_append(void *list, const char *line) { return curl.slist_append(list, line); }
void rawcurl_list_free(void *list) { curl.slist_free_all(list); }

// The event-driven loop (issue 41's experiment): libcurl says which sockets it waits on and when its
// next timeout is due (CURLMOPT_SOCKETFUNCTION / CURLMOPT_TIMERFUNCTION); epoll waits on them and on
// an eventfd a caller writes to wake the loop; curl_multi_socket_action runs only the transfer whose
// socket is ready, where curl_multi_perform visits every transfer and curl_multi_poll every socket.
struct rawcurl_events {
    void *multi;
    int epoll;
    int wake;
    // When libcurl's timeout is due, in monotonic nanoseconds; 0 when none is set.
    unsigned long long due;
};

static unsigned long long monotonic_nanoseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (unsigned long long)now.tv_sec * 1000000000ull + (unsigned long long)now.tv_nsec;
}

// CURL_POLL_IN 1, OUT 2, INOUT 3, REMOVE 4.
// A socket libcurl already told of carries a mark (curl_multi_assign), so each change is one epoll_ctl.
static int on_socket(void *easy, int socket, int what, void *user, void *socket_user) {
    (void)easy;
    struct rawcurl_events *events = user;
    if (what == 4) {
        epoll_ctl(events->epoll, EPOLL_CTL_DEL, socket, NULL);
        return 0;
    }
    struct epoll_event event = {0};
    event.data.fd = socket;
    event.events = (what & 1 ? EPOLLIN : 0) | (what & 2 ? EPOLLOUT : 0);
    if (socket_user != NULL) {
        if (epoll_ctl(events->epoll, EPOLL_CTL_MOD, socket, &event) == 0 || errno != ENOENT) return 0;
    }
    epoll_ctl(events->epoll, EPOLL_CTL_ADD, socket, &event);
    curl.multi_assign(events->multi, socket, events);
    return 0;
}

static int on_timer(void *multi, long timeout_ms, void *user) {
    (void)multi;
    struct rawcurl_events *events = user;
    events->due = timeout_ms < 0 ? 0 : monotonic_nanoseconds() + (unsigned long long)timeout_ms * 1000000ull;
    // 0 is a valid due time only as "now": keep it non-zero.
    if (timeout_ms >= 0 && events->due == 0) events->due = 1;
    return 0;
}

void *rawcurl_events_init(void *multi) {
    struct rawcurl_events *events = calloc(1, sizeof *events);
    if (events == NULL) return NULL;
    events->multi = multi;
    events->epoll = epoll_create1(EPOLL_CLOEXEC);
    events->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    struct epoll_event event = {0};
    event.events = EPOLLIN;
    event.data.fd = events->wake;
    if (events->epoll < 0 || events->wake < 0
        || epoll_ctl(events->epoll, EPOLL_CTL_ADD, events->wake, &event) != 0) {
        if (events->epoll >= 0) close(events->epoll);
        if (events->wake >= 0) close(events->wake);
        free(events);
        return NULL;
    }
    // CURLMOPT_SOCKETFUNCTION 20001, SOCKETDATA 10002, TIMERFUNCTION 20004, TIMERDATA 10005.
    curl.multi_setopt(multi, 20001, on_socket);
    curl.multi_setopt(multi, 10002, events);
    curl.multi_setopt(multi, 20004, on_timer);
    curl.multi_setopt(multi, 10005, events);
    return events;
}

void rawcurl_events_wake(void *state) {
    struct rawcurl_events *events = state;
    unsigned long long one = 1;
    ssize_t written = write(events->wake, &one, sizeof one);
    (void)written;
}

void rawcurl_events_run(void *state, int timeout_ms) {
    struct rawcurl_events *events = state;
    int running = 0;
    int wait = timeout_ms;
    if (events->due != 0) {
        unsigned long long now = monotonic_nanoseconds();
        unsigned long long left = events->due > now ? events->due - now : 0;
        int left_ms = (int)((left + 999999ull) / 1000000ull);
        if (left_ms < wait) wait = left_ms;
    }
    struct epoll_event ready[64];
    int count = epoll_wait(events->epoll, ready, 64, wait);
    for (int index = 0; index < count; index++) {
        int socket = ready[index].data.fd;
        if (socket == events->wake) {
            unsigned long long value;
            ssize_t got = read(events->wake, &value, sizeof value);
            (void)got;
            continue;
        }
        unsigned int flags = ready[index].events;
        // CURL_CSELECT_IN 1, OUT 2, ERR 4.
        int mask = (flags & EPOLLIN ? 1 : 0) | (flags & EPOLLOUT ? 2 : 0) | (flags & (EPOLLERR | EPOLLHUP) ? 4 : 0);
        curl.multi_socket_action(events->multi, socket, mask, &running);
    }
    if (events->due != 0 && monotonic_nanoseconds() >= events->due) {
        events->due = 0;
        // CURL_SOCKET_TIMEOUT: -1.
        curl.multi_socket_action(events->multi, -1, 0, &running);
    }
}
