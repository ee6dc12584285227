#include "persist/state_file.h"
#include "sim/world_image.h"

#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "persist/param_json.h"
#include "protocol/base64.h"
#include "protocol/json_out.h"
#include "protocol/utf8.h"

#define SERVER_NAME "swarmcast " SWARMCAST_VERSION

/* The fastest any parameter lets an agent or a predator fly (max_speed,
 * uni_speed_max, predator_speed: 1000 u/s), with room for the rounding of
 * the speed limit: a saved world always passes, a hand edit cannot give an
 * agent a speed no parameter allows. */
#define STATE_MAX_SPEED 1001.0
/* Density-dependent radii are only compared with distances; the bound (five
 * times the largest radius a parameter allows) keeps hand edits sane and
 * leaves the smoothing's overshoot room. */
#define STATE_MAX_RADIUS 1000.0
/* Wander angles are kept in [0, 2π] (the step reduces them modulo 2π). */
#define STATE_MAX_ANGLE 6.28318531f
/* Ticks are whole numbers a double holds exactly. */
#define STATE_MAX_TICK 9007199254740992.0
/* A file larger than this, for a world of max_agents agents, cannot be one
 * this server wrote (about 45 bytes of base64 per agent and well under a
 * megabyte for the rest); it is refused before it is read into memory. */
#define STATE_FILE_FIXED_BYTES (1u << 20)
#define STATE_FILE_BYTES_PER_AGENT 80u

/* Which obstacles a state file keeps: the operator's (nobody's). Visitors'
 * obstacles go when their owners leave, so a restart must not bring them
 * back. */
static bool kept_obstacle(const obstacle_t *o) { return o->owner == 0; }

/* ---- the image ---------------------------------------------------------- */

/* n entries per array (at least one, so that NULL always means failure). */
static int agents_alloc(agents_t *a, size_t n)
{
    size_t m = n ? n : 1;
    *a = (agents_t){malloc(m * sizeof(float)),    malloc(m * sizeof(float)), malloc(m * sizeof(float)),
                    malloc(m * sizeof(float)),    malloc(m * sizeof(uint32_t)), malloc(m)};
    if (a->x && a->y && a->vx && a->vy && a->id && a->flags) return 0;
    agents_free(a);
    return -1;
}

void state_image_free(state_image_t *img)
{
    agents_free(&img->list);
    free(img->radius_ali);
    free(img->radius_coh);
    free(img->wander);
    memset(img, 0, sizeof *img);
}

/* A copy of n floats, or NULL when src is NULL or memory ran out (*failed). */
static float *copy_floats(const float *src, size_t n, bool *failed)
{
    if (!src) return NULL;
    float *dst = malloc((n ? n : 1) * sizeof *dst);
    if (!dst) *failed = true;
    else memcpy(dst, src, n * sizeof *dst);
    return dst;
}

int state_image_capture(state_image_t *img, const world_t *w, bool with_agents)
{
    memset(img, 0, sizeof *img);
    img->width = w->width;
    img->height = w->height;
    img->seed = w->seed;
    img->agents = w->n;
    img->paused = w->paused;
    img->params = w->params;
    memcpy(img->species_params, w->species_params, sizeof img->species_params);
    for (size_t i = 0; i < w->n_obstacles; i++)
        if (kept_obstacle(&w->obstacles[i])) img->obstacles[img->n_obstacles++] = w->obstacles[i];
    if (!with_agents) return 0;

    img->has_agents = true;
    img->tick = w->tick;
    img->rng = w->rng;
    img->gamma_x = w->gamma_x;
    img->gamma_y = w->gamma_y;
    img->n_predators = w->n_predators;
    memcpy(img->predators, w->predators, w->n_predators * sizeof *w->predators);
    size_t n = w->n;
    bool failed = agents_alloc(&img->list, n) != 0;
    if (!failed) agents_copy(&img->list, &w->cur, n);
    /* Per-id arrays: ids are 0 … n−1. */
    img->radius_ali = copy_floats(w->radius_ali, n, &failed);
    img->radius_coh = copy_floats(w->radius_coh, n, &failed);
    img->wander = copy_floats(w->wander, n, &failed);
    if (!failed) return 0;
    state_image_free(img);
    return -1;
}

/* ---- writing -------------------------------------------------------------- */

/* Writes out what b holds and empties it; -1 when b ran out of memory
 * (or met an enum outside its names) or the stream failed. */
static int put_buf(FILE *f, jbuf_t *b)
{
    if (b->failed) return -1;
    if (b->len && fwrite(b->buf, 1, b->len, f) != b->len) return -1;
    b->len = 0;
    return 0;
}

static void put_float_field(jbuf_t *b, const char *name, float v, bool first)
{
    jb_printf(b, "%s\"%s\":", first ? "" : ",", name);
    jb_float(b, v);
}

/* A parameter set as {"name":value,…}: every parameter, or (differences)
 * only those whose value differs from base's. */
static void put_params(jbuf_t *b, const sim_params_t *p, const sim_params_t *base)
{
    jb_raw(b, "{");
    bool first = true;
    for (size_t i = 0; i < params_count(); i++) {
        double v = params_get(p, i);
        if (base && v == params_get(base, i)) continue;
        const param_desc_t *d = params_desc(i);
        if (!first) jb_raw(b, ",");
        first = false;
        jb_string(b, d->name);
        jb_raw(b, ":");
        param_json_put(b, d, v);
    }
    jb_raw(b, "}");
}

/* Little-endian bytes of 4-byte values (floats or uint32), or single
 * bytes, as one base64 string; streamed in chunks of a multiple of three
 * bytes so that only the last one is padded. */
static void put_base64(FILE *f, const char *name, const void *data, size_t n, size_t size)
{
    enum { CHUNK = 3 * 1024 };
    uint8_t bytes[CHUNK];
    char text[CHUNK / 3 * 4];
    fprintf(f, ",\n\"%s\":\"", name);
    const uint8_t *src = data;
    size_t total = n * size, done = 0;
    while (done < total) {
        size_t m = total - done < CHUNK ? total - done : CHUNK;
        if (size == 4) {
            for (size_t k = 0; k < m; k += 4) {
                uint32_t v;
                memcpy(&v, src + done + k, 4);
                bytes[k] = (uint8_t)v, bytes[k + 1] = (uint8_t)(v >> 8);
                bytes[k + 2] = (uint8_t)(v >> 16), bytes[k + 3] = (uint8_t)(v >> 24);
            }
        } else {
            memcpy(bytes, src + done, m);
        }
        base64_encode(bytes, m, text);
        fwrite(text, 1, base64_encoded_len(m), f);
        done += m;
    }
    fputs("\"", f);
}

int state_image_print(FILE *f, const state_image_t *img)
{
    jbuf_t b;
    jb_init_growing(&b);
    jb_raw(&b, "{\"format\":");
    jb_string(&b, STATE_FILE_FORMAT);
    jb_printf(&b, ",\"version\":%d,\"server\":", STATE_FILE_VERSION);
    jb_string(&b, SERVER_NAME);
    jb_raw(&b, ",\n\"world\":{");
    put_float_field(&b, "width", img->width, true);
    put_float_field(&b, "height", img->height, false);
    jb_printf(&b, "},\"seed\":%lu,\"agents\":%zu,\"paused\":%s,\n\"params\":", (unsigned long)img->seed, img->agents,
              img->paused ? "true" : "false");
    put_params(&b, &img->params, NULL);
    /* Species 0's values are "params"; the others' only where they differ. */
    jb_raw(&b, ",\n\"species_params\":{");
    bool first = true;
    for (int s = 1; s < SIM_MAX_SPECIES; s++) {
        if (memcmp(&img->species_params[s], &img->params, sizeof img->params) == 0) continue;
        jb_printf(&b, "%s\"%d\":", first ? "" : ",", s);
        put_params(&b, &img->species_params[s], &img->params);
        first = false;
    }
    jb_raw(&b, "},\n\"obstacles\":[");
    for (size_t i = 0; i < img->n_obstacles; i++) {
        const obstacle_t *o = &img->obstacles[i];
        jb_raw(&b, i ? ",\n{" : "\n{");
        put_float_field(&b, "x", o->x, true);
        put_float_field(&b, "y", o->y, false);
        put_float_field(&b, "radius", o->r, false);
        put_float_field(&b, "vx", o->vx, false);
        put_float_field(&b, "vy", o->vy, false);
        jb_raw(&b, "}");
    }
    jb_raw(&b, "]");
    if (!img->has_agents) {
        jb_raw(&b, "}\n");
        int rc = put_buf(f, &b);
        jb_free(&b);
        return rc || ferror(f) ? -1 : 0;
    }
    jb_printf(&b, ",\n\"agent_state\":{\"tick\":%llu,\"rng\":{\"state\":\"%016llx\",\"inc\":\"%016llx\"},\"gamma\":{",
              (unsigned long long)img->tick, (unsigned long long)img->rng.state, (unsigned long long)img->rng.inc);
    put_float_field(&b, "x", img->gamma_x, true);
    put_float_field(&b, "y", img->gamma_y, false);
    jb_raw(&b, "},\n\"predators\":[");
    for (size_t i = 0; i < img->n_predators; i++) {
        const predator_t *p = &img->predators[i];
        jb_raw(&b, i ? ",{" : "{");
        put_float_field(&b, "x", p->x, true);
        put_float_field(&b, "y", p->y, false);
        put_float_field(&b, "vx", p->vx, false);
        put_float_field(&b, "vy", p->vy, false);
        jb_raw(&b, "}");
    }
    jb_raw(&b, "]");
    int rc = put_buf(f, &b);
    jb_free(&b);
    const agents_t *a = &img->list;
    size_t n = img->agents;
    put_base64(f, "id", a->id, n, 4);
    put_base64(f, "x", a->x, n, 4);
    put_base64(f, "y", a->y, n, 4);
    put_base64(f, "vx", a->vx, n, 4);
    put_base64(f, "vy", a->vy, n, 4);
    put_base64(f, "flags", a->flags, n, 1);
    if (img->radius_ali) put_base64(f, "radius_ali", img->radius_ali, n, 4);
    if (img->radius_coh) put_base64(f, "radius_coh", img->radius_coh, n, 4);
    if (img->wander) put_base64(f, "wander", img->wander, n, 4);
    fputs("}}\n", f);
    return rc || ferror(f) ? -1 : 0;
}

/* The rename is durable only once the directory is on disk too. Some file
 * systems refuse fsync on a directory; the rename is done either way. */
static void sync_directory(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    if (!dir) return;
    int fd = open(dir, O_RDONLY);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(dir);
}

int state_image_write(const state_image_t *img, const char *path, char *msg, size_t msg_len)
{
    size_t len = strlen(path);
    char *tmp = malloc(len + sizeof ".tmp");
    if (!tmp) return snprintf(msg, msg_len, "cannot write %s: out of memory", path), -1;
    memcpy(tmp, path, len);
    memcpy(tmp + len, ".tmp", sizeof ".tmp");
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(msg, msg_len, "cannot write %s: %s", tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    errno = 0;
    int rc = state_image_print(f, img);
    int err = rc ? (errno ? errno : ENOMEM) : 0;
    const char *step = "write";
    if (!rc && fflush(f)) rc = -1, err = errno;
    if (!rc && fsync(fileno(f))) rc = -1, err = errno, step = "fsync";
    if (fclose(f) && !rc) rc = -1, err = errno;
    if (!rc && rename(tmp, path)) rc = -1, err = errno, step = "rename";
    if (rc) {
        /* The file at path, if any, is still the previous one. */
        unlink(tmp);
        snprintf(msg, msg_len, "cannot %s %s: %s", step, strcmp(step, "rename") ? tmp : path, strerror(err));
    } else {
        sync_directory(path);
    }
    free(tmp);
    return rc;
}

int state_file_save(const char *path, const world_t *w, bool with_agents, char *msg, size_t msg_len)
{
    state_image_t img;
    if (state_image_capture(&img, w, with_agents))
        return snprintf(msg, msg_len, "cannot write %s: out of memory", path), -1;
    int rc = state_image_write(&img, path, msg, msg_len);
    state_image_free(&img);
    return rc;
}

/* ---- reading -------------------------------------------------------------- */

/* A name from the file quoted in a message: printable ASCII only and
 * short, so that a log line stays one clean line whatever the file holds. */
static const char *quoted(const char *s, char buf[48])
{
    size_t n = 0;
    for (; s[n] && n < 47; n++) buf[n] = (s[n] >= 0x20 && s[n] < 0x7f) ? s[n] : '?';
    buf[n] = '\0';
    return buf;
}

/* Each object is checked for names it should not have and for names given
 * twice (cJSON would silently take the first): a hand edit that typed a
 * name wrong or twice is told so instead of half applied. */
static int check_names(const cJSON *obj, const char *where, const char *const *known, size_t n_known, char *msg,
                       size_t msg_len)
{
    for (const cJSON *a = obj->child; a; a = a->next) {
        bool ok = false;
        for (size_t k = 0; k < n_known && !ok; k++) ok = strcmp(a->string, known[k]) == 0;
        char q[48];
        if (!ok) return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "%sunknown field '%s'", where, quoted(a->string, q));
        for (const cJSON *b = a->next; b; b = b->next)
            if (strcmp(a->string, b->string) == 0)
                return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "%sfield '%s' is given twice", where, quoted(a->string, q));
    }
    return 0;
}

static const cJSON *field(const cJSON *obj, const char *name) { return cJSON_GetObjectItemCaseSensitive(obj, name); }

static int get_object(const cJSON *obj, const char *name, const char *where, const cJSON **out, char *msg, size_t msg_len)
{
    const cJSON *f = field(obj, name);
    if (!f) return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "%sfield '%s' is required", where, name);
    if (!cJSON_IsObject(f)) return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "%sfield '%s' must be an object", where, name);
    *out = f;
    return 0;
}

static int get_real(const cJSON *obj, const char *name, const char *where, double lo, double hi, double *out, char *msg,
                    size_t msg_len)
{
    const cJSON *f = field(obj, name);
    if (!f) return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "%sfield '%s' is required", where, name);
    if (!cJSON_IsNumber(f) || !isfinite(f->valuedouble))
        return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "%sfield '%s' must be a finite number", where, name);
    if (f->valuedouble < lo || f->valuedouble > hi)
        return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "%sfield '%s' is %.9g, must be in [%.9g, %.9g]", where, name, f->valuedouble, lo, hi);
    *out = f->valuedouble;
    return 0;
}

static int get_whole(const cJSON *obj, const char *name, const char *where, double lo, double hi, double *out, char *msg,
                     size_t msg_len)
{
    const cJSON *f = field(obj, name);
    if (f && cJSON_IsNumber(f) && isfinite(f->valuedouble) && f->valuedouble != floor(f->valuedouble))
        return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "%sfield '%s' must be a whole number", where, name);
    return get_real(obj, name, where, lo, hi, out, msg, msg_len);
}

/* {"name": value, …} onto p: each checked as set_param checks it. */
static int read_params(const cJSON *obj, const char *where, sim_params_t *p, char *msg, size_t msg_len)
{
    bool seen[256] = {false};
    for (const cJSON *e = obj->child; e; e = e->next) {
        int index;
        double v;
        char why[200], q[48];
        /* A number too large for a double would reach the decoder as null. */
        if (cJSON_IsNumber(e) && !isfinite(e->valuedouble))
            return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "%s%s: value must be a finite number", where, quoted(e->string, q));
        if (param_from_json(e->string, e, &index, &v, why, sizeof why))
            return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "%s%s: %s", where, quoted(e->string, q), why);
        if ((size_t)index < sizeof seen && seen[index])
            return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "%s%s: given twice", where, quoted(e->string, q));
        if ((size_t)index < sizeof seen) seen[index] = true;
        if (params_set(p, (size_t)index, v, why, sizeof why) != SIM_OK)
            return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "%s%s: %s", where, quoted(e->string, q), why);
    }
    return 0;
}

static int read_species_params(const cJSON *obj, state_image_t *img, char *msg, size_t msg_len)
{
    static const char *const names[] = {"1", "2", "3"};
    _Static_assert(SIM_MAX_SPECIES == 4, "species_params names species 1 … SIM_MAX_SPECIES − 1");
    if (check_names(obj, "species_params: ", names, 3, msg, msg_len)) return STATE_FILE_INVALID;
    for (int s = 0; s < SIM_MAX_SPECIES; s++) img->species_params[s] = img->params;
    for (const cJSON *e = obj->child; e; e = e->next) {
        int s = e->string[0] - '0';
        char where[40];
        snprintf(where, sizeof where, "species_params.%d.", s);
        if (!cJSON_IsObject(e)) return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "species_params.%d must be an object", s);
        if (read_params(e, where, &img->species_params[s], msg, msg_len)) return STATE_FILE_INVALID;
    }
    return 0;
}

static int read_obstacles(const cJSON *list, const cmd_limits_t *limits, state_image_t *img, char *msg, size_t msg_len)
{
    static const char *const names[] = {"x", "y", "radius", "vx", "vy"};
    if (!cJSON_IsArray(list)) return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "'obstacles' must be an array of objects");
    size_t n = (size_t)cJSON_GetArraySize(list);
    if (n > SIM_MAX_OBSTACLES)
        return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "'obstacles' has %zu entries; at most %d", n, SIM_MAX_OBSTACLES);
    size_t i = 0;
    for (const cJSON *o = list->child; o; o = o->next, i++) {
        char where[40];
        snprintf(where, sizeof where, "obstacles[%zu]: ", i);
        if (!cJSON_IsObject(o)) return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "obstacles[%zu] must be an object", i);
        if (check_names(o, where, names, 5, msg, msg_len)) return STATE_FILE_INVALID;
        /* The network's own add_obstacle: position inside the world,
         * radius and speed in range. */
        sim_cmd_t cmd;
        char why[200];
        if (cmd_from_json("add_obstacle", o, limits, 0, &cmd, why, sizeof why))
            return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "%s%s", where, why);
        img->obstacles[i] = (obstacle_t){(uint32_t)i, cmd.x, cmd.y, cmd.radius, cmd.vx, cmd.vy, 0};
    }
    img->n_obstacles = n;
    return 0;
}

/* Sixteen hex digits, exactly. */
static int get_hex64(const cJSON *obj, const char *name, uint64_t *out, char *msg, size_t msg_len)
{
    const cJSON *f = field(obj, name);
    bool ok = cJSON_IsString(f) && strlen(f->valuestring) == 16;
    uint64_t v = 0;
    for (int k = 0; ok && k < 16; k++) {
        char c = f->valuestring[k];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        ok = d >= 0;
        v = v << 4 | (uint64_t)(d & 15);
    }
    if (!ok) return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "agent_state.rng: field '%s' must be 16 lower-case hex digits", name);
    *out = v;
    return 0;
}

/* A base64 array of n values of size bytes (little-endian) into dst, or
 * NULL when absent and optional. */
static int get_array(const cJSON *obj, const char *name, size_t n, size_t size, bool required, void **dst, char *msg,
                     size_t msg_len)
{
    const cJSON *f = field(obj, name);
    *dst = NULL;
    if (!f) return required ? text_fail_code(STATE_FILE_INVALID, msg, msg_len, "agent_state: field '%s' is required", name) : 0;
    if (!cJSON_IsString(f)) return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "agent_state: field '%s' must be a base64 string", name);
    size_t bytes = n * size;
    uint8_t *raw = malloc(bytes ? bytes : 1);
    if (!raw) return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "out of memory reading agent_state.%s", name), STATE_FILE_NO_MEMORY;
    long got = base64_decode(f->valuestring, strlen(f->valuestring), raw, bytes);
    if (got < 0 || (size_t)got != bytes) {
        free(raw);
        return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "agent_state: field '%s' must be base64 of %zu agents' values (%zu bytes)", name,
                      n, bytes);
    }
    if (size == 4)
        for (size_t k = 0; k < n; k++) {
            uint32_t v = (uint32_t)raw[4 * k] | (uint32_t)raw[4 * k + 1] << 8 | (uint32_t)raw[4 * k + 2] << 16 |
                         (uint32_t)raw[4 * k + 3] << 24;
            memcpy(raw + 4 * k, &v, 4);
        }
    *dst = raw;
    return 0;
}

static bool inside(double v, double lo, double hi) { return v >= lo && v <= hi; } /* false for NaN */

/* Each agent where a world could have it: inside, no faster than any
 * parameter allows, ids 0 … n−1 once each, the species its id gives. */
static int check_agents(const state_image_t *img, char *msg, size_t msg_len)
{
    const agents_t *a = &img->list;
    size_t n = img->agents;
    uint8_t *seen = calloc(n ? n : 1, 1);
    if (!seen) return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "out of memory checking the agents"), STATE_FILE_NO_MEMORY;
    unsigned species = (unsigned)img->params.species;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        uint32_t id = a->id[i];
        double speed = hypot((double)a->vx[i], (double)a->vy[i]);
        if (id >= n || seen[id])
            rc = text_fail_code(STATE_FILE_INVALID, msg, msg_len, "agent_state.id[%zu]: %lu is %s", i, (unsigned long)id,
                        id >= n ? "not below the population" : "given twice");
        else if (!inside(a->x[i], 0, img->width) || !inside(a->y[i], 0, img->height))
            rc = text_fail_code(STATE_FILE_INVALID, msg, msg_len, "agent %lu: position (%.9g, %.9g) is not finite or outside the %gx%g world",
                        (unsigned long)id, (double)a->x[i], (double)a->y[i], (double)img->width, (double)img->height);
        else if (!inside(speed, 0, STATE_MAX_SPEED))
            rc = text_fail_code(STATE_FILE_INVALID, msg, msg_len, "agent %lu: velocity (%.9g, %.9g) is not finite or faster than %g u/s",
                        (unsigned long)id, (double)a->vx[i], (double)a->vy[i], STATE_MAX_SPEED);
        else if ((a->flags[i] & ~(AGENT_LEADER | AGENT_SPECIES_MASK)) ||
                 (unsigned)(a->flags[i] & AGENT_SPECIES_MASK) >> AGENT_SPECIES_SHIFT != id % species)
            rc = text_fail_code(STATE_FILE_INVALID, msg, msg_len, "agent %lu: flags %u, but its id gives species %u and only the leader bit may be added",
                        (unsigned long)id, (unsigned)a->flags[i], id % species);
        else if ((img->radius_ali && !inside(img->radius_ali[id], 0, STATE_MAX_RADIUS)) ||
                 (img->radius_coh && !inside(img->radius_coh[id], 0, STATE_MAX_RADIUS)))
            rc = text_fail_code(STATE_FILE_INVALID, msg, msg_len, "agent %lu: a perception radius is not finite or outside [0, %g]",
                        (unsigned long)id, STATE_MAX_RADIUS);
        else if (img->wander && !inside(img->wander[id], 0, STATE_MAX_ANGLE))
            rc = text_fail_code(STATE_FILE_INVALID, msg, msg_len, "agent %lu: wander angle %.9g is not in [0, 2 pi]", (unsigned long)id,
                        (double)img->wander[id]);
        else
            seen[id] = 1;
    }
    free(seen);
    return rc;
}

static int read_agent_state(const cJSON *st, state_image_t *img, char *msg, size_t msg_len)
{
    static const char *const names[] = {"tick", "rng",   "gamma", "predators",  "id",         "x",     "y",
                                        "vx",   "vy",    "flags", "radius_ali", "radius_coh", "wander"};
    if (check_names(st, "agent_state: ", names, sizeof names / sizeof names[0], msg, msg_len)) return STATE_FILE_INVALID;
    double v;
    if (get_whole(st, "tick", "agent_state: ", 0, STATE_MAX_TICK, &v, msg, msg_len)) return STATE_FILE_INVALID;
    img->tick = (uint64_t)v;

    static const char *const rng_names[] = {"state", "inc"};
    const cJSON *rng = NULL;
    if (get_object(st, "rng", "agent_state: ", &rng, msg, msg_len) ||
        check_names(rng, "agent_state.rng: ", rng_names, 2, msg, msg_len) ||
        get_hex64(rng, "state", &img->rng.state, msg, msg_len) || get_hex64(rng, "inc", &img->rng.inc, msg, msg_len))
        return STATE_FILE_INVALID;
    if (!(img->rng.inc & 1)) return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "agent_state.rng: 'inc' must be odd");

    static const char *const xy[] = {"x", "y"};
    const cJSON *gamma = NULL;
    if (get_object(st, "gamma", "agent_state: ", &gamma, msg, msg_len) ||
        check_names(gamma, "agent_state.gamma: ", xy, 2, msg, msg_len) ||
        get_real(gamma, "x", "agent_state.gamma: ", 0, img->width, &v, msg, msg_len))
        return STATE_FILE_INVALID;
    img->gamma_x = (float)v;
    if (get_real(gamma, "y", "agent_state.gamma: ", 0, img->height, &v, msg, msg_len)) return STATE_FILE_INVALID;
    img->gamma_y = (float)v;

    /* Predators: as many as the parameter says, inside, at most as fast as
     * any parameter allows. */
    static const char *const pred_names[] = {"x", "y", "vx", "vy"};
    const cJSON *preds = field(st, "predators");
    if (!cJSON_IsArray(preds)) return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "agent_state: field 'predators' must be an array");
    size_t n_pred = (size_t)cJSON_GetArraySize(preds);
    if (n_pred != (size_t)img->params.predators)
        return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "agent_state: %zu predators, but the parameter 'predators' is %d", n_pred,
                      img->params.predators);
    size_t k = 0;
    for (const cJSON *p = preds->child; p; p = p->next, k++) {
        char where[48];
        snprintf(where, sizeof where, "agent_state.predators[%zu]: ", k);
        double x, y, vx, vy;
        if (!cJSON_IsObject(p)) return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "agent_state.predators[%zu] must be an object", k);
        if (check_names(p, where, pred_names, 4, msg, msg_len) ||
            get_real(p, "x", where, 0, img->width, &x, msg, msg_len) ||
            get_real(p, "y", where, 0, img->height, &y, msg, msg_len) ||
            get_real(p, "vx", where, -STATE_MAX_SPEED, STATE_MAX_SPEED, &vx, msg, msg_len) ||
            get_real(p, "vy", where, -STATE_MAX_SPEED, STATE_MAX_SPEED, &vy, msg, msg_len))
            return STATE_FILE_INVALID;
        img->predators[k] = (predator_t){(float)x, (float)y, (float)vx, (float)vy};
    }
    img->n_predators = n_pred;

    size_t n = img->agents;
    void *arr[9];
    static const char *const arr_names[] = {"id", "x", "y", "vx", "vy", "flags", "radius_ali", "radius_coh", "wander"};
    for (size_t i = 0; i < 9; i++) arr[i] = NULL;
    int rc = 0;
    for (size_t i = 0; i < 9 && !rc; i++)
        rc = get_array(st, arr_names[i], n, i == 5 ? 1 : 4, i < 6, &arr[i], msg, msg_len);
    img->list = (agents_t){arr[1], arr[2], arr[3], arr[4], arr[0], arr[5]};
    img->radius_ali = arr[6];
    img->radius_coh = arr[7];
    img->wander = arr[8];
    if (rc) return rc; /* the caller frees what was read */
    if (!img->radius_ali != !img->radius_coh)
        return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "agent_state: 'radius_ali' and 'radius_coh' go together");
    return check_agents(img, msg, msg_len);
}

static int parse_root(const cJSON *root, const cmd_limits_t *limits, state_image_t *img, char *msg, size_t msg_len)
{
    if (!cJSON_IsObject(root)) return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "the file must hold one JSON object");
    const cJSON *format = field(root, "format");
    if (!cJSON_IsString(format) || strcmp(format->valuestring, STATE_FILE_FORMAT) != 0)
        return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "not a swarmcast state file (field 'format' must be \"%s\")", STATE_FILE_FORMAT);
    const cJSON *version = field(root, "version");
    if (!cJSON_IsNumber(version)) return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "field 'version' must be a number");
    if (version->valuedouble != STATE_FILE_VERSION)
        return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "version %.9g is not supported (this server reads version %d)", version->valuedouble,
                      STATE_FILE_VERSION);
    static const char *const names[] = {"format", "version", "server",         "world",     "seed",       "agents",
                                        "paused", "params",  "species_params", "obstacles", "agent_state"};
    if (check_names(root, "", names, sizeof names / sizeof names[0], msg, msg_len)) return STATE_FILE_INVALID;
    const cJSON *server = field(root, "server");
    if (server && !cJSON_IsString(server)) return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "field 'server' must be a string");

    /* The world's size is the server's (a flag); a file for another size
     * would put obstacles and agents where this world has no room. */
    static const char *const size_names[] = {"width", "height"};
    const cJSON *world = NULL;
    double v;
    if (get_object(root, "world", "", &world, msg, msg_len) || check_names(world, "world: ", size_names, 2, msg, msg_len) ||
        get_real(world, "width", "world: ", 0, 1e9, &v, msg, msg_len))
        return STATE_FILE_INVALID;
    img->width = (float)v;
    if (get_real(world, "height", "world: ", 0, 1e9, &v, msg, msg_len)) return STATE_FILE_INVALID;
    img->height = (float)v;
    if (img->width != limits->width || img->height != limits->height)
        return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "the file is for a %gx%g world; this one is %gx%g", (double)img->width,
                      (double)img->height, (double)limits->width, (double)limits->height);

    if (get_whole(root, "seed", "", 0, UINT32_MAX, &v, msg, msg_len)) return STATE_FILE_INVALID;
    img->seed = (uint32_t)v;
    if (get_whole(root, "agents", "", 0, (double)limits->max_agents, &v, msg, msg_len)) return STATE_FILE_INVALID;
    img->agents = (size_t)v;
    const cJSON *paused = field(root, "paused");
    if (!cJSON_IsBool(paused)) return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "field 'paused' must be true or false");
    img->paused = cJSON_IsTrue(paused);

    /* A parameter the file does not name keeps its default: a file written
     * before that parameter existed means the behaviour it had then. */
    const cJSON *obj = NULL;
    params_defaults(&img->params);
    if (get_object(root, "params", "", &obj, msg, msg_len) || read_params(obj, "params.", &img->params, msg, msg_len) ||
        get_object(root, "species_params", "", &obj, msg, msg_len) || read_species_params(obj, img, msg, msg_len))
        return STATE_FILE_INVALID;

    const cJSON *obstacles = field(root, "obstacles");
    if (!obstacles) return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "field 'obstacles' is required");
    if (read_obstacles(obstacles, limits, img, msg, msg_len)) return STATE_FILE_INVALID;

    const cJSON *st = field(root, "agent_state");
    if (!st) return STATE_FILE_OK;
    if (!cJSON_IsObject(st)) return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "field 'agent_state' must be an object");
    img->has_agents = true;
    return read_agent_state(st, img, msg, msg_len);
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

int state_file_parse(const char *text, size_t len, const cmd_limits_t *limits, state_image_t *img, char *msg,
                     size_t msg_len)
{
    memset(img, 0, sizeof *img);
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
    if (!root) {
        /* Where it broke, for a person with an editor. This server's files
         * end with "}": one that does not was cut off (a full disk, a
         * copy interrupted). */
        size_t at = end && end >= text ? (size_t)(end - text) : 0, line = 1, first = 0, last = len;
        for (size_t i = 0; i < at && i < len; i++) line += text[i] == '\n';
        while (first < len && is_space(text[first])) first++;
        while (last > first && is_space(text[last - 1])) last--;
        bool cut = first < last && text[first] == '{' && text[last - 1] != '}';
        return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "not valid JSON (near line %zu of %zu bytes)%s", line, len,
                      cut ? ": the file ends too early" : "");
    }
    for (const char *p = end; p < text + len; p++)
        if (!is_space(*p)) {
            cJSON_Delete(root);
            return text_fail_code(STATE_FILE_INVALID, msg, msg_len, "text after the JSON object");
        }
    int rc = parse_root(root, limits, img, msg, msg_len);
    cJSON_Delete(root);
    if (rc) state_image_free(img);
    return rc;
}

/* ---- restoring ------------------------------------------------------------- */

int state_image_apply(const state_image_t *img, world_t *w, char *msg, size_t msg_len)
{
    if (world_adopt_params(w, &img->params, img->species_params)) goto fail;
    /* The population as a reset draws it (speeds follow the parameters
     * just set); that also clears obstacles and restarts the tick. */
    if (world_reset(w, img->seed, img->agents) != SIM_OK) goto fail;
    if (img->has_agents) {
        /* Then every agent as it was, in the same order: the step's
         * neighbour sums run in storage order, so that is what keeps the
         * restored world on the saved one's path bit for bit. */
        size_t n = img->agents;
        agents_copy(&w->cur, &img->list, n);
        w->tick = img->tick;
        /* Today the generator's state follows from the seed and the number
         * of agents ever drawn, which the reset above repeats; it is kept
         * so that this stays exact should anything else draw from it. */
        w->rng = img->rng;
        w->gamma_x = img->gamma_x;
        w->gamma_y = img->gamma_y;
        /* The parameter made as many predators as the image has. */
        if (w->n_predators == img->n_predators)
            memcpy(w->predators, img->predators, img->n_predators * sizeof *img->predators);
        /* Per-agent feature state, where both sides have the feature on. */
        if (w->radius_ali && img->radius_ali) memcpy(w->radius_ali, img->radius_ali, n * sizeof(float));
        if (w->radius_coh && img->radius_coh) memcpy(w->radius_coh, img->radius_coh, n * sizeof(float));
        if (w->wander && img->wander) memcpy(w->wander, img->wander, n * sizeof(float));
        /* The delayed-feedback memory is not kept: it starts again from now. */
        if (world_agents_placed(w) != SIM_OK) goto fail;
    }
    for (size_t i = 0; i < img->n_obstacles; i++) {
        const obstacle_t *o = &img->obstacles[i];
        if (world_add_moving_obstacle(w, o->x, o->y, o->r, o->vx, o->vy, NULL) != SIM_OK) goto fail;
    }
    w->paused = img->paused;
    return STATE_FILE_OK;
fail:
    snprintf(msg, msg_len, "out of memory restoring the state; the world is partly restored");
    return STATE_FILE_NO_MEMORY;
}

/* The whole file, if it can be one: a regular file no larger than cap. */
static int read_whole(const char *path, size_t cap, char **text, size_t *len, char *msg, size_t msg_len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        int err = errno;
        snprintf(msg, msg_len, "%s %s: %s", err == ENOENT ? "no state file at" : "cannot read", path, strerror(err));
        return err == ENOENT ? STATE_FILE_MISSING : STATE_FILE_UNREADABLE;
    }
    struct stat st;
    int rc = STATE_FILE_UNREADABLE;
    char *buf = NULL;
    if (fstat(fileno(f), &st)) {
        snprintf(msg, msg_len, "cannot read %s: %s", path, strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        snprintf(msg, msg_len, "cannot read %s: not a regular file", path);
    } else if ((uintmax_t)st.st_size > cap) {
        rc = text_fail_code(STATE_FILE_INVALID, msg, msg_len, "%s is %jd bytes, more than a state file for this world can be (%zu)", path,
                    (intmax_t)st.st_size, cap);
    } else if (!(buf = malloc((size_t)st.st_size + 1))) {
        snprintf(msg, msg_len, "cannot read %s: out of memory", path);
        rc = STATE_FILE_NO_MEMORY;
    } else {
        /* Should the file shrink meanwhile, the text is what was read. */
        size_t n = fread(buf, 1, (size_t)st.st_size, f);
        if (ferror(f)) {
            snprintf(msg, msg_len, "cannot read %s: %s", path, strerror(errno));
        } else {
            buf[n] = '\0';
            *text = buf;
            *len = n;
            buf = NULL;
            rc = STATE_FILE_OK;
        }
    }
    free(buf);
    fclose(f);
    return rc;
}

int state_file_load(const char *path, world_t *w, char *msg, size_t msg_len)
{
    size_t cap = STATE_FILE_FIXED_BYTES + w->max_agents * STATE_FILE_BYTES_PER_AGENT;
    char *text = NULL;
    size_t len = 0;
    int rc = read_whole(path, cap, &text, &len, msg, msg_len);
    if (rc) return rc;
    cmd_limits_t limits = {w->width, w->height, w->max_agents};
    state_image_t img;
    char why[400];
    rc = state_file_parse(text, len, &limits, &img, why, sizeof why);
    free(text);
    if (rc) return snprintf(msg, msg_len, "%s: %s", path, why), rc;
    rc = state_image_apply(&img, w, why, sizeof why);
    state_image_free(&img);
    if (rc) snprintf(msg, msg_len, "%s: %s", path, why);
    return rc;
}

/* ---- a bad file kept aside ------------------------------------------------- */

int state_file_set_aside(const char *path, char *moved_to, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;
    char stamp[32];
    if (!gmtime_r(&now, &tm) || !strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm)) return errno = EINVAL, -1;
    size_t size = strlen(path) + 64;
    char *name = malloc(size);
    if (!name) return errno = ENOMEM, -1;
    int rc = -1;
    for (int k = 1; k <= 1000; k++) {
        if (k == 1) snprintf(name, size, "%s.bad-%s", path, stamp);
        else snprintf(name, size, "%s.bad-%s-%d", path, stamp, k);
        /* link fails when the name exists, so an earlier bad file is never
         * replaced; then the original name goes. */
        if (link(path, name) == 0) {
            if (unlink(path) == 0) rc = 0;
            else {
                int err = errno;
                unlink(name);
                errno = err;
            }
            break;
        }
        if (errno == EEXIST) continue;
        if (errno != EPERM && errno != EXDEV && errno != EMLINK && errno != ENOSYS && errno != EOPNOTSUPP) break;
        /* A file system without hard links: rename, once the name is
         * seen to be free. */
        struct stat st;
        if (lstat(name, &st) == 0) continue;
        if (errno == ENOENT && rename(path, name) == 0) rc = 0;
        break;
    }
    int err = errno;
    if (rc == 0 && moved_to && len) snprintf(moved_to, len, "%s", name);
    free(name);
    errno = err;
    return rc;
}
