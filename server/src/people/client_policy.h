/* client_policy: what one client may do and how fast. A role (operator or
 * visitor) decides which commands it may send at all; a token bucket,
 * charged by what a command costs the world, decides how often. Moving
 * one's target is cheap, a reset costs the whole bucket. A client that
 * keeps hammering past its budget collects strikes, which it is forgiven
 * at a steady rate; too many and it is closed. A new connection starts
 * with a quarter of the bucket, so that opening connections does not
 * mint budget. Plain logic, no I/O: the
 * loop thread keeps one per client. */
#ifndef SWARMCAST_CLIENT_POLICY_H
#define SWARMCAST_CLIENT_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/commands.h"

#define POLICY_BUCKET 240.0        /* tokens a client may save */
#define POLICY_START 60.0          /* … and starts with: a reset waits until a connection has earned
                                      it (2.3 s), so reconnecting mints no resets */
#define POLICY_REFILL_PER_S 80.0   /* tokens it earns per second */
#define POLICY_COST_AUTH 40.0      /* a token guess is expensive */
#define POLICY_COST_REFUSED 1.0    /* a message the decoder refused */
#define POLICY_COST_HELLO 4.0      /* a name or colour change: everyone's presence list is sent again */
#define POLICY_COST_CURSOR 0.25    /* a pointer move: browsers send ~10 a second, coalesced anyway */
#define POLICY_COST_PING 1.0       /* a round-trip probe: pages send one every 2 s */
#define POLICY_COST_VIEW 1.0       /* a viewport: pages send at most 10 a second while the camera moves */
#define POLICY_COST_INSPECT 2.0    /* a selection: the simulation thread looks the agent up */
#define POLICY_STRIKES 50.0        /* rate-limited refusals a client may collect … */
#define POLICY_FORGIVEN_PER_S 5.0  /* … net of these forgiven per second */

typedef struct client_policy {
    bool operator;        /* in its room: may do everything there */
    bool server_operator; /* holds the server's control token (or the server has none): rooms of its own */
    double scale; /* the bucket and its refill, times this (--rate-scale) */
    double tokens, strikes;
    uint64_t updated_ns;
} client_policy_t;

typedef enum {
    POLICY_OK,           /* charged: go ahead */
    POLICY_RATE_LIMITED, /* over budget: refuse this one */
    POLICY_ABUSIVE,      /* over budget for too long: close the connection */
} policy_verdict_t;

/* scale multiplies the bucket, the start and the refill (1: the defaults above). */
void policy_init(client_policy_t *p, bool operator, double scale, uint64_t now_ns);
/* What a command costs this client (add_agents by its count; never more
 * than its whole bucket). */
double policy_cost(const client_policy_t *p, const sim_cmd_t *cmd);
/* Whether the client's role allows this kind of command at all: visitors
 * may steer their own target and keep a few obstacles of their own. */
bool policy_allows(const client_policy_t *p, cmd_kind_t kind);
/* What a hello, cursor, inspect or ping costs (presence_kind_t). */
double policy_presence_cost(int presence_kind);
/* Whether given is the control token: an equal-time comparison, so that
 * the time of a refusal tells nothing of how much of a guess was right. */
bool policy_token_matches(const char *expected, const char *given);
/* Takes cost tokens if the client has them. */
policy_verdict_t policy_charge(client_policy_t *p, double cost, uint64_t now_ns);

#endif
