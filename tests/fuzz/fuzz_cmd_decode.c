/* Fuzz target: the command decoder (server/src/protocol/cmd_decode.c), on
 * any bytes a client can send. Besides memory safety and undefined behaviour
 * (ASan, UBSan) it checks:
 *   - the strict check decides first: what it refuses is bad_json, what it
 *     accepts cJSON reads whole;
 *   - an accepted command's fields lie within the ranges of PROTOCOL.md;
 *   - an accepted command, written as the command log writes it
 *     (record_cmd_json), decodes to the same command (replay is exact);
 *   - a refusal has a wire code (one of wire_errors.h's), a printable ASCII
 *     message, a sane id, and a command name cmd_name knows. */
#include <cJSON.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_check.h"
#include "persist/record.h"
#include "protocol/cmd_decode.h"
#include "protocol/json_strict.h"
#include "protocol/wire_errors.h"
#include "sim/params.h"
#include "sim/world.h"

#define CLIENT 7u

static const cmd_limits_t LIMITS = {.width = 1600, .height = 900, .max_agents = 100000};

static bool in_world(float x, float y)
{
    return isfinite(x) && isfinite(y) && x >= 0 && x <= LIMITS.width && y >= 0 && y <= LIMITS.height;
}

static bool same_float(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

static void check_error(const cmd_error_t *err)
{
    REQUIRE(err->code, "a refusal without a code");
    REQUIRE(wire_error_index(err->code) >= 0, "code %s is none of the protocol's (wire_errors.h)", err->code);
    REQUIRE(printable_message(err->message, sizeof err->message), "message \"%.200s\"", err->message);
    REQUIRE(err->request_id >= -1 && err->request_id <= (int64_t)UINT32_MAX, "request_id %lld",
            (long long)err->request_id);
    if (err->cmd) {
        bool named = false;
        for (int k = 0; k < CMD_COUNT; k++) named |= strcmp(err->cmd, cmd_name((cmd_kind_t)k)) == 0;
        REQUIRE(named, "cmd %s", err->cmd);
    }
}

static void check_ranges(const sim_cmd_t *c)
{
    REQUIRE(c->client_id == CLIENT, "client_id %u", c->client_id);
    REQUIRE((unsigned)c->kind < CMD_COUNT, "kind %d", (int)c->kind);
    /* Internal commands (leave) never come from a client, nor does a role. */
    REQUIRE(!cmd_is_internal(c->kind), "a client sent the internal command %s", cmd_name(c->kind));
    REQUIRE(!c->visitor, "the decoder set visitor");
    REQUIRE(c->request_id >= -1 && c->request_id <= (int64_t)UINT32_MAX, "request_id %lld", (long long)c->request_id);
    switch (c->kind) {
    case CMD_SET_TARGET:
    case CMD_MOVE_OBSTACLE:
        REQUIRE(c->has_point && in_world(c->x, c->y), "point (%g, %g)", c->x, c->y);
        break;
    case CMD_ADD_OBSTACLE:
        REQUIRE(c->has_point && in_world(c->x, c->y), "point (%g, %g)", c->x, c->y);
        REQUIRE(c->radius >= SIM_OBSTACLE_MIN_RADIUS && c->radius <= SIM_OBSTACLE_MAX_RADIUS, "radius %g", c->radius);
        REQUIRE(fabsf(c->vx) <= SIM_OBSTACLE_MAX_SPEED && fabsf(c->vy) <= SIM_OBSTACLE_MAX_SPEED, "velocity (%g, %g)",
                c->vx, c->vy);
        break;
    case CMD_ADD_AGENTS:
        REQUIRE(c->count >= 1 && c->count <= SIM_MAX_ADD_AGENTS, "count %u", c->count);
        REQUIRE(!c->has_point || in_world(c->x, c->y), "point (%g, %g)", c->x, c->y);
        break;
    case CMD_RESET:
        REQUIRE(!c->has_agents || c->agents <= LIMITS.max_agents, "agents %u", c->agents);
        break;
    case CMD_SET_PARAM: {
        REQUIRE(c->param >= 0 && (size_t)c->param < params_count(), "param %d", c->param);
        REQUIRE(isfinite(c->value), "value %g", c->value);
        sim_params_t scratch;
        params_defaults(&scratch);
        char why[200];
        REQUIRE(params_set(&scratch, (size_t)c->param, c->value, why, sizeof why) == SIM_OK, "%s", why);
        REQUIRE(!c->has_species || (c->species >= 0 && c->species < SIM_MAX_SPECIES), "species %d", c->species);
        break;
    }
    case CMD_SET_MODEL: {
        const param_desc_t *d = params_desc((size_t)params_find("model"));
        REQUIRE(c->model >= 0 && c->model <= (int)d->max, "model %d", c->model);
        break;
    }
    default:
        break;
    }
}

/* The command log's line for c decodes to c again, field by field (floats
 * bit for bit). */
static void check_log_round_trip(const sim_cmd_t *c)
{
    char line[RECORD_CMD_MAX];
    int n = record_cmd_json(c, line, sizeof line);
    REQUIRE(n > 0, "record_cmd_json refused a decoded %s", cmd_name(c->kind));
    sim_cmd_t again;
    cmd_error_t err;
    int rc = cmd_decode(line, (size_t)n, &LIMITS, CLIENT, &again, &err);
    REQUIRE(rc == 0, "the log line %s is refused: %s %s", line, err.code, err.message);
    REQUIRE(again.kind == c->kind && again.request_id == c->request_id && again.has_point == c->has_point &&
                same_float(again.x, c->x) && same_float(again.y, c->y) && same_float(again.radius, c->radius) &&
                same_float(again.vx, c->vx) && same_float(again.vy, c->vy) && again.obstacle_id == c->obstacle_id &&
                again.param == c->param && again.has_species == c->has_species && again.species == c->species &&
                again.model == c->model && memcmp(&again.value, &c->value, sizeof c->value) == 0 &&
                again.count == c->count && again.has_seed == c->has_seed && again.seed == c->seed &&
                again.has_agents == c->has_agents && again.agents == c->agents,
            "the log line %s decodes to a different command", line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    sim_cmd_t cmd;
    cmd_error_t err;
    int rc = cmd_decode(text, size, &LIMITS, CLIENT, &cmd, &err);

    json_strict_error_t strict;
    if (json_strict_check(text, size, &strict) == JSON_STRICT_OK) {
        const char *end = NULL;
        cJSON *root = cJSON_ParseWithLengthOpts(text, size, &end, false);
        REQUIRE(root, "the strict check accepted what cJSON refuses");
        while (end < text + size && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')) end++;
        REQUIRE(end == text + size, "cJSON stopped at byte %zu of %zu", (size_t)(end - text), size);
        cJSON_Delete(root);
    } else {
        REQUIRE(strict.offset <= size, "offset %zu of %zu", strict.offset, size);
        REQUIRE(printable_message(strict.message, sizeof strict.message), "\"%.200s\"", strict.message);
        REQUIRE(rc == -1 && err.code && strcmp(err.code, "bad_json") == 0, "strictly refused, yet %s",
                rc == 0 ? "accepted" : err.code);
    }

    if (rc == 0) {
        check_ranges(&cmd);
        check_log_round_trip(&cmd);
    } else {
        REQUIRE(rc == -1, "rc %d", rc);
        check_error(&err);
    }
    return 0;
}
