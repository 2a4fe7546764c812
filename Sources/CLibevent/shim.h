#ifndef ORRERY_CLIBEVENT_SHIM_H
#define ORRERY_CLIBEVENT_SHIM_H

// Before any event2 header: without it a debug build fails on fd_set's '__fds_bits' across modules.
#include <sys/socket.h>
#include <sys/select.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <event2/event.h>
#include <event2/thread.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/dns.h>
#include <event2/util.h>
#include <event2/listener.h>

// Without this include SSL* stays an incomplete type in Swift.
#include <openssl/ssl.h>
#include <openssl/err.h>

// evtimer_new, evsignal_new and evtimer_add are function-like macros, which Swift cannot see.
static inline struct event *CLibevent_evtimer_new(struct event_base *base, event_callback_fn cb, void *arg) {
    return event_new(base, -1, 0, cb, arg);
}

static inline struct event *CLibevent_evsignal_new(struct event_base *base, int signum, event_callback_fn cb,
                                                   void *arg) {
    return event_new(base, signum, EV_SIGNAL | EV_PERSIST, cb, arg);
}

static inline int CLibevent_evtimer_add(struct event *ev, long seconds, long microseconds) {
    struct timeval tv = { seconds, microseconds };
    return event_add(ev, &tv);
}

// The key and value of one header line; the TAILQ macros that walk a header list are not visible to Swift.
static inline struct evkeyval *CLibevent_headers_first(struct evkeyvalq *headers) {
    return headers->tqh_first;
}

static inline struct evkeyval *CLibevent_headers_next(struct evkeyval *header) {
    return header->next.tqe_next;
}

// SSL_set_tlsext_host_name is a macro over SSL_ctrl; SNI tells a TLS upstream which certificate to present.
static inline long CLibevent_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}

// SIOCOUTQ through ioctl, a variadic function Swift cannot call: the bytes a socket has not yet had acknowledged.
// A closing connection whose answer has all reached the client can be closed without waiting (see ServerConnection).
#include <sys/ioctl.h>
#include <linux/sockios.h>
static inline int CLibevent_unsent_bytes(int fd) {
    int count = 0;
    return ioctl(fd, SIOCOUTQ, &count) == 0 ? count : 0;
}

// malloc_trim is glibc's and not in Swift's Glibc module: it hands memory malloc keeps after frees back to the
// system (a large stub set's parse trees, freed once loaded).
#include <malloc.h>
static inline int CLibevent_malloc_trim(void) {
    return malloc_trim(0);
}

#endif
