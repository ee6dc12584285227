#include "experiment/pool_protocol.h"

#include <cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/json_strict.h"
#include "protocol/utf8.h"

#define POOL_VERSION 1

uint64_t pool_experiment_hash(const char *json, size_t json_len, const char *table, size_t table_len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    const unsigned char zero = 0;
    const struct {
        const unsigned char *p;
        size_t n;
    } parts[] = {{(const unsigned char *)json, json_len}, {&zero, 1}, {(const unsigned char *)table, table_len}};
    for (size_t k = 0; k < 3; k++)
        for (size_t i = 0; i < parts[k].n; i++) {
            h ^= parts[k].p[i];
            h *= 0x100000001b3ull;
        }
    return h;
}

void pool_names_make(uint64_t hash, pool_names_t *n)
{
    snprintf(n->hash, sizeof n->hash, "%016" PRIx64, hash);
    snprintf(n->stream, sizeof n->stream, POOL_STREAM_PREFIX "%s", n->hash);
    snprintf(n->all, sizeof n->all, "swarmcast.exp.%s.>", n->hash);
    snprintf(n->spec, sizeof n->spec, "swarmcast.exp.%s.spec", n->hash);
    snprintf(n->run, sizeof n->run, "swarmcast.exp.%s.run", n->hash);
    snprintf(n->result, sizeof n->result, "swarmcast.exp.%s.result", n->hash);
    snprintf(n->max_deliveries, sizeof n->max_deliveries, "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.%s.%s", n->stream,
             POOL_WORKERS_CONSUMER);
}

/* 16 lowercase hex digits, exactly, to a number. */
static int hex16(const char *s, uint64_t *out)
{
    if (!s || strlen(s) != 16) return -1;
    uint64_t v = 0;
    for (int i = 0; i < 16; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0) return -1;
        v = v << 4 | (uint64_t)d;
    }
    *out = v;
    return 0;
}

int pool_names_from_stream(const char *stream, pool_names_t *n)
{
    size_t k = strlen(POOL_STREAM_PREFIX);
    uint64_t h;
    if (strncmp(stream, POOL_STREAM_PREFIX, k) != 0 || hex16(stream + k, &h)) return -1;
    pool_names_make(h, n);
    return 0;
}

/* The head line (a strict JSON object) of msg, parsed; *body after its
 * newline. NULL with why. */
static cJSON *parse_head(const char *msg, size_t len, const char *kind, const char **body, size_t *body_len,
                         char *why, size_t why_len)
{
    const char *nl = memchr(msg, '\n', len < POOL_MAX_HEAD ? len : POOL_MAX_HEAD);
    size_t head_len = nl ? (size_t)(nl - msg) : len;
    if (!nl && len > POOL_MAX_HEAD) {
        text_fail(why, why_len, "no head line in the first %d bytes", POOL_MAX_HEAD);
        return NULL;
    }
    json_strict_error_t err;
    if (json_strict_check(msg, head_len, &err) != JSON_STRICT_OK) {
        text_fail(why, why_len, "the head is not JSON: %s", err.message);
        return NULL;
    }
    cJSON *h = cJSON_ParseWithLength(msg, head_len);
    if (!cJSON_IsObject(h)) {
        text_fail(why, why_len, "the head is not a JSON object");
        cJSON_Delete(h);
        return NULL;
    }
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(h, "pool");
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(h, "kind");
    if (!cJSON_IsNumber(v) || v->valuedouble != POOL_VERSION) {
        text_fail(why, why_len, "not a pool message of version %d", POOL_VERSION);
    } else if (!cJSON_IsString(k) || strcmp(k->valuestring, kind) != 0) {
        text_fail(why, why_len, "not a \"%s\" message", kind);
    } else {
        *body = nl ? nl + 1 : msg + len;
        *body_len = nl ? len - head_len - 1 : 0;
        return h;
    }
    cJSON_Delete(h);
    return NULL;
}

/* A whole number field in [0, max]; -1 with why. */
static int field_whole(const cJSON *h, const char *name, uint64_t max, uint64_t *out, char *why, size_t why_len)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(h, name);
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > (double)max ||
        v->valuedouble != (double)(uint64_t)v->valuedouble)
        return text_fail(why, why_len, "%s: a whole number from 0 to %" PRIu64 " is needed", name, max);
    *out = (uint64_t)v->valuedouble;
    return 0;
}

static int field_hex(const cJSON *h, const char *name, uint64_t *out, char *why, size_t why_len)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(h, name);
    if (!cJSON_IsString(v) || hex16(v->valuestring, out))
        return text_fail(why, why_len, "%s: 16 lowercase hex digits are needed", name);
    return 0;
}

static int field_hash(const cJSON *h, char hash[17], char *why, size_t why_len)
{
    uint64_t x;
    if (field_hex(h, "experiment", &x, why, why_len)) return -1;
    snprintf(hash, 17, "%016" PRIx64, x);
    return 0;
}

/* The head as one line and the body after it, into one malloc'd message. */
static int finish(cJSON *h, const char *a, size_t a_len, const char *b, size_t b_len, char **out, size_t *len)
{
    char *head = h ? cJSON_PrintUnformatted(h) : NULL;
    cJSON_Delete(h);
    if (!head) return -1;
    size_t n = strlen(head);
    char *m = malloc(n + 1 + a_len + b_len + 1);
    if (m) {
        memcpy(m, head, n);
        m[n] = '\n';
        if (a_len) memcpy(m + n + 1, a, a_len);
        if (b_len) memcpy(m + n + 1 + a_len, b, b_len);
        *len = n + 1 + a_len + b_len;
        m[*len] = '\0';
    }
    free(head);
    *out = m;
    return m ? 0 : -1;
}

static cJSON *new_head(const char *kind, const char *hash)
{
    cJSON *h = cJSON_CreateObject();
    if (h && (!cJSON_AddNumberToObject(h, "pool", POOL_VERSION) || !cJSON_AddStringToObject(h, "kind", kind) ||
              !cJSON_AddStringToObject(h, "experiment", hash))) {
        cJSON_Delete(h);
        return NULL;
    }
    return h;
}

static bool add_hex(cJSON *h, const char *name, uint64_t v)
{
    char text[17];
    snprintf(text, sizeof text, "%016" PRIx64, v);
    return cJSON_AddStringToObject(h, name, text) != NULL;
}

int pool_spec_encode(const char *hash, const char *json, size_t json_len, const char *table, size_t table_len,
                     char **out, size_t *len)
{
    cJSON *h = new_head("spec", hash);
    if (h && (!cJSON_AddNumberToObject(h, "json", (double)json_len) ||
              !cJSON_AddNumberToObject(h, "table", (double)table_len))) {
        cJSON_Delete(h);
        h = NULL;
    }
    return finish(h, json, json_len, table, table_len, out, len);
}

int pool_run_encode(const char *hash, uint64_t spec_seq, uint64_t index, uint64_t run_id, char **out, size_t *len)
{
    cJSON *h = new_head("run", hash);
    if (h && (!cJSON_AddNumberToObject(h, "spec", (double)spec_seq) || !cJSON_AddNumberToObject(h, "index", (double)index) ||
              !add_hex(h, "run", run_id))) {
        cJSON_Delete(h);
        h = NULL;
    }
    return finish(h, NULL, 0, NULL, 0, out, len);
}

int pool_result_head(const pool_result_t *r, char *out, size_t out_len)
{
    cJSON *h = new_head("result", r->hash);
    bool good = h && cJSON_AddNumberToObject(h, "index", (double)r->index) && add_hex(h, "run", r->run_id) &&
                add_hex(h, "attempt", r->attempt) && cJSON_AddStringToObject(h, "status", r->ok ? "ok" : "failed") &&
                cJSON_AddStringToObject(h, "why", r->ok ? "" : r->why) &&
                cJSON_AddNumberToObject(h, "rows", (double)r->rows) &&
                cJSON_AddNumberToObject(h, "deliveries", (double)r->deliveries) &&
                cJSON_AddNumberToObject(h, "bytes", (double)r->bytes) &&
                cJSON_AddNumberToObject(h, "offset", (double)r->offset) &&
                cJSON_AddNumberToObject(h, "parts", r->parts) && cJSON_AddNumberToObject(h, "part", r->part);
    char *text = good ? cJSON_PrintUnformatted(h) : NULL;
    cJSON_Delete(h);
    if (!text) return -1;
    size_t n = strlen(text);
    int rc = n + 2 <= out_len && n + 1 <= POOL_MAX_HEAD ? 0 : -1;
    if (!rc) {
        memcpy(out, text, n);
        out[n] = '\n';
        out[n + 1] = '\0';
    }
    free(text);
    return rc;
}

int pool_spec_decode(const char *msg, size_t len, pool_spec_t *s, char *why, size_t why_len)
{
    const char *body;
    size_t body_len;
    cJSON *h = parse_head(msg, len, "spec", &body, &body_len, why, why_len);
    if (!h) return -1;
    memset(s, 0, sizeof *s);
    uint64_t jl = 0, tl = 0;
    int rc = field_hash(h, s->hash, why, why_len) || field_whole(h, "json", POOL_MAX_SPEC_BYTES, &jl, why, why_len) ||
                     field_whole(h, "table", POOL_MAX_SPEC_BYTES, &tl, why, why_len)
                 ? -1
                 : 0;
    cJSON_Delete(h);
    if (rc) return -1;
    if (jl + tl != body_len)
        return text_fail(why, why_len, "the head says %" PRIu64 " bytes, the body has %zu", jl + tl, body_len);
    s->json = body;
    s->json_len = (size_t)jl;
    s->table = body + jl;
    s->table_len = (size_t)tl;
    char hash[17];
    snprintf(hash, sizeof hash, "%016" PRIx64, pool_experiment_hash(s->json, s->json_len, s->table, s->table_len));
    if (strcmp(hash, s->hash) != 0)
        return text_fail(why, why_len, "its content hashes to %s, not to the %s it claims", hash, s->hash);
    return 0;
}

int pool_run_decode(const char *msg, size_t len, pool_run_t *r, char *why, size_t why_len)
{
    const char *body;
    size_t body_len;
    cJSON *h = parse_head(msg, len, "run", &body, &body_len, why, why_len);
    if (!h) return -1;
    memset(r, 0, sizeof *r);
    int rc = field_hash(h, r->hash, why, why_len) ||
                     field_whole(h, "spec", UINT64_C(1) << 53, &r->spec_seq, why, why_len) ||
                     field_whole(h, "index", 1ull << 40, &r->index, why, why_len) ||
                     field_hex(h, "run", &r->run_id, why, why_len)
                 ? -1
                 : 0;
    cJSON_Delete(h);
    if (!rc && body_len) rc = text_fail(why, why_len, "a run message has no body (it has %zu bytes)", body_len);
    return rc;
}

int pool_result_decode(const char *msg, size_t len, pool_result_t *r, char *why, size_t why_len)
{
    const char *body;
    size_t body_len;
    cJSON *h = parse_head(msg, len, "result", &body, &body_len, why, why_len);
    if (!h) return -1;
    memset(r, 0, sizeof *r);
    uint64_t parts = 0, part = 0;
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(h, "status");
    const cJSON *reason = cJSON_GetObjectItemCaseSensitive(h, "why");
    int rc = field_hash(h, r->hash, why, why_len) || field_whole(h, "index", 1ull << 40, &r->index, why, why_len) ||
                     field_hex(h, "run", &r->run_id, why, why_len) ||
                     field_hex(h, "attempt", &r->attempt, why, why_len) ||
                     field_whole(h, "rows", POOL_MAX_RESULT_BYTES, &r->rows, why, why_len) ||
                     field_whole(h, "deliveries", 1000000, &r->deliveries, why, why_len) ||
                     field_whole(h, "bytes", POOL_MAX_RESULT_BYTES, &r->bytes, why, why_len) ||
                     field_whole(h, "offset", POOL_MAX_RESULT_BYTES, &r->offset, why, why_len) ||
                     field_whole(h, "parts", POOL_MAX_PARTS, &parts, why, why_len) ||
                     field_whole(h, "part", POOL_MAX_PARTS, &part, why, why_len)
                 ? -1
                 : 0;
    if (!rc && (!cJSON_IsString(status) || (strcmp(status->valuestring, "ok") && strcmp(status->valuestring, "failed"))))
        rc = text_fail(why, why_len, "status: \"ok\" or \"failed\" is needed");
    if (!rc && !cJSON_IsString(reason)) rc = text_fail(why, why_len, "why: a string is needed");
    if (!rc) {
        r->ok = strcmp(status->valuestring, "ok") == 0;
        /* a long reason is kept cut, between characters */
        (void)text_copy(r->why, sizeof r->why, reason->valuestring, strlen(reason->valuestring));
    }
    cJSON_Delete(h);
    if (rc) return -1;
    r->parts = (uint32_t)parts;
    r->part = (uint32_t)part;
    r->body = body;
    r->body_len = body_len;
    if (parts < 1 || part >= parts) return text_fail(why, why_len, "part %" PRIu64 " of %" PRIu64 "", part, parts);
    if (r->offset + body_len > r->bytes)
        return text_fail(why, why_len, "a part at %" PRIu64 " of %zu bytes goes past the %" PRIu64 " the head says",
                         r->offset, body_len, r->bytes);
    if (part + 1 == parts && r->offset + body_len != r->bytes)
        return text_fail(why, why_len, "the last part ends at %" PRIu64 ", not at %" PRIu64, r->offset + body_len,
                         r->bytes);
    if (!r->ok && (r->bytes || r->rows || parts != 1)) return text_fail(why, why_len, "a failed run has no rows");
    if (!r->ok && !r->why[0]) return text_fail(why, why_len, "a failed run needs its reason");
    return 0;
}

int pool_advisory_decode(const char *msg, size_t len, uint64_t *stream_seq, uint64_t *deliveries)
{
    json_strict_error_t err;
    if (len > 64 * 1024 || json_strict_check(msg, len, &err) != JSON_STRICT_OK) return -1;
    cJSON *h = cJSON_ParseWithLength(msg, len);
    char why[64];
    int rc = !cJSON_IsObject(h) || field_whole(h, "stream_seq", UINT64_C(1) << 53, stream_seq, why, sizeof why) ||
                     field_whole(h, "deliveries", 1000000, deliveries, why, sizeof why)
                 ? -1
                 : 0;
    cJSON_Delete(h);
    return rc;
}

uint32_t pool_parts_for(uint64_t bytes, size_t room)
{
    if (!bytes || !room) return 1;
    return (uint32_t)((bytes + room - 1) / room);
}
