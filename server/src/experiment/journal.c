#include "experiment/journal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "protocol/utf8.h"

int journal_index_init(journal_index_t *idx, const run_plan_t *plan)
{
    memset(idx, 0, sizeof *idx);
    idx->n_runs = plan->n_runs;
    idx->entries = calloc(plan->n_runs ? plan->n_runs : 1, sizeof *idx->entries);
    return idx->entries ? 0 : -1;
}

void journal_index_free(journal_index_t *idx)
{
    for (size_t i = 0; i < idx->n_runs && idx->entries; i++) free(idx->entries[i].why);
    free(idx->entries);
    for (size_t k = 0; k < idx->n_paths; k++) {
        free(idx->paths[k]);
        if (idx->files[k]) fclose(idx->files[k]);
    }
    free(idx->paths);
    free(idx->files);
    memset(idx, 0, sizeof *idx);
}

static int add_path(journal_index_t *idx, const char *path)
{
    char **grown = realloc(idx->paths, (idx->n_paths + 1) * sizeof *grown);
    if (!grown) return -1;
    idx->paths = grown;
    FILE **files = realloc(idx->files, (idx->n_paths + 1) * sizeof *files);
    if (!files) return -1;
    idx->files = files;
    idx->files[idx->n_paths] = NULL;
    if (!(idx->paths[idx->n_paths] = strdup(path))) return -1;
    idx->n_paths++;
    return 0;
}

/* One block's opening line. */
typedef struct {
    uint64_t id;
    size_t index;
    bool ok;
    uint64_t rows;
    uint32_t deliveries;
    char why[300];
} block_head_t;

static bool parse_head(const char *line, block_head_t *h)
{
    char status[8];
    int used = 0;
    if (sscanf(line, "@run %16" SCNx64 " %zu %7s %" SCNu64 "%n", &h->id, &h->index, status, &h->rows, &used) != 4)
        return false;
    h->ok = strcmp(status, "ok") == 0;
    if (!h->ok && strcmp(status, "failed") != 0) return false;
    const char *why = line + used;
    while (*why == ' ') why++;
    h->deliveries = 0;
    unsigned d;
    int d_used = 0;
    if (sscanf(why, "deliveries=%u%n", &d, &d_used) == 1 && d_used > 0) {
        h->deliveries = d;
        why += d_used;
        while (*why == ' ') why++;
    }
    snprintf(h->why, sizeof h->why, "%.*s", (int)strcspn(why, "\n"), why);
    return true;
}

int journal_read(journal_index_t *idx, const run_plan_t *plan, const char *path, bool repair, char *msg,
                 size_t msg_len)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT) return 0;
        return text_fail(msg, msg_len, "cannot read %s: %s", path, strerror(errno));
    }
    if (add_path(idx, path)) {
        fclose(f);
        return text_fail(msg, msg_len, "out of memory");
    }
    uint32_t source = (uint32_t)(idx->n_paths - 1);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    uint64_t pos = 0, good_end = 0; /* the end of the last whole block */
    bool in_block = false;
    block_head_t h = {0};
    uint64_t rows_from = 0, rows_seen = 0;
    int rc = 0;
    while ((n = getline(&line, &cap, f)) >= 0) {
        uint64_t line_start = pos;
        pos += (uint64_t)n;
        if (!in_block) {
            if (!parse_head(line, &h)) break; /* not a journal line: the torn end, or damage */
            in_block = true;
            rows_from = pos;
            rows_seen = 0;
            continue;
        }
        if (strncmp(line, "@end ", 5) != 0) {
            rows_seen++;
            continue;
        }
        uint64_t end_id;
        if (sscanf(line, "@end %16" SCNx64, &end_id) != 1 || end_id != h.id || rows_seen != h.rows) break;
        in_block = false;
        good_end = pos;
        if (h.index >= plan->n_runs || plan->runs[h.index].id != h.id) continue; /* not a run of this plan */
        journal_entry_t *e = &idx->entries[h.index];
        if (e->state == RUN_OK) continue; /* the first success stands */
        free(e->why);
        e->why = NULL;
        if (h.ok) {
            *e = (journal_entry_t){.state = RUN_OK,
                                   .source = source,
                                   .offset = rows_from,
                                   .length = line_start - rows_from,
                                   .deliveries = h.deliveries};
        } else {
            *e = (journal_entry_t){.state = RUN_FAILED, .source = source, .deliveries = h.deliveries};
            if (!(e->why = strdup(h.why))) rc = text_fail(msg, msg_len, "out of memory");
        }
    }
    bool torn = pos != good_end;
    free(line);
    if (!rc && ferror(f)) rc = text_fail(msg, msg_len, "cannot read %s: %s", path, strerror(errno));
    fclose(f);
    if (!rc && torn && repair && truncate(path, (off_t)good_end))
        rc = text_fail(msg, msg_len, "cannot cut the torn end off %s: %s", path, strerror(errno));
    if (!rc && torn && !repair)
        rc = text_fail(msg, msg_len, "%s ends in the middle of a run's block (resume that sweep to repair it)", path);
    return rc;
}

int journal_append(FILE *f, uint64_t id, size_t index, bool ok, const char *rows, size_t len, size_t n_rows,
                   const char *why)
{
    return journal_append_delivered(f, id, index, ok, rows, len, n_rows, why, 0);
}

int journal_append_delivered(FILE *f, uint64_t id, size_t index, bool ok, const char *rows, size_t len,
                             size_t n_rows, const char *why, uint32_t deliveries)
{
    char hex[17], delivered[32] = "";
    run_id_text(id, hex);
    if (deliveries) snprintf(delivered, sizeof delivered, " deliveries=%" PRIu32, deliveries);
    if (ok) {
        fprintf(f, "@run %s %zu ok %zu%s\n", hex, index, n_rows, delivered);
        if (len) fwrite(rows, 1, len, f);
    } else {
        /* one line: the reason's line breaks become spaces */
        fprintf(f, "@run %s %zu failed 0%s ", hex, index, delivered);
        for (const char *p = why ? why : "failed"; *p; p++) fputc(*p == '\n' || *p == '\r' ? ' ' : *p, f);
        fputc('\n', f);
    }
    fprintf(f, "@end %s\n", hex);
    return fflush(f) || ferror(f) ? -1 : 0;
}

int journal_rows(journal_index_t *idx, size_t i, char **text, size_t *len)
{
    const journal_entry_t *e = &idx->entries[i];
    *text = NULL;
    *len = 0;
    if (e->state != RUN_OK) return 0;
    FILE **f = &idx->files[e->source];
    if (!*f && !(*f = fopen(idx->paths[e->source], "r"))) return -1;
    char *buf = malloc((size_t)e->length + 1);
    if (!buf) return -1;
    if (fseeko(*f, (off_t)e->offset, SEEK_SET) || fread(buf, 1, (size_t)e->length, *f) != e->length) {
        free(buf);
        return -1;
    }
    buf[e->length] = '\0';
    *text = buf;
    *len = (size_t)e->length;
    return 0;
}
