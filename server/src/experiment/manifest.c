#include "experiment/manifest.h"

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "experiment/out_dir.h"
#include "machine.h"
#include "sim/kernel_isa.h"
#include "persist/whole_file.h"
#include "protocol/utf8.h"

#ifndef SWARMCAST_COMMIT
#define SWARMCAST_COMMIT "unknown"
#endif

static void add_time(cJSON *o, const char *name, time_t t)
{
    char text[32];
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
    cJSON_AddStringToObject(o, name, text);
}

static cJSON *machine(void)
{
    cJSON *m = cJSON_CreateObject();
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    char cpu[160];
    machine_cpu_name(cpu, sizeof cpu);
    cJSON_AddStringToObject(m, "host", host);
    cJSON_AddStringToObject(m, "cpu", cpu);
    cJSON_AddStringToObject(m, "instruction_set", machine_instruction_set());
    /* What the CPU offers and what the kernels run can differ (an AVX2 build
     * on an AVX-512 machine); results are only comparable on the latter. */
    cJSON_AddStringToObject(m, "kernels", kernel_isa());
    cJSON_AddNumberToObject(m, "cores", (double)sysconf(_SC_NPROCESSORS_ONLN));
    return m;
}

int manifest_write(const char *dir, const run_plan_t *plan, const journal_index_t *idx, const manifest_info_t *info,
                   char *msg, size_t msg_len)
{
    char path[4096];
    size_t len;
    char *experiment_text = out_dir_path(dir, "experiment.json", path, sizeof path) ? NULL : whole_file_read(path, &len);
    cJSON *root = cJSON_CreateObject();
    cJSON *experiment = experiment_text ? cJSON_Parse(experiment_text) : NULL;
    free(experiment_text);
    if (!root || !experiment) {
        cJSON_Delete(root);
        cJSON_Delete(experiment);
        return text_fail(msg, msg_len, "cannot read %s", path);
    }
    cJSON_AddItemToObject(root, "experiment", experiment);
    cJSON *program = cJSON_AddObjectToObject(root, "program");
    cJSON_AddStringToObject(program, "version", SWARMCAST_VERSION);
    cJSON_AddStringToObject(program, "commit", SWARMCAST_COMMIT);
    cJSON_AddItemToObject(root, "machine", machine());
    add_time(root, "started", info->started);
    add_time(root, "ended", info->ended);
    if (info->workers) cJSON_AddNumberToObject(root, "workers", info->workers);
    cJSON_AddStringToObject(root, "share", info->share);

    size_t counts[3] = {0, 0, 0};
    cJSON *runs = cJSON_CreateArray();
    for (size_t i = 0; i < plan->n_runs; i++) {
        const journal_entry_t *e = &idx->entries[i];
        counts[e->state]++;
        cJSON *r = cJSON_CreateObject();
        char id[17];
        run_id_text(plan->runs[i].id, id);
        cJSON_AddStringToObject(r, "id", id);
        cJSON_AddStringToObject(r, "status", e->state == RUN_OK ? "ok" : e->state == RUN_FAILED ? "failed" : "not_done");
        if (e->why) cJSON_AddStringToObject(r, "why", e->why);
        if (e->deliveries) cJSON_AddNumberToObject(r, "deliveries", e->deliveries);
        cJSON_AddItemToArray(runs, r);
    }
    cJSON *totals = cJSON_AddObjectToObject(root, "totals");
    cJSON_AddNumberToObject(totals, "runs", (double)plan->n_runs);
    cJSON_AddNumberToObject(totals, "ok", (double)counts[RUN_OK]);
    cJSON_AddNumberToObject(totals, "failed", (double)counts[RUN_FAILED]);
    cJSON_AddNumberToObject(totals, "not_done", (double)counts[RUN_NOT_DONE]);
    cJSON_AddItemToObject(root, "runs", runs);
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) return text_fail(msg, msg_len, "out of memory");
    int rc = out_dir_write(dir, "manifest.json", text, strlen(text), msg, msg_len);
    free(text);
    return rc;
}
