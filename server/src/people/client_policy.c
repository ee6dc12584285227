#include "people/client_policy.h"

#include <math.h>
#include <string.h>

#include "protocol/auth_decode.h"
#include "protocol/presence_decode.h"

void policy_init(client_policy_t *p, bool operator, double scale, uint64_t now_ns)
{
    *p = (client_policy_t){.operator = operator, .scale = scale, .tokens = POLICY_START * scale, .updated_ns = now_ns};
}

static double base_cost(const sim_cmd_t *cmd)
{
    switch (cmd->kind) {
    case CMD_SET_TARGET:
    case CMD_CLEAR_TARGET:
    case CMD_MOVE_OBSTACLE:
        return 1;
    case CMD_REMOVE_OBSTACLE:
        return 2;
    case CMD_SET_PARAM:
        return 4;
    case CMD_ADD_OBSTACLE:
    case CMD_SET_MODEL:
    case CMD_PAUSE:
    case CMD_RESUME:
    case CMD_STEP:
        return 8;
    case CMD_ADD_AGENTS:
        /* 10,000 agents cost half the bucket: a few bursts, then wait. */
        return 16 + cmd->count / 100.0;
    case CMD_RESET:
        return POLICY_BUCKET;
    default:
        return POLICY_BUCKET;
    }
}

double policy_cost(const client_policy_t *p, const sim_cmd_t *cmd)
{
    return fmin(base_cost(cmd), POLICY_BUCKET * p->scale);
}

bool policy_allows(const client_policy_t *p, cmd_kind_t kind)
{
    /* The simulation holds the same rule (and checks it again). */
    return p->operator || cmd_visitor_may(kind);
}

policy_verdict_t policy_charge(client_policy_t *p, double cost, uint64_t now_ns)
{
    double elapsed = now_ns > p->updated_ns ? (double)(now_ns - p->updated_ns) / 1e9 : 0.0;
    p->updated_ns = now_ns;
    p->tokens = fmin(POLICY_BUCKET * p->scale, p->tokens + elapsed * POLICY_REFILL_PER_S * p->scale);
    p->strikes = fmax(0.0, p->strikes - elapsed * POLICY_FORGIVEN_PER_S);
    if (p->tokens >= cost) {
        p->tokens -= cost;
        return POLICY_OK;
    }
    p->strikes += 1;
    return p->strikes > POLICY_STRIKES ? POLICY_ABUSIVE : POLICY_RATE_LIMITED;
}

double policy_presence_cost(int presence_kind)
{
    switch (presence_kind) {
    case PRESENCE_HELLO: return POLICY_COST_HELLO;
    case PRESENCE_CURSOR: return POLICY_COST_CURSOR;
    case PRESENCE_INSPECT: return POLICY_COST_INSPECT;
    default: return POLICY_COST_PING;
    }
}

bool policy_token_matches(const char *expected, const char *given)
{
    size_t le = strlen(expected), lg = strlen(given);
    unsigned char diff = (unsigned char)(le != lg);
    for (size_t i = 0; i < AUTH_MAX_TOKEN; i++)
        diff |= (unsigned char)((i < le ? expected[i] : 0) ^ (i < lg ? given[i] : 0));
    return diff == 0;
}
