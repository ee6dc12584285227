/* swarmcast-nats-check SWARMCAST_BIN: the simulation's NATS bridge end to
 * end, as a relay sees it. Starts nats-server on a free loopback port and
 * the simulation with --nats (port 0), then plays a relay (tag 7):
 *   - leases the whole-world detail view and gets {"ok":true,...,"hello"};
 *   - counts P.frame, P.view.d.0.0.0.1.1 and P.news messages, and checks
 *     that, once the lease took effect (the first view message), each
 *     frame's view message (same seq) arrived before the frame;
 *   - sends a viewer's set_target as a TEXT envelope on P.cmd and gets the
 *     ack back as a REPLY envelope on P.reply.7;
 *   - a second lease under the same tag with another name is refused
 *     (tag_taken);
 *   - the simulation's /metrics shows the link up, one relay, one remote
 *     client and one leased view;
 *   - leases that then report no viewer (its CLOSE "lost") get an answer
 *     asking to announce the viewers again; announcing none, the next
 *     lease closes the simulation's ghost of it (the relay still live);
 *   - once the relay stops renewing its lease, the simulation drops it
 *     (after 5 s): no relay, no remote client, no leased view.
 * Exit 0 when all of that held within the time limits, 77 (skipped) when
 * nats-server is not installed, else 1 with the reason on stderr.
 * Every wait is for a count or a state, with a generous limit. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bridge/bridge_msg.h"
#include "bridge/lease_json.h"
#include "bridge/nats_link.h"
#include "bridge/subjects.h"
#include "loopback_port.h"

#define TAG 7u
#define CLIENT_ID ((TAG << 22) | 1u)
#define LIMIT_MS 30000 /* phase 1 (the stream, the command, the lease); the machine may be busy */
#define FRAMES_WANTED 60

typedef struct check {
    uv_loop_t *loop;
    nats_link_t *nats;
    uv_timer_t timer;
    uint64_t started;
    bool leased, acked, refused_other;
    int lease_replies;
    uint64_t frames, views, news, ordered_frames, frames_after_view;
    uint32_t last_view_seq;
    bool have_view_seq;
    bool cmd_sent, done, failed;
    int metrics_port; /* the simulation's operations listener (--metrics-listen) */
    bool census;    /* phase 2: leases report no viewer, the simulation still holds one */
    uint64_t census_since;
    bool announce_asked;
    uint32_t reported; /* the viewers the leases report */
    bool expiring; /* phase 3: the lease is no longer renewed */
    uint64_t expiring_since;
    char why[256];
} check_t;

/* out_fd: where the child's stdout goes (-1: /dev/null unless NATS_CHECK_VERBOSE). */
static pid_t spawn(char *const argv[], int out_fd)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (out_fd >= 0) {
            dup2(out_fd, STDOUT_FILENO);
        } else if (!getenv("NATS_CHECK_VERBOSE")) {
            FILE *f = freopen("/dev/null", "w", stdout);
            (void)f;
        }
        execvp(argv[0], argv);
        _exit(127);
    }
    return pid;
}

/* The simulation's /metrics port, from its line "swarmcast metrics on
 * http://127.0.0.1:PORT/metrics ..." (after the one it listens on). */
static int read_metrics_port(int fd)
{
    static const char mark[] = "swarmcast metrics on http://127.0.0.1:";
    for (int lines = 0; lines < 8; lines++) {
        char line[512];
        size_t n = 0;
        while (n < sizeof line - 1 && read(fd, &line[n], 1) == 1 && line[n] != '\n') n++;
        line[n] = '\0';
        const char *at = strstr(line, mark);
        if (at) return atoi(at + strlen(mark));
        if (n == 0) break;
    }
    return -1;
}

/* GET /metrics (HTTP/1.0: the server closes after the answer); malloc'd text or NULL. */
static char *get_metrics(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        close(fd);
        return NULL;
    }
    const char *req = "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if (write(fd, req, strlen(req)) < 0) {
        close(fd);
        return NULL;
    }
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap);
    ssize_t got;
    while (buf && n < cap - 1 && (got = read(fd, buf + n, cap - 1 - n)) > 0) n += (size_t)got;
    close(fd);
    if (buf) buf[n] = '\0';
    return buf;
}

static void stop(pid_t pid)
{
    if (pid <= 0) return;
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
}

static void fail(check_t *c, const char *why)
{
    if (!c->failed) snprintf(c->why, sizeof c->why, "%s", why);
    c->failed = true;
}

static void on_frame(void *user, const char *subject, const char *reply, const uint8_t *data, size_t len)
{
    (void)subject;
    (void)reply;
    check_t *c = user;
    bridge_snapshot_t s;
    if (bridge_snapshot_decode(data, len, &s) < 0) return fail(c, "a P.frame message does not decode");
    c->frames++;
    /* Once the lease took effect, every frame comes after its view. */
    if (c->have_view_seq) c->frames_after_view++;
    if (c->have_view_seq && c->last_view_seq == s.seq) c->ordered_frames++;
}

static void on_view(void *user, const char *subject, const char *reply, const uint8_t *data, size_t len)
{
    (void)subject;
    (void)reply;
    check_t *c = user;
    bridge_view_t v;
    if (bridge_view_decode(data, len, &v) < 0) return fail(c, "a P.view message does not decode");
    if (!v.key.present || v.key.len < 18) return fail(c, "a view message has no key chunk");
    c->views++;
    c->last_view_seq = v.seq;
    c->have_view_seq = true;
}

static void on_news(void *user, const char *subject, const char *reply, const uint8_t *data, size_t len)
{
    (void)subject;
    (void)reply;
    check_t *c = user;
    bridge_news_t n;
    if (bridge_news_decode(data, len, &n) < 0 || !n.text.len || n.text.data[0] != '{')
        return fail(c, "a P.news message does not decode");
    c->news++;
}

/* P.reply.7: lease answers (plain JSON) and envelopes. */
static void on_reply(void *user, const char *subject, const char *reply, const uint8_t *data, size_t len)
{
    (void)subject;
    (void)reply;
    check_t *c = user;
    if (len && data[0] == '{') {
        lease_reply_t r;
        if (lease_reply_parse((const char *)data, len, &r) < 0) return fail(c, "a lease answer does not parse");
        if (r.ok) {
            if (r.tag != TAG || r.n_views != 1 || !r.hello || !strstr(r.hello, "\"type\":\"hello\""))
                fail(c, "the lease answer lacks the tag, the granted view or the hello");
            else if (strcmp(r.to, "nats-check") != 0)
                fail(c, "the lease answer is not addressed to the relay that asked");
            c->leased = true;
            if (r.announce) c->announce_asked = true;
        } else if (strcmp(r.error, "tag_taken") == 0) {
            if (strcmp(r.to, "another-relay") != 0) fail(c, "the refusal is not addressed to the relay that asked");
            c->refused_other = true;
        } else {
            fail(c, "a lease was refused for another reason than tag_taken");
        }
        free(r.hello);
        return;
    }
    bridge_envelope_t e;
    if (bridge_envelope_decode(data, len, &e) < 0) {
        fprintf(stderr, "nats-check: undecodable on P.reply.7: %zu bytes: %.*s\n", len, (int)(len < 200 ? len : 200), (const char *)data);
        return fail(c, "an envelope on P.reply.7 does not decode");
    }
    if (e.kind == BRIDGE_REPLY && e.client_id == CLIENT_ID && e.text.len < 4096) {
        char text[4096];
        memcpy(text, e.text.data, e.text.len);
        text[e.text.len] = '\0';
        if (strstr(text, "\"type\":\"ack\"") && strstr(text, "\"cmd\":\"set_target\"") && strstr(text, "\"id\":5"))
            c->acked = true;
        else if (strstr(text, "\"type\":\"error\""))
            fail(c, "set_target through the bridge was answered with an error");
    }
}

static void send_lease(check_t *c, const char *name)
{
    lease_request_t req = {.tag = TAG, .n_views = 1, .clients = c->reported};
    snprintf(req.relay, sizeof req.relay, "%s", name);
    req.views[0] = (lease_view_t){WIRE2_DETAIL, wire2_rect_world()};
    char *text = lease_request_format(&req), subject[SUBJECT_MAX], reply[SUBJECT_MAX];
    subject_lease(subject, sizeof subject, SUBJECT_DEFAULT_PREFIX, TAG);
    subject_reply(reply, sizeof reply, SUBJECT_DEFAULT_PREFIX, TAG);
    if (text) nats_link_publish(c->nats, subject, reply, text, strlen(text));
    free(text);
}

static void send_command(check_t *c)
{
    const char *json = "{\"type\":\"set_target\",\"x\":100,\"y\":100,\"id\":5}";
    bridge_envelope_t e = {.kind = BRIDGE_TEXT, .client_id = CLIENT_ID,
                           .text = {(const uint8_t *)json, strlen(json), true}};
    size_t len;
    uint8_t *msg = bridge_envelope_encode(&e, &len);
    char subject[SUBJECT_MAX], reply[SUBJECT_MAX];
    subject_cmd(subject, sizeof subject, SUBJECT_DEFAULT_PREFIX, TAG);
    subject_reply(reply, sizeof reply, SUBJECT_DEFAULT_PREFIX, TAG);
    if (msg) nats_link_publish(c->nats, subject, reply, msg, len);
    free(msg);
}

/* Every 250 ms: renew the lease once a second, send the command once leased,
 * and end when everything was seen (or the limit passed). */
static void on_tick(uv_timer_t *t)
{
    check_t *c = t->data;
    uint64_t ms = uv_now(c->loop) - c->started;
    static uint64_t last_lease;
    if (!c->expiring && nats_link_connected(c->nats) && (last_lease == 0 || ms - last_lease >= 1000)) {
        send_lease(c, "nats-check");
        last_lease = ms ? ms : 1;
    }
    if (c->leased && !c->cmd_sent) {
        send_command(c);
        send_lease(c, "another-relay");
        c->cmd_sent = true;
    }
    if (c->census) {
        /* Phase 2: the ghost goes once the relay was asked and announced nothing. */
        char *m = get_metrics(c->metrics_port);
        bool gone = m && strstr(m, "swarmcast_nats_relays 1\n") && strstr(m, "swarmcast_nats_remote_clients 0\n") &&
                    strstr(m, "swarmcast_nats_census_closed_total 1\n");
        free(m);
        if (gone && !c->announce_asked) fail(c, "a viewer was closed without the relay being asked to announce it");
        if (c->failed || (!gone && ms - c->census_since > 20000)) {
            if (!c->failed) fail(c, "a viewer the relay no longer reports was not closed");
            uv_stop(c->loop);
        } else if (gone) {
            c->census = false;
            c->expiring = true;
            c->expiring_since = ms;
        }
        return;
    }
    if (c->expiring) {
        /* Phase 3: wait for the simulation to drop the silent relay. */
        char *m = get_metrics(c->metrics_port);
        bool gone = m && strstr(m, "swarmcast_nats_relays 0\n") && strstr(m, "swarmcast_nats_remote_clients 0\n") &&
                    strstr(m, "swarmcast_nats_leased_views 0\n");
        free(m);
        if (gone && ms - c->expiring_since < 4000) fail(c, "the relay was dropped before its lease ran out");
        if (gone || c->failed || ms - c->expiring_since > 20000) {
            if (!gone) fail(c, "a relay that stopped renewing its lease was not dropped");
            uv_stop(c->loop);
        }
        return;
    }
    bool all = c->leased && c->acked && c->refused_other && c->frames >= FRAMES_WANTED && c->news > 0 &&
               c->frames_after_view > 0 && c->ordered_frames == c->frames_after_view;
    if (all || c->failed || ms > LIMIT_MS) {
        if (!all && !c->failed) fail(c, "not everything arrived within the limit");
        c->done = true;
        if (c->failed) {
            uv_stop(c->loop);
            return;
        }
        /* Phase 1 passed: the simulation's view of it, then stop renewing. */
        char *metrics = get_metrics(c->metrics_port);
        static const char *const want[] = {"swarmcast_nats_connected 1\n", "swarmcast_nats_relays 1\n",
                                           "swarmcast_nats_remote_clients 1\n", "swarmcast_nats_leased_views 1\n",
                                           "swarmcast_nats_published_messages_total "};
        for (size_t i = 0; !c->failed && i < sizeof want / sizeof want[0]; i++)
            if (!metrics || !strstr(metrics, want[i])) {
                fprintf(stderr, "nats-check: /metrics lacks '%s'\n", want[i]);
                fail(c, "/metrics does not show the bridge's state");
            }
        free(metrics);
        c->census = true;
        c->census_since = ms;
        c->reported = 0;
        if (c->failed) uv_stop(c->loop);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: swarmcast-nats-check SWARMCAST_BIN\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    if (system("command -v nats-server >/dev/null 2>&1") != 0) {
        fprintf(stderr, "nats-check: nats-server is not installed (scripts/deps.sh test): skipped\n");
        return 77;
    }
    int nport = loopback_free_port();
    char nport_s[16], url[64];
    snprintf(nport_s, sizeof nport_s, "%d", nport);
    snprintf(url, sizeof url, "nats://127.0.0.1:%d", nport);
    char *nats_argv[] = {"nats-server", "-a", "127.0.0.1", "-p", nport_s, NULL};
    /* The simulation first: it must wait for NATS by itself (either side may start first). */
    char *sim_argv[] = {argv[1], "--port", "0", "--agents", "300", "--nats", url, "--metrics-hz", "4", NULL};
    int out[2];
    if (pipe(out) < 0) return 1;
    pid_t sim = spawn(sim_argv, out[1]);
    close(out[1]);
    usleep(300000);
    pid_t nats = spawn(nats_argv, -1);
    for (int i = 0; i < 500 && !loopback_port_open(nport); i++) usleep(20000);

    uv_loop_t loop;
    uv_loop_init(&loop);
    check_t c = {.loop = &loop, .metrics_port = read_metrics_port(out[0]), .reported = 1};
    nats_link_config_t lc = {.urls = url, .name = "nats-check"};
    c.nats = nats_link_create(&loop, &lc, NULL, NULL);
    int rc = 1;
    if (c.nats) {
        char subject[SUBJECT_MAX];
        subject_frame(subject, sizeof subject, SUBJECT_DEFAULT_PREFIX);
        nats_link_subscribe(c.nats, subject, 10000, 64 << 20, on_frame, &c);
        subject_view(subject, sizeof subject, SUBJECT_DEFAULT_PREFIX, WIRE2_DETAIL, wire2_rect_world());
        nats_link_subscribe(c.nats, subject, 10000, 64 << 20, on_view, &c);
        subject_news(subject, sizeof subject, SUBJECT_DEFAULT_PREFIX);
        nats_link_subscribe(c.nats, subject, 10000, 64 << 20, on_news, &c);
        subject_reply(subject, sizeof subject, SUBJECT_DEFAULT_PREFIX, TAG);
        nats_link_subscribe(c.nats, subject, 10000, 64 << 20, on_reply, &c);
        uv_timer_init(&loop, &c.timer);
        c.timer.data = &c;
        c.started = uv_now(&loop);
        uv_timer_start(&c.timer, on_tick, 250, 250);
        uv_run(&loop, UV_RUN_DEFAULT);
        uv_close((uv_handle_t *)&c.timer, NULL);
        nats_link_destroy(c.nats);
        uv_run(&loop, UV_RUN_DEFAULT);
        rc = c.failed ? 1 : 0;
        fprintf(stderr,
                "nats-check: %s: leased %d, ack %d, tag_taken %d, %llu frames (%llu after the lease took effect, "
                "%llu of them with their view first), %llu views, %llu news%s%s\n",
                rc ? "FAILED" : "ok", c.leased, c.acked, c.refused_other, (unsigned long long)c.frames,
                (unsigned long long)c.frames_after_view, (unsigned long long)c.ordered_frames, (unsigned long long)c.views, (unsigned long long)c.news,
                rc ? ": " : "", rc ? c.why : "");
    }
    uv_loop_close(&loop);
    stop(sim);
    stop(nats);
    return rc;
}
