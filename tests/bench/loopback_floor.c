/* swarmcast-loopback-floor: what this machine's loopback TCP costs per
 * message with nothing else around it, the floor under any fan-out figure.
 * One process writes a LEN-byte message to each of N connections every
 * 1/HZ s with plain send() (TCP_NODELAY, the server's 128 KiB send buffer);
 * a child process reads them all with epoll. No WebSocket, no simulation,
 * no encoding. Prints messages per second and CPU per message on each side.
 *
 * usage: swarmcast-loopback-floor [--connections 4000] [--bytes 2600]
 *          [--hz 30] [--seconds 6]
 *
 * Needs `ulimit -n` above 2 × connections. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "machine.h"

#define SNDBUF_BYTES (128 * 1024)

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double cpu_s(void)
{
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) + (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec) * 1e-6;
}

static int reader(const int *fds, int n, size_t len, double seconds)
{
    int ep = epoll_create1(0);
    for (int i = 0; i < n; i++) {
        struct epoll_event e = {.events = EPOLLIN, .data.fd = fds[i]};
        if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &e)) return 1;
    }
    static char buf[1 << 16];
    struct epoll_event ev[512];
    double t0 = now_s(), c0 = cpu_s();
    double bytes = 0;
    while (now_s() - t0 < seconds) {
        int k = epoll_wait(ep, ev, 512, 100);
        for (int j = 0; j < k; j++) {
            ssize_t r = read(ev[j].data.fd, buf, sizeof buf);
            if (r > 0) bytes += (double)r;
        }
    }
    double cpu = cpu_s() - c0, msgs = bytes / (double)len;
    printf("| reader | %.0f | %.0f%% | %.2f |\n", msgs / seconds, 100 * cpu / seconds, cpu * 1e6 / msgs);
    return 0;
}

int main(int argc, char **argv)
{
    int n = 4000;
    size_t len = 2600;
    double hz = 30, seconds = 6;
    static const struct option options[] = {
        {"connections", required_argument, NULL, 'n'}, {"bytes", required_argument, NULL, 'b'},
        {"hz", required_argument, NULL, 'z'},          {"seconds", required_argument, NULL, 's'},
        {NULL, 0, NULL, 0},
    };
    for (int o; (o = getopt_long(argc, argv, "", options, NULL)) != -1;) {
        switch (o) {
        case 'n': n = atoi(optarg); break;
        case 'b': len = strtoul(optarg, NULL, 10); break;
        case 'z': hz = atof(optarg); break;
        case 's': seconds = atof(optarg); break;
        default:
            fprintf(stderr, "usage: swarmcast-loopback-floor [--connections N] [--bytes LEN] [--hz HZ] [--seconds S]\n");
            return 2;
        }
    }
    if (n <= 0 || len == 0 || hz <= 0 || seconds <= 0) return 2;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }

    int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof a) || listen(ls, 4096) ||
        getsockname(ls, (struct sockaddr *)&a, &al)) {
        perror("swarmcast-loopback-floor: listen");
        return 1;
    }
    int *client = calloc((size_t)n, sizeof *client), *server = calloc((size_t)n, sizeof *server);
    if (!client || !server) return 1;
    for (int i = 0; i < n; i++) {
        int sb = SNDBUF_BYTES;
        if ((client[i] = socket(AF_INET, SOCK_STREAM, 0)) < 0 || connect(client[i], (struct sockaddr *)&a, sizeof a) ||
            (server[i] = accept(ls, NULL, NULL)) < 0) {
            perror("swarmcast-loopback-floor: connect (raise ulimit -n)");
            return 1;
        }
        setsockopt(server[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        setsockopt(server[i], SOL_SOCKET, SO_SNDBUF, &sb, sizeof sb);
        fcntl(server[i], F_SETFL, O_NONBLOCK);
    }
    char cpu_name[128];
    machine_cpu_name(cpu_name, sizeof cpu_name);
    printf("# swarmcast-loopback-floor: %d connections, %zu-byte messages at %g Hz, %g s; %s, %s\n", n, len, hz,
           seconds, cpu_name, machine_instruction_set());
    printf("| side | messages/s | CPU | µs CPU per message |\n|---|---|---|---|\n");
    fflush(stdout);

    pid_t child = fork();
    if (child == 0) {
        for (int i = 0; i < n; i++) close(server[i]);
        return reader(client, n, len, seconds);
    }
    for (int i = 0; i < n; i++) close(client[i]);
    char *msg = calloc(1, len);
    double t0 = now_s(), c0 = cpu_s(), sent = 0, short_writes = 0;
    for (long round = 0; now_s() - t0 < seconds; round++) {
        double due = t0 + (double)round / hz;
        while (now_s() < due) usleep(200);
        for (int i = 0; i < n; i++) {
            if (send(server[i], msg, len, MSG_NOSIGNAL) == (ssize_t)len)
                sent++;
            else
                short_writes++;
        }
    }
    double cpu = cpu_s() - c0;
    waitpid(child, NULL, 0);
    printf("| writer | %.0f | %.0f%% | %.2f |\n", sent / seconds, 100 * cpu / seconds, cpu * 1e6 / sent);
    if (short_writes > 0) printf("# %.0f writes were short (the reader fell behind)\n", short_writes);
    return 0;
}
