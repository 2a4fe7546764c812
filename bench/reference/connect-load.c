// A load generator for HTTPS through a proxy that intercepts CONNECT: each connection sends
// `CONNECT host:443`, reads the 200, does a TLS handshake (SNI host, verified against --cacert), and then sends
// GET requests on it, reading each answer (Content-Length framed) before the next. wrk cannot do this (it speaks
// to a proxy neither CONNECT nor TLS inside it). With --plain it sends the same requests straight to the proxy
// port without CONNECT or TLS, for a plain baseline measured by the same client.
//
//   connect-load --proxy 127.0.0.1:8080 --host api.example.test --path /bench --cacert ca.pem
//                [--connections 32] [--seconds 5] [--requests-per-connection 0] [--plain] [--resume]
//                [--requests N]
//
// --requests-per-connection 1 makes a new connection (and handshake) for every request; 0 keeps each
// connection for the whole run. Without --resume every handshake is a full one; with it each client thread offers
// the session (TLS 1.3 ticket) of its previous connection, as a browser does. Prints
// "requests N seconds S rps R errors E handshakes H resumed U". --requests N stops after N requests in all (or at
// --seconds, whichever comes first): with one connection, two runs of different N tell a request's cost apart
// from the handshake's (scripts/bench-mitm-callgrind.sh).
#define _GNU_SOURCE  // memmem, strcasestr
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const char *proxy_host = "127.0.0.1";
static int proxy_port = 8080;
static const char *target_host = "api.example.test";
static const char *path = "/bench";
static const char *ca_file = NULL;
static int connections = 32;
static double seconds = 5;
static long per_connection = 0;
static int plain = 0;
static int resume = 0;
static long request_limit = 0;
static atomic_long issued;
static atomic_long handshakes;
static atomic_long resumed;
static SSL_CTX *context;
static atomic_long requests;
static atomic_long errors;
static _Atomic double deadline;  // set to 0 by the thread that reaches --requests

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int connect_proxy(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    int on = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(proxy_port)};
    inet_pton(AF_INET, proxy_host, &address.sin_addr);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

// Reads until the blank line that ends a head; returns the head's length, 0 on failure.
typedef int (*reader)(void *, char *, int);
static int read_fd(void *handle, char *buffer, int size) { return (int)read(*(int *)handle, buffer, size); }
static int read_ssl(void *handle, char *buffer, int size) { return SSL_read((SSL *)handle, buffer, size); }
static int write_all(int fd, SSL *ssl, const char *bytes, int count) {
    while (count > 0) {
        int sent = ssl ? SSL_write(ssl, bytes, count) : (int)write(fd, bytes, count);
        if (sent <= 0) return -1;
        bytes += sent;
        count -= sent;
    }
    return 0;
}

// Reads one answer (head and Content-Length body) into buffer; keeps extra bytes in *kept. Returns 0 if good.
static int read_answer(reader read_some, void *handle, char *buffer, int size, int *kept) {
    int have = *kept;
    char *end = NULL;
    while (!(end = memmem(buffer, have, "\r\n\r\n", 4))) {
        if (have >= size) return -1;
        int count = read_some(handle, buffer + have, size - have);
        if (count <= 0) return -1;
        have += count;
    }
    int head = (int)(end - buffer) + 4;
    long length = 0;
    char *field = strcasestr(buffer, "\r\ncontent-length:");
    if (field && field < end) length = strtol(field + 17, NULL, 10);
    if (strncmp(buffer, "HTTP/1.1 200", 12) != 0) return -1;
    while (have < head + length) {
        int count = read_some(handle, buffer + have, size - have);
        if (count <= 0) return -1;
        have += count;
    }
    *kept = have - head - (int)length;
    memmove(buffer, buffer + head + length, *kept);
    return 0;
}

static void *run(void *unused) {
    (void)unused;
    char request[512];
    int request_length = snprintf(request, sizeof request, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, target_host);
    char buffer[65536];
    SSL_SESSION *session = NULL;
    while (now() < deadline) {
        int fd = connect_proxy();
        if (fd < 0) {
            atomic_fetch_add(&errors, 1);
            continue;
        }
        SSL *ssl = NULL;
        int kept = 0;
        if (!plain) {
            char connect_line[512];
            int count = snprintf(connect_line, sizeof connect_line, "CONNECT %s:443 HTTP/1.1\r\nHost: %s:443\r\n\r\n", target_host, target_host);
            if (write_all(fd, NULL, connect_line, count) != 0) goto failed;
            int have = 0;
            while (!memmem(buffer, have, "\r\n\r\n", 4)) {
                int got = (int)read(fd, buffer + have, sizeof buffer - have);
                if (got <= 0) goto failed;
                have += got;
            }
            if (strncmp(buffer, "HTTP/1.1 200", 12) != 0) goto failed;
            ssl = SSL_new(context);
            SSL_set_tlsext_host_name(ssl, target_host);
            SSL_set1_host(ssl, target_host);
            SSL_set_fd(ssl, fd);
            if (session) SSL_set_session(ssl, session);
            if (SSL_connect(ssl) != 1) goto failed;
            atomic_fetch_add(&handshakes, 1);
            if (SSL_session_reused(ssl)) atomic_fetch_add(&resumed, 1);
        }
        for (long done = 0; (per_connection == 0 || done < per_connection) && now() < deadline; done++) {
            if (request_limit > 0 && atomic_fetch_add(&issued, 1) >= request_limit) {
                deadline = 0;  // every thread stops
                break;
            }
            if (write_all(fd, ssl, request, request_length) != 0) goto failed;
            if (read_answer(ssl ? read_ssl : read_fd, ssl ? (void *)ssl : (void *)&fd, buffer, sizeof buffer, &kept) != 0) goto failed;
            atomic_fetch_add(&requests, 1);
        }
        if (ssl) {
            // TLS 1.3 tickets come after the handshake: the session read with the answers is the one to offer.
            if (resume) {
                if (session) SSL_SESSION_free(session);
                session = SSL_get1_session(ssl);
            }
            SSL_shutdown(ssl);
            SSL_free(ssl);
        }
        close(fd);
        continue;
    failed:
        if (now() < deadline) atomic_fetch_add(&errors, 1);
        if (ssl) SSL_free(ssl);
        close(fd);
    }
    if (session) SSL_SESSION_free(session);
    return NULL;
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(flag, "--proxy")) {
            static char host[64];
            snprintf(host, sizeof host, "%s", value);
            char *colon = strrchr(host, ':');
            if (colon) {
                *colon = 0;
                proxy_port = atoi(colon + 1);
            }
            proxy_host = host;
            i++;
        } else if (!strcmp(flag, "--host")) target_host = value, i++;
        else if (!strcmp(flag, "--path")) path = value, i++;
        else if (!strcmp(flag, "--cacert")) ca_file = value, i++;
        else if (!strcmp(flag, "--connections")) connections = atoi(value), i++;
        else if (!strcmp(flag, "--seconds")) seconds = atof(value), i++;
        else if (!strcmp(flag, "--requests-per-connection")) per_connection = atol(value), i++;
        else if (!strcmp(flag, "--plain")) plain = 1;
        else if (!strcmp(flag, "--resume")) resume = 1;
        else if (!strcmp(flag, "--requests")) request_limit = atol(value), i++;
        else {
            fprintf(stderr, "unknown argument %s\n", flag);
            return 2;
        }
    }
    context = SSL_CTX_new(TLS_client_method());
    SSL_CTX_set_verify(context, SSL_VERIFY_PEER, NULL);
    // No cache of OpenSSL's own: without --resume every handshake is a full one; with it each thread keeps the
    // session of its last connection itself.
    SSL_CTX_set_session_cache_mode(context, SSL_SESS_CACHE_OFF);
    if (!plain && (!ca_file || SSL_CTX_load_verify_locations(context, ca_file, NULL) != 1)) {
        fprintf(stderr, "cannot load --cacert\n");
        return 1;
    }
    double started = now();
    deadline = started + seconds;
    pthread_t threads[1024];
    if (connections > 1024) connections = 1024;
    for (int i = 0; i < connections; i++) pthread_create(&threads[i], NULL, run, NULL);
    for (int i = 0; i < connections; i++) pthread_join(threads[i], NULL);
    double elapsed = now() - started;
    long count = atomic_load(&requests);
    printf("requests %ld seconds %.2f rps %.0f errors %ld handshakes %ld resumed %ld\n", count, elapsed, count / elapsed,
        atomic_load(&errors), atomic_load(&handshakes), atomic_load(&resumed));
    return 0;
}
