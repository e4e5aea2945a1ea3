/* tcp_reference: the raw TCP figures Pangea's off-node path is measured against, over the
 * same link — a ping-pong round trip with a spinning receiver (non-blocking reads in a loop)
 * and with a blocking one (read sleeps until data comes), and a one-way stream.
 *
 * Two processes: rank 0 (PMI_RANK, as set by mpiexec) listens, rank 1 connects and measures.
 *   tests/netns/netns-run.sh 2 1 -- build/perf/tcp_reference [-a SERVER] [-s BYTES] [-n ITERS] [-B]
 * Prints round-trip medians for 8 B and BYTES (default 8), then the stream rate in GB/s
 * (GB = 10^9 bytes) of 4 MiB writes for 2 seconds. -B: blocking receivers only (two spinning
 * processes bound to one core would each hold it for a whole time slice). Uses no MPI: only
 * TCP sockets. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

#define PORT 47213
#define STREAM_CHUNK ((size_t)4 << 20)
#define STREAM_SECONDS 2.0

static void die(const char *what)
{
    fprintf(stderr, "tcp_reference: %s: %s\n", what, strerror(errno));
    exit(1);
}

/* Reads exactly n bytes; spinning: non-blocking reads retried at once. */
static void read_all(int fd, char *buf, size_t n, int spin)
{
    while (n) {
        ssize_t got = recv(fd, buf, n, spin ? MSG_DONTWAIT : 0);
        if (got > 0) {
            buf += got;
            n -= (size_t)got;
        } else if (got == 0) {
            fprintf(stderr, "tcp_reference: the peer closed the connection\n");
            exit(1);
        } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            die("recv");
        }
    }
}

static void write_all(int fd, const char *buf, size_t n)
{
    while (n) {
        ssize_t put = send(fd, buf, n, 0);
        if (put < 0 && errno != EINTR)
            die("send");
        if (put > 0) {
            buf += put;
            n -= (size_t)put;
        }
    }
}

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Round trips of `bytes` each way; the measuring side reports the median. */
static void pingpong(int fd, int measuring, size_t bytes, int iters, int spin, char *buf)
{
    double *rtt = malloc((size_t)iters * sizeof *rtt);
    if (!rtt)
        die("malloc");
    for (int i = -iters / 10; i < iters; i++) { /* the first tenth warms up */
        double t0 = bench_now_us();
        if (measuring) {
            write_all(fd, buf, bytes);
            read_all(fd, buf, bytes, spin);
        } else {
            read_all(fd, buf, bytes, spin);
            write_all(fd, buf, bytes);
        }
        if (i >= 0)
            rtt[i] = bench_now_us() - t0;
    }
    if (measuring) {
        qsort(rtt, (size_t)iters, sizeof *rtt, compare);
        printf("round trip %7zu B, %s receiver: median %8.2f us, min %8.2f us (%d round trips)\n",
               bytes, spin ? "spinning" : "blocking", rtt[iters / 2], rtt[0], iters);
    }
    free(rtt);
}

/* The measuring side writes for STREAM_SECONDS and sends a zero-length end mark by closing its
 * writing half; the other side counts what arrives and reports the rate back. */
static void stream(int fd, int measuring, char *buf)
{
    if (measuring) {
        double t0 = bench_now_us();
        size_t sent = 0;
        while (bench_now_us() - t0 < STREAM_SECONDS * 1e6) {
            write_all(fd, buf, STREAM_CHUNK);
            sent += STREAM_CHUNK;
        }
        shutdown(fd, SHUT_WR);
        double rate;
        read_all(fd, (char *)&rate, sizeof rate, 0);
        printf("stream of %zu MiB writes: %.2f GB/s received (%.0f MiB in %.1f s)\n",
               STREAM_CHUNK >> 20, rate, (double)sent / (1 << 20), STREAM_SECONDS);
    } else {
        double t0 = 0;
        size_t received = 0;
        for (;;) {
            ssize_t got = recv(fd, buf, STREAM_CHUNK, 0);
            if (got < 0 && errno == EINTR)
                continue;
            if (got < 0)
                die("recv");
            if (got == 0)
                break;
            if (!received)
                t0 = bench_now_us();
            received += (size_t)got;
        }
        double rate = (double)received / (bench_now_us() - t0) / 1e3;
        write_all(fd, (const char *)&rate, sizeof rate);
    }
}

static int connect_pair(int rank, const char *server)
{
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(PORT)};
    int one = 1, fd;
    if (rank == 0) {
        int listener = socket(AF_INET, SOCK_STREAM, 0);
        if (listener < 0)
            die("socket");
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        addr.sin_addr.s_addr = htonl(INADDR_ANY);
        if (bind(listener, (struct sockaddr *)&addr, sizeof addr) || listen(listener, 1))
            die("bind/listen");
        fd = accept(listener, NULL, NULL);
        close(listener);
        if (fd < 0)
            die("accept");
    } else {
        if (inet_pton(AF_INET, server, &addr.sin_addr) != 1) {
            fprintf(stderr, "tcp_reference: '%s' is not an IPv4 address\n", server);
            exit(2);
        }
        for (int tries = 0;; tries++) { /* the listener may not be up yet */
            fd = socket(AF_INET, SOCK_STREAM, 0);
            if (fd < 0)
                die("socket");
            if (connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0)
                break;
            if (tries == 100)
                die("connect");
            close(fd);
            usleep(50000);
        }
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

int main(int argc, char **argv)
{
    const char *server = "10.213.7.11", *rank_text = getenv("PMI_RANK");
    size_t bytes = 8;
    int iters = 20000, spinning = 1, opt;
    while ((opt = getopt(argc, argv, "a:s:n:Bh")) != -1) {
        switch (opt) {
        case 'a':
            server = optarg;
            break;
        case 's':
            bytes = strtoull(optarg, NULL, 0);
            break;
        case 'n':
            iters = atoi(optarg);
            break;
        case 'B':
            spinning = 0;
            break;
        default:
            fprintf(stderr,
                    "usage: %s [-a SERVER_IPV4] [-s BYTES] [-n ITERATIONS] [-B]\n"
                    "run as a 2-rank job (PMI_RANK 0 listens, 1 measures)\n",
                    argv[0]);
            return 2;
        }
    }
    if (!rank_text || bytes < 1 || bytes > STREAM_CHUNK || iters < 10) {
        fprintf(stderr, "tcp_reference: needs PMI_RANK (run it with mpiexec -n 2), 1 <= BYTES "
                        "<= 4 MiB, ITERATIONS >= 10\n");
        return 2;
    }
    int rank = atoi(rank_text);
    if (rank > 1)
        return 0;
    char *buf = calloc(1, STREAM_CHUNK);
    if (!buf)
        die("malloc");
    int fd = connect_pair(rank, server);
    size_t sizes[2] = {8, bytes};
    for (int s = 0; s < (bytes == 8 ? 1 : 2); s++) {
        if (spinning)
            pingpong(fd, rank == 1, sizes[s], iters, 1, buf);
        pingpong(fd, rank == 1, sizes[s], iters / 4, 0, buf);
    }
    stream(fd, rank == 1, buf);
    close(fd);
    free(buf);
    return 0;
}
