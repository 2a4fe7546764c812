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

// An OpenSSL bufferevent over a socket whose SSL reads ahead (SSL_set_read_ahead) may hold whole records beyond the
// one it was asked for, and the socket, already read, will not announce them again: when OpenSSL holds any, the
// bufferevent's read event is activated, which makes it read them. A filter reads on by itself, and its read event
// is not set up; any other bufferevent has no SSL. The read event is the field of struct bufferevent after two
// pointers (event2/bufferevent_struct.h, public and fixed in libevent 2.x); that header is not included here, since
// it would make every bufferevent a complete type to Swift instead of an OpaquePointer.
static inline void CLibevent_bufferevent_read_ahead_pending(struct bufferevent *bev) {
    SSL *ssl = bufferevent_openssl_get_ssl(bev);
    if (!ssl || bufferevent_get_underlying(bev) || !SSL_has_pending(ssl)) return;
    struct event *read_event = (struct event *)((void **)bev + 2);
    event_active(read_event, EV_READ, 0);
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

// Certificates for HTTPS: building X.509 extensions (x509v3.h) and reading and writing PEM (pem.h). ssl.h does not
// bring in x509v3.h.
#include <openssl/x509v3.h>
#include <openssl/pem.h>

// SSL_CTX_set_tlsext_servername_callback and _arg are macros over SSL_CTX_callback_ctrl and SSL_CTX_ctrl, which
// Swift cannot see; the callback also needs casting to OpenSSL's generic `void (*)(void)`. It picks the server
// certificate for each handshake (it runs with and without SNI).
typedef int (*CLibevent_servername_cb)(SSL *ssl, int *alert, void *arg);
static inline int CLibevent_SSL_CTX_set_servername_callback(SSL_CTX *ctx, CLibevent_servername_cb cb, void *arg) {
    if (!SSL_CTX_set_tlsext_servername_arg(ctx, arg)) return 0;
    return (int)SSL_CTX_set_tlsext_servername_callback(ctx, cb);
}

// SSL_CTX_set_min_proto_version is a macro over SSL_CTX_ctrl: the TLS server refuses anything older than TLS 1.2.
static inline int CLibevent_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}

// Every SSL_OP_* constant is built with the function-like macro SSL_OP_BIT, so Swift imports none of them.
// No renegotiation: a test server has no use for it, and it is a known denial-of-service lever.
static inline uint64_t CLibevent_SSL_OP_NO_RENEGOTIATION(void) {
    return SSL_OP_NO_RENEGOTIATION;
}

// A client that closes without close_notify reads as an end of file instead of an SSL error (OpenSSL 3 made it
// one); HTTP frames its own messages, so a truncation cannot pass for a complete request.
static inline uint64_t CLibevent_SSL_OP_IGNORE_UNEXPECTED_EOF(void) {
    return SSL_OP_IGNORE_UNEXPECTED_EOF;
}

// malloc_trim is glibc's and not in Swift's Glibc module: it hands memory malloc keeps after frees back to the
// system (a large stub set's parse trees, freed once loaded).
#include <malloc.h>
static inline int CLibevent_malloc_trim(void) {
    return malloc_trim(0);
}

// mallopt's M_TRIM_THRESHOLD: how much free memory at the top of a heap malloc keeps before giving it back. At the
// default (128 KiB) a loop's thread heap shrank and grew again, an mprotect call, every few requests.
static inline int CLibevent_malloc_keep_free(int bytes) {
    return mallopt(M_TRIM_THRESHOLD, bytes);
}

#endif
