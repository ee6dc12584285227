/* swarmcast-fanout: how many viewers one server carries. Opens N WebSocket
 * connections to a running server (one process, one thread, libwebsockets'
 * client: little overhead per frame, so that the server is what is
 * measured), reads every frame of every connection without decoding it, and
 * prints for each N:
 *
 *   - the median (and 10th percentile) snapshots per second per viewer,
 *   - bytes per second per viewer (median) and in all, as messages (after
 *     any inflate) and on the wire (the kernel's count, via ss),
 *   - the server's CPU (from /proc/PID/stat, 100% = one core) and, with
 *     --threads, each of its threads',
 *   - the server's tick rate and overruns (from its /metrics), and whether
 *     the tick held its rate (no overrun, ≥ 98% of --tick-hz).
 *
 * usage: swarmcast-fanout --port P --pid SERVER_PID [--host 127.0.0.1]
 *          [--counts 100,500,1000,2000,4000] [--seconds 10] [--warmup 2]
 *          [--protocol swarmcast.v2] [--deflate] [--tick-hz 60] [--threads]
 *          [--ports P1,P2,...] [--other-pids PID,PID,...] [--reader raw|lws]
 *          [--metrics-port M]  (the server's /metrics listener: port + 1000 by default)
 *          [--tls-ca ROOT.crt] [--path /ws] [--rooms CODE1,CODE2,...] [--min-rate 28]
 *
 * --ports spreads the viewers round-robin over several servers (relays, say)
 * while --port and --pid still name the one whose CPU, tick and /metrics are
 * reported (the simulation); --other-pids adds a column with those
 * processes' CPU summed (the relays').
 *
 * --rooms spreads the viewers round-robin over rooms (viewer i watches
 * /ws?room=CODE[i mod n]; an empty code, as in "--rooms ,K7PXM3QD", is the
 * default room at --path) and adds, after each round's row, a row per room
 * (its viewers, open ones, the slowest viewer's and the median viewer's
 * snapshots per second, how many were below --min-rate) and one line
 * "#rooms {JSON}" with the same figures for a script (tests/bench/rooms.mjs).
 * With --rooms the probe also says on stderr when its window opens and
 * closes ("fanout: measuring", "fanout: measured"), so that a script can
 * sample the server in that window. Viewers that were open when the window
 * opened count, closed or not, in the rooms' rows. --path replaces /ws.
 *
 * --tls-ca connects with wss:// through a TLS front (Caddy, say: --ports
 * names its port, --other-pids its pid) and verifies its certificate against
 * that root (Caddy's internal CA); it implies --reader lws (the raw reader
 * has no TLS). The server's /metrics are still read from its own listener.
 *
 * The default reader (raw_ws.h) walks frame headers and skips payloads:
 * about a read() per frame, so that the server, not the probe, is what runs
 * out of CPU. --reader lws uses libwebsockets' client instead (on a libuv
 * loop; lws's own poll() loop costs O(connections) per wake-up), which
 * parses every payload byte and costs ~3× the raw reader per frame;
 * --deflate implies it (only lws inflates).
 *
 * The server must accept that many sessions from one address, and that fast:
 *   swarmcast --agents 2000 --max-clients 4096 --max-per-address 4096 \
 *             --connect-rate 100000 --connect-burst 100000
 * and both processes need `ulimit -n` above N (the probe raises its own soft
 * limit to the hard one). */
#include <errno.h>
#include <getopt.h>
#include <libwebsockets.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <uv.h>

#include "raw_ws.h"

#define MAX_COUNTS 16
#define MAX_THREADS 64
/* Connections started per service turn while opening: a burst of
 * thousands of SYNs would overflow the server's listen backlog. */
#define CONNECT_BATCH 50
#define MAX_PORTS 16
#define MAX_OTHER_PIDS 16
#define MAX_ROOMS 1024
#define ROOM_CODE_MAX 16
/* The loop is woken at least this often, so that a quiet spell never blocks
 * a round's clock. */
#define WAKE_MS 50

typedef struct conn {
    raw_ws_t raw; /* --reader raw */
    struct lws *wsi; /* --reader lws */
    bool open, failed;
    uint64_t frames, bytes; /* binary messages completed, bytes received */
    uint64_t frames_mark, bytes_mark;
    bool open_at_mark; /* open when the window opened (--rooms' rows) */
} conn_t;

static struct {
    const char *host, *protocol;
    int port, pid;
    int metrics_port; /* the server's --metrics-listen port (default: port + 1000, as the server's) */
    size_t counts[MAX_COUNTS];
    size_t n_counts;
    double seconds, warmup, tick_hz;
    bool deflate, threads, lws_reader;
    int ports[MAX_PORTS];
    size_t n_ports;
    int other_pids[MAX_OTHER_PIDS];
    size_t n_other_pids;
    const char *tls_ca; /* --tls-ca: wss:// through a TLS front, verified against this root */
    const char *path;   /* --path: the WebSocket's path (/ws) */
    char (*rooms)[ROOM_CODE_MAX + 1]; /* --rooms: codes, viewers round-robin over them */
    size_t n_rooms;
    double min_rate; /* --min-rate: a room's row counts its viewers below this */
} opt = {"127.0.0.1", "swarmcast.v2", 0, 0, 0, {100, 500, 1000, 2000, 4000}, 5, 10, 2, 60, false, false, false, {0}, 0, {0}, 0, NULL,
         "/ws", NULL, 0, 28};

static uv_loop_t loop;
static conn_t *conns;
static size_t n_open, n_failed;


static int epoll_fd = -1; /* --reader raw */

/* The path viewer i opens: --path, with ?room=CODE under --rooms. */
static const char *path_of(size_t i)
{
    static char path[512];
    const char *code = opt.n_rooms ? opt.rooms[i % opt.n_rooms] : "";
    if (!code[0]) return opt.path;
    snprintf(path, sizeof path, "%s%sroom=%s", opt.path, strchr(opt.path, '?') ? "&" : "?", code);
    return path;
}

static void raw_ended(conn_t *c)
{
    if (c->open) n_open--;
    else if (!c->failed) c->failed = true, n_failed++;
    c->open = false;
    raw_ws_close(&c->raw);
}

/* One wake-up of the raw readers: every ready connection read dry. */
static void raw_service(void)
{
    static uint8_t buf[1 << 18];
    struct epoll_event ev[512];
    int k = epoll_wait(epoll_fd, ev, 512, WAKE_MS);
    for (int j = 0; j < k; j++) {
        conn_t *c = &conns[ev[j].data.u32];
        if (c->raw.state == RAW_WS_CLOSED) continue;
        if (c->raw.state == RAW_WS_CONNECTING) {
            struct epoll_event in = {.events = EPOLLIN, .data.u32 = ev[j].data.u32};
            if (raw_ws_on_writable(&c->raw, opt.host, path_of(ev[j].data.u32), opt.protocol) ||
                epoll_ctl(epoll_fd, EPOLL_CTL_MOD, c->raw.fd, &in))
                raw_ended(c);
            continue;
        }
        int rc = raw_ws_on_readable(&c->raw, buf, sizeof buf);
        if (!c->open && c->raw.state == RAW_WS_OPEN) c->open = true, n_open++;
        c->frames = c->raw.frames;
        c->bytes = c->raw.bytes;
        if (rc) raw_ended(c);
    }
}

/* One turn of the loop: what lws_service was with lws's own poll loop. */
static void service(void)
{
    if (opt.lws_reader)
        uv_run(&loop, UV_RUN_ONCE);
    else
        raw_service();
}

static void on_wake_timer(uv_timer_t *t) { (void)t; }


static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    conn_t *c = user;
    (void)in;
    switch (reason) {
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        c->open = true;
        n_open++;
        break;
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        if (c && !c->failed) {
            c->failed = true;
            n_failed++;
        }
        if (c) c->wsi = NULL;
        break;
    case LWS_CALLBACK_CLIENT_RECEIVE:
        c->bytes += len;
        if (lws_frame_is_binary(wsi) && lws_is_final_fragment(wsi) && !lws_remaining_packet_payload(wsi)) c->frames++;
        break;
    case LWS_CALLBACK_CLIENT_CLOSED:
        if (c->open) n_open--;
        c->open = false;
        c->wsi = NULL;
        break;
    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

/* ---- the server, seen from outside --------------------------------------- */

typedef struct cpu {
    double total; /* seconds of CPU */
} cpu_t;

/* utime + stime of /proc/PID[/task/TID]/stat, in seconds; comm filled if given. */
static double stat_cpu(const char *path, char *comm, size_t comm_len)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char buf[1024];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *open = strchr(buf, '('), *close = strrchr(buf, ')');
    if (!open || !close) return -1;
    if (comm) snprintf(comm, comm_len, "%.*s", (int)(close - open - 1), open + 1);
    unsigned long utime = 0, stime = 0;
    /* After ") ": state is field 3; utime and stime are fields 14 and 15. */
    if (sscanf(close + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2) return -1;
    return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

/* CPU seconds of --other-pids, summed. */
static double others_cpu(void)
{
    double sum = 0;
    for (size_t k = 0; k < opt.n_other_pids; k++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/stat", opt.other_pids[k]);
        double c = stat_cpu(path, NULL, 0);
        if (c > 0) sum += c;
    }
    return sum;
}

typedef struct thread_cpu {
    int tid;
    char comm[32];
    double seconds;
} thread_cpu_t;

static size_t threads_cpu(thread_cpu_t *out, size_t cap)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", opt.pid);
    DIR *d = opendir(path);
    if (!d) return 0;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < cap;) {
        if (e->d_name[0] == '.') continue;
        char p[300];
        snprintf(p, sizeof p, "/proc/%d/task/%s/stat", opt.pid, e->d_name);
        out[n].tid = atoi(e->d_name);
        if ((out[n].seconds = stat_cpu(p, out[n].comm, sizeof out[n].comm)) >= 0) n++;
    }
    closedir(d);
    return n;
}

/* One figure of the server's /metrics (NAN if absent). */
static int metrics_get(double *ticks, double *overruns)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)opt.metrics_port)};
    inet_pton(AF_INET, opt.host, &a.sin_addr);
    struct timeval tv = {3, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (connect(fd, (struct sockaddr *)&a, sizeof a)) {
        close(fd);
        return -1;
    }
    const char *req = "GET /metrics HTTP/1.0\r\nHost: probe\r\n\r\n";
    if (write(fd, req, strlen(req)) < 0) {
        close(fd);
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    char *body = malloc(cap);
    for (ssize_t r; body && (r = read(fd, body + len, cap - len - 1)) > 0;) {
        len += (size_t)r;
        if (len + 1 == cap) {
            char *grown = realloc(body, cap *= 2);
            if (!grown) break;
            body = grown;
        }
    }
    close(fd);
    if (!body) return -1;
    body[len] = 0;
    const char *t = strstr(body, "\nswarmcast_ticks_total "), *o = strstr(body, "\nswarmcast_tick_overruns_total ");
    int rc = t && o ? 0 : -1;
    if (t) *ticks = atof(t + strlen("\nswarmcast_ticks_total "));
    if (o) *overruns = atof(o + strlen("\nswarmcast_tick_overruns_total "));
    free(body);
    return rc;
}

/* Bytes the kernel received on this probe's connections to the server (ss's
 * bytes_received, summed): what crossed the wire, compressed or not. */
static double wire_bytes(void)
{
    char cmd[160];
    double sum = 0;
    for (size_t k = 0; k < opt.n_ports; k++) {
        snprintf(cmd, sizeof cmd, "ss -tinH state established '( dport = :%d )' 2>/dev/null", opt.ports[k]);
        FILE *p = popen(cmd, "r");
        if (!p) return -1;
        char line[4096];
        while (fgets(line, sizeof line, p)) {
            const char *b = strstr(line, "bytes_received:");
            if (b) sum += atof(b + strlen("bytes_received:"));
        }
        pclose(p);
    }
    return sum;
}

/* ---- one round ----------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void service_for(double seconds)
{
    double end = now_s() + seconds;
    while (now_s() < end) service();
}

static void connect_one(struct lws_context *ctx, size_t i)
{
    if (!opt.lws_reader) {
        conns[i] = (conn_t){0};
        struct epoll_event e = {.events = EPOLLOUT | EPOLLIN, .data.u32 = (uint32_t)i};
        if (raw_ws_connect(&conns[i].raw, opt.host, opt.ports[i % opt.n_ports], opt.protocol) ||
            epoll_ctl(epoll_fd, EPOLL_CTL_ADD, conns[i].raw.fd, &e))
            raw_ended(&conns[i]);
        return;
    }
    struct lws_client_connect_info ci;
    memset(&ci, 0, sizeof ci);
    ci.context = ctx;
    ci.address = opt.host;
    ci.port = opt.ports[i % opt.n_ports];
    ci.path = path_of(i);
    ci.host = opt.host;
    ci.origin = NULL;
    ci.protocol = opt.protocol;
    if (opt.tls_ca) ci.ssl_connection = LCCSCF_USE_SSL;
    ci.userdata = &conns[i];
    conns[i] = (conn_t){0};
    conns[i].wsi = lws_client_connect_via_info(&ci);
    if (!conns[i].wsi && !conns[i].failed) {
        conns[i].failed = true;
        n_failed++;
    }
}

/* --rooms: a row per room, then the same as one JSON line. */
static void rooms_rows(size_t n, double dt)
{
    double *rate = calloc(n, sizeof *rate);
    char *json = malloc(opt.n_rooms * 160 + 256);
    if (!rate || !json) {
        free(rate);
        free(json);
        return;
    }
    size_t len = (size_t)sprintf(json, "#rooms {\"seconds\":%.3f,\"min_rate\":%g,\"rooms\":[", dt, opt.min_rate);
    double all_min = -1;
    size_t all_below = 0, all_viewers = 0;
    printf("| room | viewers | open at start | open at end | slowest viewer snap/s | median snap/s | below %g/s |\n",
           opt.min_rate);
    printf("|---|---|---|---|---|---|---|\n");
    for (size_t r = 0; r < opt.n_rooms && r < n; r++) {
        size_t viewers = 0, counted = 0, open_end = 0, below = 0;
        for (size_t i = r; i < n; i += opt.n_rooms) {
            viewers++;
            if (conns[i].open) open_end++;
            if (!conns[i].open_at_mark) continue;
            rate[counted] = (double)(conns[i].frames - conns[i].frames_mark) / dt;
            if (rate[counted] < opt.min_rate) below++;
            counted++;
        }
        /* A viewer that never opened is below any rate. */
        below += viewers - counted;
        qsort(rate, counted, sizeof *rate, cmp_double);
        double slowest = counted < viewers ? 0.0 : rate[0], median = counted ? rate[counted / 2] : 0.0;
        printf("| %s | %zu | %zu | %zu | %.1f | %.1f | %zu |\n", opt.rooms[r][0] ? opt.rooms[r] : "(default)", viewers,
               counted, open_end, slowest, median, below);
        len += (size_t)sprintf(json + len,
                               "%s{\"code\":\"%s\",\"viewers\":%zu,\"open_at_start\":%zu,\"open_at_end\":%zu,"
                               "\"slowest\":%.2f,\"median\":%.2f,\"below\":%zu}",
                               r ? "," : "", opt.rooms[r], viewers, counted, open_end, slowest, median, below);
        if (all_min < 0 || slowest < all_min) all_min = slowest;
        all_below += below;
        all_viewers += viewers;
    }
    printf("| all | %zu | | | %.1f | | %zu |\n", all_viewers, all_min < 0 ? 0.0 : all_min, all_below);
    sprintf(json + len, "],\"viewers\":%zu,\"slowest\":%.2f,\"below\":%zu}", all_viewers, all_min < 0 ? 0.0 : all_min,
            all_below);
    printf("%s\n", json);
    free(rate);
    free(json);
}

static void round_of(struct lws_context *ctx, size_t n)
{
    n_open = n_failed = 0;
    double began = now_s();
    for (size_t i = 0; i < n; i++) {
        connect_one(ctx, i);
        if (i % CONNECT_BATCH == CONNECT_BATCH - 1) service();
    }
    while (n_open + n_failed < n && now_s() - began < 30) service();
    double opened_s = now_s() - began;
    service_for(opt.warmup);

    double ticks0 = 0, over0 = 0, ticks1 = 0, over1 = 0;
    char self[32];
    snprintf(self, sizeof self, "/proc/%d/stat", opt.pid);
    int m0 = metrics_get(&ticks0, &over0);
    double cpu0 = stat_cpu(self, NULL, 0), mine0 = stat_cpu("/proc/self/stat", NULL, 0), others0 = others_cpu();
    thread_cpu_t th0[MAX_THREADS], th1[MAX_THREADS];
    size_t n_th0 = opt.threads ? threads_cpu(th0, MAX_THREADS) : 0;
    for (size_t i = 0; i < n; i++)
        conns[i].frames_mark = conns[i].frames, conns[i].bytes_mark = conns[i].bytes, conns[i].open_at_mark = conns[i].open;
    if (opt.n_rooms) fprintf(stderr, "fanout: measuring\n"), fflush(stderr);
    double wire0 = wire_bytes();
    double t0 = now_s();
    service_for(opt.seconds);
    double t1 = now_s(), dt = t1 - t0;
    if (opt.n_rooms) fprintf(stderr, "fanout: measured\n"), fflush(stderr);
    double wire1 = wire_bytes();
    double cpu1 = stat_cpu(self, NULL, 0), mine1 = stat_cpu("/proc/self/stat", NULL, 0), others1 = others_cpu();
    size_t n_th1 = opt.threads ? threads_cpu(th1, MAX_THREADS) : 0;
    int m1 = metrics_get(&ticks1, &over1);

    double *rate = calloc(n, sizeof *rate), *bps = calloc(n, sizeof *bps);
    size_t live = 0;
    double total_bytes = 0;
    for (size_t i = 0; i < n; i++) {
        if (!conns[i].open) continue;
        rate[live] = (double)(conns[i].frames - conns[i].frames_mark) / dt;
        bps[live] = (double)(conns[i].bytes - conns[i].bytes_mark) / dt;
        total_bytes += bps[live];
        live++;
    }
    qsort(rate, live, sizeof *rate, cmp_double);
    qsort(bps, live, sizeof *bps, cmp_double);
    double tick_rate = m0 == 0 && m1 == 0 ? (ticks1 - ticks0) / dt : -1;
    double overruns = m0 == 0 && m1 == 0 ? over1 - over0 : -1;
    bool held = tick_rate >= 0.98 * opt.tick_hz && overruns == 0;
    printf("| %5zu | %5zu | %6.1f | %6.1f | %8.1f | %8.1f | %8.1f | %5.0f%% | %5.0f%% | %5.1f | %4.0f | %-4s | %5.1f |\n", n,
           live, live ? rate[live / 2] : 0.0, live ? rate[live / 10] : 0.0, live ? bps[live / 2] / 1e3 : 0.0,
           total_bytes / 1e6, wire0 >= 0 && wire1 >= 0 ? (wire1 - wire0) / dt / 1e6 : -1.0, (cpu1 - cpu0) / dt * 100, (mine1 - mine0) / dt * 100, tick_rate, overruns,
           held ? "yes" : "no", opened_s);
    if (opt.n_other_pids) printf("|       | other processes' CPU: %.0f%%\n", (others1 - others0) / dt * 100);
    if (opt.threads) {
        printf("|       | server threads:");
        for (size_t i = 0; i < n_th1; i++)
            for (size_t k = 0; k < n_th0; k++)
                if (th0[k].tid == th1[i].tid && th1[i].seconds - th0[k].seconds > 0.01 * dt)
                    printf(" %s/%d %.0f%%", th1[i].comm, th1[i].tid, (th1[i].seconds - th0[k].seconds) / dt * 100);
        printf("\n");
    }
    if (opt.n_rooms) rooms_rows(n, dt);
    fflush(stdout);
    free(rate);
    free(bps);

    /* Close everything and wait for the server to let go. */
    for (size_t i = 0; i < n; i++) {
        if (!opt.lws_reader && conns[i].raw.state != RAW_WS_CLOSED) raw_ended(&conns[i]);
        if (opt.lws_reader && conns[i].wsi && conns[i].open)
            lws_set_timeout(conns[i].wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
    }
    double closing = now_s();
    while (n_open && now_s() - closing < 15) service();
    service_for(1.0);
}

static void usage(void)
{
    fprintf(stderr, "usage: swarmcast-fanout --port P --pid SERVER_PID [--host H] [--counts 100,500,...] "
                    "[--seconds S] [--warmup S] [--protocol NAME] [--deflate] [--tick-hz HZ] [--threads] "
                    "[--ports P1,P2,...] [--other-pids PID,...] [--reader raw|lws] [--metrics-port M] [--tls-ca ROOT.crt] "
                    "[--path /ws] [--rooms CODE1,CODE2,...] [--min-rate 28]\n");
}

int main(int argc, char **argv)
{
    static const struct option options[] = {
        {"host", required_argument, NULL, 'h'},    {"port", required_argument, NULL, 'p'},
        {"pid", required_argument, NULL, 'P'},     {"counts", required_argument, NULL, 'c'},
        {"seconds", required_argument, NULL, 's'}, {"warmup", required_argument, NULL, 'w'},
        {"protocol", required_argument, NULL, 'r'}, {"deflate", no_argument, NULL, 'd'},
        {"tick-hz", required_argument, NULL, 't'}, {"threads", no_argument, NULL, 'T'},
        {"ports", required_argument, NULL, 'q'},   {"other-pids", required_argument, NULL, 'o'},
        {"reader", required_argument, NULL, 'R'}, {"metrics-port", required_argument, NULL, 'M'},
        {"tls-ca", required_argument, NULL, 'C'}, {"path", required_argument, NULL, 'W'},
        {"rooms", required_argument, NULL, 'X'}, {"min-rate", required_argument, NULL, 'm'},
        {NULL, 0, NULL, 0},
    };
    for (int o; (o = getopt_long(argc, argv, "", options, NULL)) != -1;) {
        switch (o) {
        case 'h': opt.host = optarg; break;
        case 'p': opt.port = atoi(optarg); break;
        case 'P': opt.pid = atoi(optarg); break;
        case 'c': {
            opt.n_counts = 0;
            for (char *p = optarg; *p && opt.n_counts < MAX_COUNTS;) {
                opt.counts[opt.n_counts++] = strtoul(p, &p, 10);
                if (*p == ',') p++;
            }
            break;
        }
        case 's': opt.seconds = atof(optarg); break;
        case 'w': opt.warmup = atof(optarg); break;
        case 'r': opt.protocol = optarg; break;
        case 'd': opt.deflate = true; break;
        case 't': opt.tick_hz = atof(optarg); break;
        case 'T': opt.threads = true; break;
        case 'M': opt.metrics_port = atoi(optarg); break;
        case 'R': opt.lws_reader = strcmp(optarg, "lws") == 0; break;
        case 'C': opt.tls_ca = optarg; break;
        case 'W': opt.path = optarg; break;
        case 'm': opt.min_rate = atof(optarg); break;
        case 'X': {
            free(opt.rooms);
            opt.rooms = calloc(MAX_ROOMS, sizeof *opt.rooms);
            opt.n_rooms = 0;
            if (!opt.rooms) return 1;
            /* Codes only: the alphabet of room codes and its lower case, nothing a path would have to escape. */
            for (const char *p = optarg;; p++) {
                size_t len = strcspn(p, ",");
                if (opt.n_rooms == MAX_ROOMS || len > ROOM_CODE_MAX || strspn(p, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-") < len) {
                    fprintf(stderr, "swarmcast-fanout: --rooms takes at most %d codes of at most %d letters, digits or dashes\n",
                            MAX_ROOMS, ROOM_CODE_MAX);
                    return 2;
                }
                memcpy(opt.rooms[opt.n_rooms++], p, len);
                p += len;
                if (!*p) break;
            }
            break;
        }
        case 'q':
            opt.n_ports = 0;
            for (char *p = optarg; *p && opt.n_ports < MAX_PORTS;) {
                opt.ports[opt.n_ports++] = (int)strtol(p, &p, 10);
                if (*p == ',') p++;
            }
            break;
        case 'o':
            opt.n_other_pids = 0;
            for (char *p = optarg; *p && opt.n_other_pids < MAX_OTHER_PIDS;) {
                opt.other_pids[opt.n_other_pids++] = (int)strtol(p, &p, 10);
                if (*p == ',') p++;
            }
            break;
        default: usage(); return 2;
        }
    }
    if (!opt.port || !opt.pid || !opt.n_counts) {
        usage();
        return 2;
    }
    if (!opt.n_ports) opt.ports[opt.n_ports++] = opt.port;
    if (!opt.metrics_port) opt.metrics_port = opt.port + 1000;
    /* Only libwebsockets' client can inflate, or speak TLS. */
    if (opt.deflate || opt.tls_ca) opt.lws_reader = true;
    if (!opt.lws_reader && (epoll_fd = epoll_create1(EPOLL_CLOEXEC)) < 0) {
        perror("swarmcast-fanout: epoll_create1");
        return 1;
    }
    size_t max_n = 0;
    for (size_t i = 0; i < opt.n_counts; i++)
        if (opt.counts[i] > max_n) max_n = opt.counts[i];
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < max_n + 64)
        fprintf(stderr, "swarmcast-fanout: warning: ulimit -n is %lu, below %zu connections\n",
                (unsigned long)rl.rlim_cur, max_n);
    conns = calloc(max_n, sizeof *conns);
    if (!conns) return 1;

    lws_set_log_level(LLL_ERR, NULL);
    static struct lws_protocols protocols[] = {
        {"swarmcast-probe", callback, 0, 1 << 16, 0, NULL, 0},
        {NULL, NULL, 0, 0, 0, NULL, 0},
    };
    static const struct lws_extension extensions[] = {
        {"permessage-deflate", lws_extension_callback_pm_deflate, "permessage-deflate; client_max_window_bits"},
        {NULL, NULL, NULL},
    };
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = protocols;
    if (opt.deflate) info.extensions = extensions;
    info.fd_limit_per_thread = (unsigned)(max_n + 256);
    uv_loop_init(&loop);
    void *loops[] = {&loop};
    info.options = LWS_SERVER_OPTION_LIBUV;
    if (opt.tls_ca) {
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
        info.client_ssl_ca_filepath = opt.tls_ca;
    }
    info.foreign_loops = loops;
    uv_timer_t wake;
    uv_timer_init(&loop, &wake);
    uv_timer_start(&wake, on_wake_timer, WAKE_MS, WAKE_MS);
    struct lws_context *ctx = lws_create_context(&info);
    if (!ctx) {
        fprintf(stderr, "swarmcast-fanout: cannot create the libwebsockets context\n");
        return 1;
    }
    char spread[64] = "";
    if (opt.n_rooms) snprintf(spread, sizeof spread, ", round-robin over %zu rooms", opt.n_rooms);
    printf("# swarmcast-fanout: %s://%s:%d%s (%s%s)%s, server pid %d, %.0f s per round after %.0f s warm-up, %s reader\n",
           opt.tls_ca ? "wss" : "ws", opt.host, opt.ports[0], opt.path, opt.protocol, opt.deflate ? ", permessage-deflate" : "",
           spread, opt.pid, opt.seconds,
           opt.warmup, opt.lws_reader ? "libwebsockets" : "raw");
    printf("| viewers | open | median snap/s | p10 snap/s | median kB/s per viewer | MB/s all | wire MB/s all | server CPU "
           "| probe CPU | tick Hz | overruns | tick held | connect s |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < opt.n_counts; i++) round_of(ctx, opt.counts[i]);
    lws_context_destroy(ctx);
    free(conns);
    return 0;
}
