#include "protocol/timeline_messages.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every field is a number or one of the server's own ASCII words: no
 * escaping is needed, and 512 bytes hold the longest message. */
#define TIMELINE_MSG_MAX 512

static char *copy(const char *text, int len)
{
    if (len < 0 || len >= TIMELINE_MSG_MAX) return NULL;
    return strdup(text);
}

static void put_id(char *buf, size_t cap, int64_t request_id)
{
    if (request_id >= 0) snprintf(buf, cap, "%" PRId64, request_id);
    else snprintf(buf, cap, "null");
}

char *msg_timeline(const timeline_state_t *s)
{
    char buf[TIMELINE_MSG_MAX], id[24], op[32], why[40];
    put_id(id, sizeof id, s->request_id);
    if (s->op) snprintf(op, sizeof op, "\"%s\"", s->op);
    else snprintf(op, sizeof op, "null");
    if (s->why) snprintf(why, sizeof why, ",\"why\":\"%s\"", s->why);
    else why[0] = '\0';
    int len = snprintf(buf, sizeof buf,
                       "{\"type\":\"timeline\",\"id\":%s,\"op\":%s,\"mode\":\"%s\",\"tick\":%" PRIu64
                       ",\"speed\":%.17g,\"from\":%" PRIu64 ",\"to\":%" PRIu64 ",\"base\":%" PRIu64
                       ",\"keyframe_ticks\":%" PRIu64 "%s}",
                       id, op, s->mode, s->tick, s->speed, s->from, s->to, s->base, s->keyframe_ticks, why);
    return copy(buf, len);
}

char *msg_timeline_error(const char *code, const char *message, int64_t request_id, uint64_t from, uint64_t to,
                         int64_t retry_after_ms)
{
    char buf[TIMELINE_MSG_MAX], id[24], retry[40];
    put_id(id, sizeof id, request_id);
    if (retry_after_ms >= 0) snprintf(retry, sizeof retry, ",\"retry_after_ms\":%" PRId64, retry_after_ms);
    else retry[0] = '\0';
    int len = snprintf(buf, sizeof buf,
                       "{\"type\":\"error\",\"id\":%s,\"cmd\":\"timeline\",\"code\":\"%s\",\"message\":\"%s\",\"from\":%" PRIu64
                       ",\"to\":%" PRIu64 "%s}",
                       id, code, message, from, to, retry);
    return copy(buf, len);
}
