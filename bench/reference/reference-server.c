/*
 * reference-server: the smallest sensible libevent 2.1 HTTP server, used by
 * scripts/bench.sh as the speed reference for Orrery.  It does no routing and
 * no parsing beyond what evhttp does itself, so it marks roughly the ceiling
 * that a libevent-based server can reach on this machine.
 *
 *   reference-server --host 127.0.0.1 --port P --threads N --body FILE
 *                    [--content-type T]
 *
 * Every request (any path, any method) gets 200 with the bytes of FILE.
 */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/thread.h>

static char *body;          /* read once at start, shared read-only by all threads */
static size_t body_len;
static const char *content_type = "application/json";

struct worker {
    pthread_t thread;
    struct event_base *base;
    struct evhttp *http;
};

static void die(const char *what) { perror(what); exit(1); }

static void handle(struct evhttp_request *req, void *arg) {
    (void)arg;
    evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", content_type);
    /* Reference, not copy: the body outlives every request, so no cleanup callback. */
    evbuffer_add_reference(evhttp_request_get_output_buffer(req), body, body_len, NULL, NULL);
    evhttp_send_reply(req, 200, "OK", NULL);
}

static void *run_worker(void *arg) {
    event_base_dispatch(((struct worker *)arg)->base);
    return NULL;
}

/* One listening socket per worker, all bound to the same port with SO_REUSEPORT:
 * the kernel then spreads incoming connections over the workers, so there is no
 * shared accept lock and no hand-off between threads. */
static int open_listener(const char *host, int port) {
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
        fprintf(stderr, "bad IPv4 host: %s\n", host);
        exit(2);
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) die("socket");
    int one = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0) die("SO_REUSEADDR");
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) < 0) die("SO_REUSEPORT");
    /* Inherited by accepted connections: no 40 ms wait on the client's delayed ACK for large answers (Nagle),
       as Orrery and nginx (tcp_nodelay) do. */
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0) die("TCP_NODELAY");
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0) die("bind");
    /* evhttp_accept_socket() does not call listen() itself. */
    if (listen(fd, 1024) < 0) die("listen");
    return fd;
}

static void read_body(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) die(path);
    if (fseek(f, 0, SEEK_END) != 0) die("fseek");
    long n = ftell(f);
    if (n < 0) die("ftell");
    rewind(f);
    body = malloc(n > 0 ? (size_t)n : 1);
    if (!body) die("malloc");
    body_len = fread(body, 1, (size_t)n, f);
    if (body_len != (size_t)n) die("fread");
    fclose(f);
}

static void usage(void) {
    fprintf(stderr, "usage: reference-server --host H --port P --threads N --body FILE [--content-type T]\n");
    exit(2);
}

int main(int argc, char **argv) {
    const char *host = "127.0.0.1", *body_path = NULL;
    int port = 0, threads = 1;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) usage();
        const char *opt = argv[i], *val = argv[++i];
        if (!strcmp(opt, "--host")) host = val;
        else if (!strcmp(opt, "--port")) port = atoi(val);
        else if (!strcmp(opt, "--threads")) threads = atoi(val);
        else if (!strcmp(opt, "--body")) body_path = val;
        else if (!strcmp(opt, "--content-type")) content_type = val;
        else usage();
    }
    if (port <= 0 || port > 65535 || threads < 1 || !body_path) usage();
    read_body(body_path);

    /* Must come before any event_base is created, so that bases get locks and a
     * notification fd: that is what lets main() stop them from another thread. */
    if (evthread_use_pthreads() != 0) { fprintf(stderr, "evthread_use_pthreads failed\n"); return 1; }
    /* A client closing early must not kill the server. */
    signal(SIGPIPE, SIG_IGN);
    /* Block SIGTERM/SIGINT before starting threads (they inherit the mask), so the
     * signals are only ever taken by sigwait() in main below. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);

    struct worker *w = calloc((size_t)threads, sizeof *w);
    if (!w) die("calloc");
    for (int i = 0; i < threads; i++) {
        w[i].base = event_base_new();
        w[i].http = w[i].base ? evhttp_new(w[i].base) : NULL;
        if (!w[i].http) { fprintf(stderr, "event_base/evhttp setup failed\n"); return 1; }
        /* evhttp rejects unknown methods with 405 by default; the reference answers all. */
        evhttp_set_allowed_methods(w[i].http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_HEAD |
            EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE | EVHTTP_REQ_OPTIONS | EVHTTP_REQ_TRACE |
            EVHTTP_REQ_CONNECT | EVHTTP_REQ_PATCH);
        evhttp_set_gencb(w[i].http, handle, NULL);
        if (evhttp_accept_socket(w[i].http, open_listener(host, port)) != 0) {
            fprintf(stderr, "evhttp_accept_socket failed\n");
            return 1;
        }
    }
    for (int i = 0; i < threads; i++)
        if (pthread_create(&w[i].thread, NULL, run_worker, &w[i]) != 0) die("pthread_create");

    /* Scripts wait for this line, so flush it explicitly (stdout may be a pipe). */
    printf("listening on http://%s:%d\n", host, port);
    fflush(stdout);

    int sig;
    sigwait(&stop, &sig);
    for (int i = 0; i < threads; i++) event_base_loopbreak(w[i].base);  /* thread-safe: see above */
    for (int i = 0; i < threads; i++) {
        pthread_join(w[i].thread, NULL);
        evhttp_free(w[i].http);  /* also closes the listening socket */
        event_base_free(w[i].base);
    }
    free(w);
    free(body);
    return 0;
}
