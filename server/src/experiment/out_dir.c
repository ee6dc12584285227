#include "experiment/out_dir.h"

#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "persist/whole_file.h"
#include "protocol/utf8.h"

int out_dir_lock(const char *dir, int *fd, char *msg, size_t msg_len)
{
    char path[4096];
    *fd = -1;
    if (mkdir(dir, 0777) && errno != EEXIST) return text_fail(msg, msg_len, "cannot create %s: %s", dir, strerror(errno));
    if (out_dir_path(dir, ".lock", path, sizeof path)) return text_fail(msg, msg_len, "%s: path too long", dir);
    int f = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (f < 0) return text_fail(msg, msg_len, "cannot write %s: %s", path, strerror(errno));
    if (flock(f, LOCK_EX | LOCK_NB)) {
        int err = errno;
        close(f);
        return text_fail(msg, msg_len, "%s", err == EWOULDBLOCK ? "another `swarmcast experiment` is writing this folder; "
                                                                  "give each shard its own --out and merge them"
                                                                : strerror(err));
    }
    *fd = f;
    return 0;
}

void out_dir_unlock(int fd)
{
    if (fd >= 0) close(fd); /* closing releases the lock */
}

int out_dir_path(const char *dir, const char *name, char *out, size_t out_len)
{
    int n = snprintf(out, out_len, "%s/%s", dir, name);
    return n < 0 || (size_t)n >= out_len ? -1 : 0;
}

int out_dir_write(const char *dir, const char *name, const char *text, size_t len, char *msg, size_t msg_len)
{
    char path[4096], tmp[4200];
    if (out_dir_path(dir, name, path, sizeof path)) return text_fail(msg, msg_len, "%s: path too long", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) return text_fail(msg, msg_len, "cannot write %s: %s", tmp, strerror(errno));
    bool bad = fwrite(text, 1, len, f) != len;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path)) {
        int err = errno;
        unlink(tmp);
        return text_fail(msg, msg_len, "cannot write %s: %s", path, strerror(err));
    }
    return 0;
}

static int copy_table(const experiment_t *e, const char *dir, char *msg, size_t msg_len)
{
    size_t len;
    char *text = whole_file_read(e->table_path, &len);
    if (!text) return text_fail(msg, msg_len, "design.table: cannot read %s: %s", e->table_path, strerror(errno));
    int rc = out_dir_write(dir, "design.csv", text, len, msg, msg_len);
    free(text);
    return rc;
}

int out_dir_prepare(const char *file, const experiment_t *e, const char *dir, char *msg, size_t msg_len)
{
    if (mkdir(dir, 0777) && errno != EEXIST) return text_fail(msg, msg_len, "cannot create %s: %s", dir, strerror(errno));
    size_t len;
    char *text = whole_file_read(file, &len);
    cJSON *root = text ? cJSON_Parse(text) : NULL;
    free(text);
    cJSON *scenario = cJSON_Parse(e->scenario_json);
    int rc = 0;
    if (!root || !scenario) {
        rc = text_fail(msg, msg_len, "cannot read %s again", file);
    } else {
        /* the scenario inlined, the table beside it */
        cJSON_DeleteItemFromObjectCaseSensitive(root, "scenario");
        cJSON_AddItemToObject(root, "scenario", scenario);
        scenario = NULL;
        if (e->design == DESIGN_TABLE) {
            cJSON_DeleteItemFromObjectCaseSensitive(root, "design");
            cJSON *d = cJSON_AddObjectToObject(root, "design");
            if (!d || !cJSON_AddStringToObject(d, "table", "design.csv")) rc = text_fail(msg, msg_len, "out of memory");
            if (!rc) rc = copy_table(e, dir, msg, msg_len);
        }
    }
    char *out = rc ? NULL : cJSON_Print(root);
    if (!rc && !out) rc = text_fail(msg, msg_len, "out of memory");
    if (!rc) {
        size_t n = strlen(out);
        rc = out_dir_write(dir, "experiment.json", out, n, msg, msg_len);
    }
    if (!rc) rc = out_dir_write(dir, "scenario.json", e->scenario_json, strlen(e->scenario_json), msg, msg_len);
    free(out);
    cJSON_Delete(root);
    cJSON_Delete(scenario);
    return rc;
}
