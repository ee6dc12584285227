#include "app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/net.h"
#include "protocol/cmd_decode.h"
#include "protocol/messages.h"
#include "protocol/snapshot.h"
#include "sim/commands.h"

/* A client may have this many commands waiting for the next tick; more are
 * refused (rate_limited), which bounds the queue whatever clients send. */
#define PENDING_PER_CLIENT 32
/* After a stall the loop runs at most this many ticks back to back, then
 * drops the backlog (counted as overruns) instead of spiralling. */
#define MAX_CATCH_UP 4

typedef struct queued {
    sim_cmd_t cmd;
    long slot;   /* sender's slot, or -1 for the server's own commands */
    bool silent; /* no reply: the server queued it (a client left) */
} queued_t;

struct app {
    uv_loop_t *loop;
    config_t cfg;
    world_t world;
    net_t *net;
    cmd_limits_t limits;

    uv_timer_t timer;
    uint64_t period_ns, next_due_ns, started_ns;
    double snapshot_credit; /* accumulates snapshot_hz per tick; a snapshot per tick_hz */
    uint64_t overruns, last_overrun_log_ns;

    queued_t *queue; /* ring */
    size_t q_head, q_len, q_cap;
    uint32_t *slot_client; /* client id in each slot, 0 when free */
    uint16_t *pending;     /* per slot: commands waiting */

    uint8_t *snap_buf; /* net_headroom() bytes, then the frame */
    size_t snap_cap;
    bool stopping;
};

static void reply_error(app_t *a, uint32_t client, const char *code, const char *message, int64_t id, const char *cmd)
{
    char *text = msg_error(code, message, id, cmd);
    if (text) net_send(a->net, client, text);
    free(text);
}

static bool push(app_t *a, const sim_cmd_t *cmd, long slot, bool silent)
{
    if (a->q_len == a->q_cap) return false;
    a->queue[(a->q_head + a->q_len) % a->q_cap] = (queued_t){*cmd, slot, silent};
    a->q_len++;
    if (slot >= 0) a->pending[slot]++;
    return true;
}

static char *on_open(void *user, uint32_t client_id, size_t slot)
{
    app_t *a = user;
    a->slot_client[slot] = client_id;
    a->pending[slot] = 0;
    hello_info_t info = {client_id, a->cfg.tick_hz, a->cfg.snapshot_hz};
    return msg_hello(&info, &a->world);
}

static void on_close(void *user, uint32_t client_id, size_t slot)
{
    app_t *a = user;
    a->slot_client[slot] = 0;
    a->pending[slot] = 0;
    /* The departed client's target goes at the next tick like any change.
     * The queue keeps one place per client for this, so it always fits. */
    sim_cmd_t leave = {.kind = CMD_CLEAR_TARGET, .client_id = client_id, .request_id = -1};
    push(a, &leave, -1, true);
}

static void on_message(void *user, uint32_t client_id, size_t slot, const char *data, size_t len, bool binary)
{
    app_t *a = user;
    if (binary) {
        reply_error(a, client_id, "binary_not_accepted", "commands are JSON text messages; binary frames are not accepted",
                    -1, NULL);
        return;
    }
    sim_cmd_t cmd;
    cmd_error_t err;
    if (cmd_decode(data, len, &a->limits, client_id, &cmd, &err)) {
        reply_error(a, client_id, err.code, err.message, err.request_id, err.cmd);
        return;
    }
    if (a->pending[slot] >= PENDING_PER_CLIENT || !push(a, &cmd, (long)slot, false)) {
        char message[96];
        snprintf(message, sizeof message, "more than %d commands are waiting for the next tick", PENDING_PER_CLIENT);
        reply_error(a, client_id, "rate_limited", message, cmd.request_id, cmd_name(cmd.kind));
    }
}

static char *on_health(void *user)
{
    app_t *a = user;
    char *body = malloc(256);
    if (!body) return NULL;
    snprintf(body, 256,
             "{\"status\":\"ok\",\"tick\":%llu,\"agents\":%zu,\"clients\":%zu,\"paused\":%s,"
             "\"tick_overruns\":%llu,\"uptime_s\":%.1f}",
             (unsigned long long)a->world.tick, a->world.n, net_client_count(a->net),
             a->world.paused ? "true" : "false", (unsigned long long)a->overruns,
             (double)(uv_hrtime() - a->started_ns) / 1e9);
    return body;
}

/* Applies every queued command, in arrival order, and answers each sender. */
static void apply_commands(app_t *a)
{
    while (a->q_len) {
        queued_t q = a->queue[a->q_head];
        a->q_head = (a->q_head + 1) % a->q_cap;
        a->q_len--;
        bool connected = q.slot >= 0 && a->slot_client[q.slot] == q.cmd.client_id;
        if (connected) a->pending[q.slot]--;

        uint64_t tick = a->world.tick;
        sim_result_t res;
        sim_apply(&a->world, &q.cmd, &res);
        if (q.silent) continue;
        if (res.status == SIM_OK && q.cmd.kind == CMD_SET_PARAM) {
            char *text = msg_param((size_t)q.cmd.param, res.value, q.cmd.client_id, tick);
            if (text) net_broadcast(a->net, text);
            free(text);
        }
        if (!connected) continue;
        char *text = res.status == SIM_OK
                         ? msg_ack(&q.cmd, &res, tick)
                         : msg_error(msg_error_code(res.status), res.message, q.cmd.request_id, cmd_name(q.cmd.kind));
        if (text) net_send(a->net, q.cmd.client_id, text);
        free(text);
    }
}

static void publish_snapshot(app_t *a)
{
    snap_view_t view;
    snap_view_of_world(&a->world, &view);
    size_t need = net_headroom() + snap_size(&view);
    if (need > a->snap_cap) {
        /* Grows with the population only; clients hold no reference to the
         * old frame (libwebsockets copies what it could not send at once). */
        uint8_t *grown = realloc(a->snap_buf, need);
        if (!grown) {
            fprintf(stderr, "swarmcast: out of memory for a %zu-byte snapshot\n", need);
            return;
        }
        a->snap_buf = grown;
        a->snap_cap = need;
    }
    uint8_t *frame = a->snap_buf + net_headroom();
    size_t len = snap_encode(&view, frame, a->snap_cap - net_headroom());
    if (len) net_publish_snapshot(a->net, frame, len);
}

static void on_tick(uv_timer_t *t);

static void arm(app_t *a, uint64_t now)
{
    uint64_t wait_ns = a->next_due_ns > now ? a->next_due_ns - now : 0;
    uv_timer_start(&a->timer, on_tick, (wait_ns + 999999) / 1000000, 0);
}

/* Fixed-step clock: every due tick runs (commands, then one step while not
 * paused), up to MAX_CATCH_UP at once; a snapshot goes out when its period
 * has come, encoded once whatever the number of viewers. */
static void on_tick(uv_timer_t *t)
{
    app_t *a = t->data;
    uint64_t now = uv_hrtime();
    bool snapshot_due = false;
    int ran = 0;
    while (now >= a->next_due_ns && ran < MAX_CATCH_UP) {
        apply_commands(a);
        if (!a->world.paused) world_step(&a->world);
        a->next_due_ns += a->period_ns;
        a->snapshot_credit += a->cfg.snapshot_hz;
        if (a->snapshot_credit >= a->cfg.tick_hz) {
            a->snapshot_credit -= a->cfg.tick_hz;
            snapshot_due = true;
        }
        ran++;
        now = uv_hrtime();
    }
    if (now >= a->next_due_ns) {
        uint64_t behind = now - a->next_due_ns;
        uint64_t skipped = behind / a->period_ns + 1;
        a->overruns += skipped;
        a->next_due_ns = now + a->period_ns;
        if (now - a->last_overrun_log_ns > 1000000000ull) {
            fprintf(stderr, "swarmcast: tick overrun: %.1f ms behind, skipped %llu tick(s), %llu in all\n",
                    (double)behind / 1e6, (unsigned long long)skipped, (unsigned long long)a->overruns);
            a->last_overrun_log_ns = now;
        }
    }
    if (snapshot_due) publish_snapshot(a);
    arm(a, uv_hrtime());
}

app_t *app_create(uv_loop_t *loop, const config_t *cfg)
{
    app_t *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->loop = loop;
    a->cfg = *cfg;
    world_config_t wc = {
        .width = cfg->world_width,
        .height = cfg->world_height,
        .dt = (float)(1.0 / cfg->tick_hz),
        .seed = cfg->seed,
        .agents = cfg->agents,
        .max_agents = cfg->max_agents,
        .max_targets = cfg->max_clients,
    };
    if (world_init(&a->world, &wc)) {
        fprintf(stderr, "swarmcast: cannot create a world of %zu agents\n", cfg->agents);
        free(a);
        return NULL;
    }
    char msg[160];
    for (size_t i = 0; i < cfg->n_sets; i++)
        world_set_param(&a->world, (size_t)cfg->sets[i].param, cfg->sets[i].value, msg, sizeof msg);
    /* --set may change max_speed, which the initial speeds were drawn from. */
    if (cfg->n_sets) world_reset(&a->world, cfg->seed, cfg->agents);
    a->limits = (cmd_limits_t){cfg->world_width, cfg->world_height, cfg->max_agents};

    a->q_cap = cfg->max_clients * (PENDING_PER_CLIENT + 1);
    a->queue = calloc(a->q_cap, sizeof *a->queue);
    a->slot_client = calloc(cfg->max_clients, sizeof *a->slot_client);
    a->pending = calloc(cfg->max_clients, sizeof *a->pending);
    if (!a->queue || !a->slot_client || !a->pending) goto fail;

    net_config_t nc = {cfg->bind, cfg->port, cfg->web_root, cfg->max_clients, PROTOCOL_MAX_MESSAGE_BYTES};
    net_callbacks_t cb = {a, on_open, on_message, on_close, on_health};
    if (!(a->net = net_create(loop, &nc, &cb))) {
        fprintf(stderr, "swarmcast: cannot listen on %s:%d with web root %s\n", cfg->bind, cfg->port, cfg->web_root);
        goto fail;
    }

    a->period_ns = (uint64_t)(1e9 / cfg->tick_hz);
    a->started_ns = uv_hrtime();
    a->next_due_ns = a->started_ns + a->period_ns;
    uv_timer_init(loop, &a->timer);
    a->timer.data = a;
    arm(a, a->started_ns);
    return a;
fail:
    world_free(&a->world);
    free(a->queue);
    free(a->slot_client);
    free(a->pending);
    free(a);
    return NULL;
}

int app_port(const app_t *a) { return net_port(a->net); }

void app_shutdown(app_t *a)
{
    if (a->stopping) return;
    a->stopping = true;
    uv_timer_stop(&a->timer);
    uv_close((uv_handle_t *)&a->timer, NULL);
    net_shutdown(a->net, NULL, NULL);
}

void app_destroy(app_t *a)
{
    if (!a) return;
    net_destroy(a->net);
    world_free(&a->world);
    free(a->queue);
    free(a->slot_client);
    free(a->pending);
    free(a->snap_buf);
    free(a);
}
