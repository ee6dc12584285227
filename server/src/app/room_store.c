/* room_store: the rooms kept in --state-dir (loop thread). Each made room
 * has two files in DIR/rooms/: CODE.room, what it is (its code, name and
 * operators' token; a small JSON object, readable by the server's user
 * only), and CODE.state, its set-up (the state file's format, written every
 * --state-every seconds and when it closes). A room that closes because
 * nobody came back stays here and reopens by its code; one its operators
 * close is forgotten, files and all. At start every kept room is known by
 * its code, so a restart keeps them all; they reopen as people come. At
 * most ROOMS_KEPT_PER_OPEN × --max-rooms are kept: past that, the one used
 * longest ago is forgotten, so that the disk stays bounded whatever people
 * make. */
#include <cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app_internal.h"
#include "persist/whole_file.h"

#define ROOMS_KEPT_PER_OPEN 10
#define ROOMS_KEPT_MIN 100
/* A .room file is a few hundred bytes; anything larger is not ours. */
#define ROOM_FILE_MAX_BYTES 4096

static size_t kept_max(const app_t *a)
{
    size_t n = a->cfg.max_rooms * ROOMS_KEPT_PER_OPEN;
    return n > ROOMS_KEPT_MIN ? n : ROOMS_KEPT_MIN;
}

/* DIR/rooms/CODE.EXT into path (false when it does not fit). */
static bool file_of(const app_t *a, const char *code, const char *ext, char *path, size_t len)
{
    int n = snprintf(path, len, "%s/rooms/%s.%s", a->cfg.state_dir, code, ext);
    return n > 0 && (size_t)n < len;
}

char *room_store_state_path(const app_t *a, const char *code)
{
    char path[4096];
    return a->cfg.state_dir && file_of(a, code, "state", path, sizeof path) ? strdup(path) : NULL;
}

/* A kept room from its .room file's text: false when anything is off. */
static bool parse_kept(const char *text, size_t len, kept_room_t *out)
{
    cJSON *root = cJSON_ParseWithLength(text, len);
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(root, "code");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(root, "name");
    const cJSON *token = cJSON_GetObjectItemCaseSensitive(root, "token");
    const cJSON *used = cJSON_GetObjectItemCaseSensitive(root, "last_used");
    char why[160];
    bool ok = cJSON_IsString(code) && cJSON_IsString(name) && cJSON_IsString(token) && cJSON_IsNumber(used) &&
              room_code_normalize(code->valuestring, out->code) && !strcmp(out->code, code->valuestring) &&
              strlen(token->valuestring) == ROOM_TOKEN_BYTES && room_token_shaped(token->valuestring) &&
              (!name->valuestring[0] || presence_clean_name(name->valuestring, out->name, why, sizeof why) == 0);
    if (ok) {
        if (!name->valuestring[0]) out->name[0] = 0;
        memcpy(out->token, token->valuestring, ROOM_TOKEN_BYTES + 1);
        out->last_used_s = used->valuedouble > 0 ? (int64_t)used->valuedouble : 0;
    }
    cJSON_Delete(root);
    return ok;
}

static kept_room_t *find_kept(app_t *a, const char *code)
{
    for (size_t i = 0; i < a->n_kept; i++)
        if (!strcmp(a->kept[i].code, code)) return &a->kept[i];
    return NULL;
}

static void unlink_files(const app_t *a, const char *code)
{
    char path[4096];
    if (file_of(a, code, "room", path, sizeof path)) unlink(path);
    if (file_of(a, code, "state", path, sizeof path)) unlink(path);
}

/* Drops the entry at i from the table (the files stay). */
static void drop_kept(app_t *a, size_t i) { a->kept[i] = a->kept[--a->n_kept]; }

int room_store_open(app_t *a)
{
    if (!a->cfg.state_dir) return 0;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/rooms", a->cfg.state_dir);
    if ((mkdir(a->cfg.state_dir, 0700) && errno != EEXIST) || (mkdir(dir, 0700) && errno != EEXIST)) {
        fprintf(stderr, "swarmcast: cannot make --state-dir %s: %s\n", dir, strerror(errno));
        return -1;
    }
    a->kept = calloc(kept_max(a), sizeof *a->kept);
    if (!a->kept) {
        fprintf(stderr, "swarmcast: out of memory for --state-dir's rooms\n");
        return -1;
    }
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "swarmcast: cannot read --state-dir %s: %s\n", dir, strerror(errno));
        return -1;
    }
    struct dirent *e;
    size_t refused = 0;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n != ROOM_CODE_LEN + 5 || strcmp(e->d_name + ROOM_CODE_LEN, ".room")) continue;
        char path[4200], *text = NULL;
        size_t len = 0;
        kept_room_t k = {0};
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) || !S_ISREG(st.st_mode) || st.st_size > ROOM_FILE_MAX_BYTES ||
            !(text = whole_file_read(path, &len)) || !parse_kept(text, len, &k) || strncmp(e->d_name, k.code, ROOM_CODE_LEN)) {
            refused++;
            free(text);
            continue;
        }
        free(text);
        if (a->n_kept == kept_max(a)) {
            refused++;
            continue;
        }
        a->kept[a->n_kept++] = k;
    }
    closedir(d);
    fprintf(stderr, "swarmcast: %zu rooms kept in %s%s\n", a->n_kept, dir, refused ? " (some files refused: not rooms)" : "");
    return 0;
}

void room_store_destroy(app_t *a)
{
    free(a->kept);
    a->kept = NULL;
    a->n_kept = 0;
}

const kept_room_t *room_store_find(app_t *a, const char *code) { return a->cfg.state_dir ? find_kept(a, code) : NULL; }

bool room_store_code_taken(app_t *a, const char *code) { return room_store_find(a, code) != NULL; }

int room_store_write(app_t *a, const room_t *r)
{
    if (!a->cfg.state_dir || r == a->home) return 0;
    char path[4096], tmp[4200];
    if (!file_of(a, r->code, "room", path, sizeof path)) return -1;
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "code", r->code);
    cJSON_AddStringToObject(root, "name", r->name);
    cJSON_AddStringToObject(root, "token", r->token);
    cJSON_AddNumberToObject(root, "last_used", (double)time(NULL));
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    /* Its token makes operators: readable by the server's user only. */
    int fd = text ? open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600) : -1;
    bool ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text) && fsync(fd) == 0;
    if (fd >= 0) ok = close(fd) == 0 && ok;
    ok = ok && rename(tmp, path) == 0;
    if (!ok) {
        fprintf(stderr, "swarmcast: cannot keep room %s in %s: %s\n", r->code, path, strerror(errno));
        unlink(tmp);
    }
    free(text);
    return ok ? 0 : -1;
}

void room_store_forget(app_t *a, const char *code)
{
    if (!a->cfg.state_dir) return;
    unlink_files(a, code);
    kept_room_t *k = find_kept(a, code);
    if (k) drop_kept(a, (size_t)(k - a->kept));
}

void room_store_keep(app_t *a, const room_t *r)
{
    if (!a->cfg.state_dir || find_kept(a, r->code)) return;
    if (a->n_kept == kept_max(a)) {
        /* Full: the one used longest ago goes, files and all. */
        size_t oldest = 0;
        for (size_t i = 1; i < a->n_kept; i++)
            if (a->kept[i].last_used_s < a->kept[oldest].last_used_s) oldest = i;
        unlink_files(a, a->kept[oldest].code);
        drop_kept(a, oldest);
    }
    kept_room_t *k = &a->kept[a->n_kept++];
    *k = (kept_room_t){.last_used_s = (int64_t)time(NULL)};
    memcpy(k->code, r->code, sizeof k->code);
    memcpy(k->name, r->name, sizeof k->name);
    memcpy(k->token, r->token, sizeof k->token);
}

void room_store_reopened(app_t *a, const char *code)
{
    kept_room_t *k = find_kept(a, code);
    if (k) drop_kept(a, (size_t)(k - a->kept));
}
