/* admission: who may hold a session, and what an address may do. Before
 * the upgrade is answered (net_on_filter: the connect rate, a well-formed
 * request, the Origin), when it is established (net_on_established: a free
 * slot, or when there is none a seat taken from the biggest holder, the
 * sessions per address, a client id, its hello) and when it ends
 * (net_on_closed: the slot and the address's count given back, the close
 * counted); and the control-token guesses each address may make. The
 * limits themselves, and the rule of fair seats, are address_limits.c's.
 * Loop thread only. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>

#include "net/net_internal.h"

/* RFC 6455 registry code 1013, which lws 4.1 has no name for. */
#define CLOSE_TRY_AGAIN_LATER 1013
/* RFC 6585's "Too Many Requests", which lws 4.1 has no name for either. */
#define HTTP_TOO_MANY_REQUESTS 429
/* Control-token guesses (address_limits.h): past the free failures an
 * address waits 1 s before its next guess, doubled per further failure up
 * to AUTH_DELAY_MAX_MS (so at most two a minute, sustained); ten minutes
 * without a failure and it starts afresh. */
#define AUTH_DELAY_MS 1000
#define AUTH_DELAY_MAX_MS 30000
#define AUTH_FORGET_MS (10 * 60 * 1000)
/* Addresses remembered at least (and twice --max-clients, so that every
 * session's address has an entry and as many again are left for the
 * addresses that only failed or connected). */
#define ADDRESS_TABLE_MIN 4096
/* Fair seats (address_limits.h): a session is idle when no message of its
 * own began for this long (pongs do not count: every library answers
 * pings by itself), counted from its admission, so that someone who has
 * just come in is not put out before they could say anything. */
#define FAIR_SEAT_IDLE_MS 10000
/* An evicted session holds no slot, so the sweep (keepalive.c) no longer
 * watches it: if its close has not gone through after this long (it reads
 * nothing), it is cut off. */
#define EVICTED_GRACE_S 2

static void count_close(net_t *n, int code)
{
    static const int codes[] = NET_CLOSE_CODES;
    size_t k = 0;
    while (k < sizeof codes / sizeof codes[0] && codes[k] != code) k++;
    n->stats.closes[k]++;
}

/* The per-address limits for cfg (address_limits.h). NULL when out of
 * memory. */
address_limits_t *net_limits_create(const net_config_t *cfg)
{
    address_limits_config_t limits = {
        .capacity = cfg->max_clients * 2 > ADDRESS_TABLE_MIN ? cfg->max_clients * 2 : ADDRESS_TABLE_MIN,
        .connect_per_s = cfg->connect_per_s,
        .connect_burst = cfg->connect_burst,
        .auth_free_failures = cfg->auth_free_failures,
        .auth_delay_ms = AUTH_DELAY_MS,
        .auth_delay_max_ms = AUTH_DELAY_MAX_MS,
        .auth_forget_ms = AUTH_FORGET_MS,
        .hash_seed = uv_hrtime(),
    };
    /* A seed an attacker cannot know; the clock only if the kernel has none. */
    getrandom(&limits.hash_seed, sizeof limits.hash_seed, GRND_NONBLOCK);
    return address_limits_create(&limits);
}

/* Whether origin is one of the comma-separated allowed ones (exact match). */
static bool origin_allowed(const char *allowed, const char *origin)
{
    size_t len = strlen(origin);
    for (const char *p = allowed; *p;) {
        while (*p == ' ' || *p == ',') p++;
        const char *end = p;
        while (*end && *end != ',') end++;
        const char *last = end;
        while (last > p && last[-1] == ' ') last--;
        if ((size_t)(last - p) == len && len && memcmp(p, origin, len) == 0) return true;
        p = end;
    }
    return false;
}

/* RFC 6455 4.2.1: version 13 and a key of 16 bytes in base64 (24
 * characters ending "=="), which libwebsockets 4.1 does not check. */
static bool upgrade_well_formed(struct lws *wsi)
{
    char version[8], key[64];
    int lv = lws_hdr_copy(wsi, version, sizeof version, WSI_TOKEN_VERSION);
    int lk = lws_hdr_copy(wsi, key, sizeof key, WSI_TOKEN_KEY);
    if (lv != 2 || strcmp(version, "13") != 0 || lk != 24 || key[22] != '=' || key[23] != '=') return false;
    for (int i = 0; i < 22; i++)
        if (!(isalnum((unsigned char)key[i]) || key[i] == '+' || key[i] == '/')) return false;
    return true;
}

/* A request header's value, whole (several lines of one name joined by
 * commas): malloc'd, NUL-terminated, *len its length; NULL when the
 * request has none (or memory ran out: then *len is SIZE_MAX). Custom
 * names are lower case with their colon ("forwarded:"). */
static char *header_copy(struct lws *wsi, int token, const char *custom, size_t *len)
{
    int total = custom ? lws_hdr_custom_length(wsi, custom, (int)strlen(custom)) : lws_hdr_total_length(wsi, token);
    *len = 0;
    if (total <= 0) return NULL;
    /* Room for the commas lws puts between the lines of one name. */
    size_t cap = (size_t)total * 2 + 2;
    char *buf = malloc(cap);
    int got = !buf ? -1
              : custom ? lws_hdr_custom_copy(wsi, buf, (int)cap, custom, (int)strlen(custom))
                       : lws_hdr_copy(wsi, buf, (int)cap, (enum lws_token_indexes)token);
    if (got < 0) {
        free(buf);
        *len = SIZE_MAX;
        return NULL;
    }
    *len = (size_t)got;
    return buf;
}

/* The client's address as the per-address limits see it: the peer's, or
 * when the peer is a trusted proxy (--trusted-proxy) the one its
 * X-Forwarded-For / Forwarded reports (forwarded.h; the outcome is
 * counted). A socket that is neither IPv4 nor IPv6 is the all-zero key. */
static addr_key_t client_key(net_t *n, struct lws *wsi)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    addr_key_t key = {{0}};
    ip_addr_t peer;
    if (getpeername(lws_get_socket_fd(wsi), (struct sockaddr *)&ss, &sl) != 0 ||
        !ip_addr_from_sockaddr((struct sockaddr *)&ss, &peer))
        return key;
    addr_key_from_ip(peer.b, &key);
    if (!n->cfg.trusted_proxies.n || !trusted_proxies_contain(&n->cfg.trusted_proxies, &peer)) return key;
    size_t xff_len, fwd_len;
    char *xff = header_copy(wsi, WSI_TOKEN_X_FORWARDED_FOR, NULL, &xff_len);
    char *fwd = header_copy(wsi, 0, "forwarded:", &fwd_len);
    ip_addr_t client;
    forwarded_outcome_t outcome = xff_len == SIZE_MAX || fwd_len == SIZE_MAX
                                      ? FORWARDED_MALFORMED
                                      : forwarded_client(&n->cfg.trusted_proxies, xff, xff_len, fwd, fwd_len, &client);
    free(xff);
    free(fwd);
    n->stats.forwarded[outcome]++;
    if (outcome == FORWARDED_CLIENT || outcome == FORWARDED_ALL_TRUSTED) addr_key_from_ip(client.b, &key);
    return key;
}

/* The upgrade's ?room= argument into room (NET_ROOM_ARG_BYTES + 1 bytes),
 * "" without one. A longer one is cut (and so matches no code, but for
 * the dashes and spaces a code may carry). Every argument is read whole:
 * lws_get_urlarg_by_name gives up at the first argument longer than its
 * buffer, so a long ?room= (or any long argument before it) read as none
 * and took its session to the default room instead of 4404 or its room.
 * When the arguments cannot be read, the marker "?" matches no code. */
static void room_arg(struct lws *wsi, char *room)
{
    room[0] = 0;
    int total = lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_URI_ARGS);
    if (total <= 0) return;
    char *buf = malloc((size_t)total + 1);
    const char *value = buf ? lws_get_urlarg_by_name(wsi, "room=", buf, total + 1) : "?";
    if (value) snprintf(room, NET_ROOM_ARG_BYTES + 1, "%s", value);
    free(buf);
}

/* Before the upgrade is answered: an address opening sessions faster than
 * --connect-rate is refused (429) before anything else is done for it, so
 * that reconnecting mints no budget and costs no slot; a malformed request
 * is refused (400), and a browser page from another site may not open a
 * session (403; a request with no Origin is no browser's, and allowed). */
int net_on_filter(net_t *n, session_t *s, struct lws *wsi)
{
    addr_key_t key = client_key(n, wsi);
    /* Kept for ESTABLISHED, which starts the session afresh. */
    if (s) {
        s->addr = key;
        s->addr_known = true;
        room_arg(wsi, s->room);
    }
    if (!address_limits_connect(n->limits, &key, now_ms(n))) {
        n->stats.refused[REFUSED_CONNECT_RATE]++;
        lws_return_http_status(wsi, HTTP_TOO_MANY_REQUESTS, "too many new connections from this address");
        return -1;
    }
    if (!upgrade_well_formed(wsi)) {
        lws_return_http_status(wsi, HTTP_STATUS_BAD_REQUEST, "not a version 13 WebSocket upgrade");
        return -1;
    }
    if (!n->cfg.allow_origin) return 0;
    char origin[256];
    int len = lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN);
    if (len <= 0 && lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN) == 0) return 0;
    if (len > 0 && origin_allowed(n->cfg.allow_origin, origin)) return 0;
    n->stats.refused[REFUSED_ORIGIN]++;
    lws_return_http_status(wsi, HTTP_STATUS_FORBIDDEN, "this Origin may not open a session");
    return -1;
}

static void refuse(net_t *n, session_t *s, refusal_t why, int code, const char *reason)
{
    n->stats.refused[why]++;
    net_begin_close(n, s, code, reason);
}

/* Gives back what s holds (its slot, its address's count) and tells the
 * application it is gone: at its close, or as soon as it is evicted. */
static void release_seat(net_t *n, session_t *s)
{
    if (!s->counted) return;
    s->counted = false;
    n->slots[s->slot] = NULL;
    n->n_clients--;
    n->n_protocol[s->protocol]--;
    n->channels[s->channel].n_protocol[s->protocol]--;
    address_limits_session_closed(n->limits, &s->addr);
    n->cb.on_close(n->cb.user, s->client_id, s->slot);
}

/* Whether s counts as idle for fair seats (FAIR_SEAT_IDLE_MS). */
static bool idle_at(const session_t *s, uint64_t now)
{
    return !s->in_message && now - s->message_started_ms >= FAIR_SEAT_IDLE_MS;
}

/* The server is full and a session from addr arrives: the slot whose
 * session gives up its seat to it (address_limits.h, "Fair seats"), or
 * SIZE_MAX when it is to be refused. One pass over the slots, with a
 * lookup of each session's address, only when every slot is taken; an
 * admission with a free slot costs nothing more than before. */
static size_t fair_seat(net_t *n, const addr_key_t *addr, uint64_t now)
{
    size_t mine = address_limits_sessions(n->limits, addr);
    /* No address holds more than --max-per-address: nobody to take from. */
    if (mine + 2 > n->cfg.max_per_address) return SIZE_MAX;
    /* Client ids are handed out in turn over [reserved + 1, LIMIT): how
     * many came after a session's is its age, across the wrap too. */
    const uint32_t ids = NET_CLIENT_ID_LIMIT - 1 - n->cfg.reserved_client_ids;
    fair_seat_pick_t pick = {0};
    for (size_t i = 0; i < n->cfg.max_clients; i++) {
        const session_t *s = n->slots[i];
        if (!s || s->closing || s->peer_closing) continue; /* leaving anyway */
        fair_seat_candidate_t c = {
            .holder_sessions = address_limits_sessions(n->limits, &s->addr),
            .idle = idle_at(s, now),
            .age = (n->last_client_id + ids - s->client_id) % ids,
        };
        fair_seat_consider(&pick, i, &c);
    }
    size_t slot;
    return fair_seat_choose(&pick, mine, &slot) ? slot : SIZE_MAX;
}

/* Closes the session in slot with 1013 and gives its seat back at once,
 * for a newcomer to take. */
static void evict(net_t *n, size_t slot, uint64_t now)
{
    session_t *s = n->slots[slot];
    n->stats.evicted++;
    net_begin_close(n, s, CLOSE_TRY_AGAIN_LATER,
                    idle_at(s, now) ? "server full: your address holds the most sessions; this one was idle"
                         : "server full: your address holds the most sessions; this one was its newest");
    release_seat(n, s);
    lws_set_timeout(s->wsi, PENDING_TIMEOUT_USER_OK, EVICTED_GRACE_S);
}

int net_on_established(net_t *n, session_t *s, struct lws *wsi)
{
    addr_key_t addr = s->addr_known ? s->addr : client_key(n, wsi);
    char room[NET_ROOM_ARG_BYTES + 1];
    memcpy(room, s->room, sizeof room);
    if (!s->addr_known) room_arg(wsi, room);
    memset(s, 0, sizeof *s);
    s->addr = addr;
    s->wsi = wsi;
    s->established = true;
    uint64_t now = now_ms(n);
    /* message_started_ms is also when its last message began, for
     * fair_seat's idle test: its admission counts as one. */
    s->last_rx_ms = s->last_progress_ms = s->last_ping_ms = s->message_started_ms = now;
    if (n->shutting_down) {
        refuse(n, s, REFUSED_SHUTTING_DOWN, LWS_CLOSE_STATUS_GOINGAWAY, "server shutting down");
        return 0;
    }
    size_t slot = 0;
    while (slot < n->cfg.max_clients && n->slots[slot]) slot++;
    /* Full: a seat is taken from someone only for a room that is there (a
     * wrong code must not put people out; it is told "full" like anyone). */
    bool for_a_room = !n->cb.room_known || n->cb.room_known(n->cb.user, room);
    if (slot == n->cfg.max_clients && (!for_a_room || (slot = fair_seat(n, &s->addr, now)) == SIZE_MAX)) {
        refuse(n, s, REFUSED_FULL, CLOSE_TRY_AGAIN_LATER, "server full, try again later");
        return 0;
    }
    if (address_limits_sessions(n->limits, &s->addr) >= n->cfg.max_per_address) {
        refuse(n, s, REFUSED_PER_ADDRESS, CLOSE_TRY_AGAIN_LATER, "too many connections from this address");
        return 0;
    }
    if (!(s->rx = malloc(n->cfg.max_message_bytes))) return -1;
    if (n->slots[slot]) evict(n, slot, now);
    int sndbuf = SESSION_SNDBUF_BYTES;
    setsockopt(lws_get_socket_fd(wsi), SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
    s->counted = true;
    s->slot = slot;
    address_limits_session_opened(n->limits, &s->addr, now);
    /* Ids wrap below NET_CLIENT_ID_LIMIT, skipping 0 and the reserved ones. */
    n->last_client_id = n->last_client_id + 1 < NET_CLIENT_ID_LIMIT && n->last_client_id >= n->cfg.reserved_client_ids
                            ? n->last_client_id + 1
                            : n->cfg.reserved_client_ids + 1;
    s->client_id = n->last_client_id;
    const struct lws_protocols *p = lws_get_protocol(wsi);
    s->protocol = p && strcmp(p->name, "swarmcast.v2") == 0 ? 2 : 1;
    n->slots[slot] = s;
    n->n_clients++;
    n->n_protocol[s->protocol]++;
    n->stats.accepted++;
    net_admit_t admit = {0};
    char *hello = n->cb.on_open(n->cb.user, s->client_id, slot, s->protocol, room, &admit);
    s->channel = hello && admit.channel < n->cfg.channels ? admit.channel : 0;
    n->channels[s->channel].n_protocol[s->protocol]++;
    /* The first snapshot it gets is the next one. */
    s->snap_seq = s->protocol == 2 ? n->channels[s->channel].v2_seq : n->channels[s->channel].snap_seq;
    if (!hello) {
        n->stats.refused_room++;
        net_begin_close(n, s, admit.refuse_code ? admit.refuse_code : LWS_CLOSE_STATUS_UNEXPECTED_CONDITION,
                        admit.refuse_code ? admit.refuse_reason : "cannot serve this client");
        return 0;
    }
    if (hello[0]) net_enqueue(n, s, hello); /* "": its hello comes later (net_send) */
    free(hello);
    return 0;
}

void net_on_closed(net_t *n, session_t *s)
{
    if (!s->established) return; /* a handshake that never became a session */
    count_close(n, s->close_code ? s->close_code : LWS_CLOSE_STATUS_ABNORMAL_CLOSE);
    s->established = false;
    net_outbox_clear(s);
    free(s->rx);
    s->rx = NULL;
    release_seat(n, s);
}

bool net_client_addr(const net_t *n, size_t slot, uint32_t client_id, addr_key_t *out)
{
    const session_t *s = slot < n->cfg.max_clients ? n->slots[slot] : NULL;
    if (!s || s->client_id != client_id) return false;
    *out = s->addr;
    return true;
}

uint64_t net_auth_wait(net_t *n, size_t slot, uint32_t client_id)
{
    session_t *s = net_find(n, slot, client_id);
    /* Only asked from a message of the client itself, so it is there. */
    uint64_t wait = s ? address_limits_auth_wait(n->limits, &s->addr, now_ms(n)) : AUTH_DELAY_MS;
    if (wait) n->stats.auth_throttled++;
    return wait;
}

void net_auth_result(net_t *n, size_t slot, uint32_t client_id, bool right)
{
    session_t *s = net_find(n, slot, client_id);
    if (!s) return;
    if (right) {
        address_limits_auth_succeeded(n->limits, &s->addr);
        return;
    }
    n->stats.auth_failed++;
    address_limits_auth_failed(n->limits, &s->addr, now_ms(n));
}
