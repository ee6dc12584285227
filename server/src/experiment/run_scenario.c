#include "experiment/run_scenario.h"

#include <cJSON.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/out_dir.h"
#include "experiment/run_plan.h"
#include "sim/params.h"

enum { EXIT_OK = 0, EXIT_IO = 1, EXIT_USAGE = 2 };

static void replace(cJSON *obj, const char *name, cJSON *value)
{
    cJSON_DeleteItemFromObjectCaseSensitive(obj, name);
    cJSON_AddItemToObject(obj, name, value);
}

/* A factor's value as the scenario format writes it. */
static cJSON *json_value(const factor_t *f, double v)
{
    if (f->param == EXPERIMENT_FACTOR_AGENTS) return cJSON_CreateNumber(v);
    const param_desc_t *d = params_desc((size_t)f->param);
    if (d->type == PARAM_BOOL) return cJSON_CreateBool(v != 0);
    if (d->type == PARAM_ENUM) return cJSON_CreateString(d->enum_names[(int)v]);
    return cJSON_CreateNumber(v);
}

static cJSON *scenario_of(const experiment_t *e, const run_plan_t *plan, size_t i)
{
    cJSON *s = cJSON_Parse(e->scenario_json);
    if (!s) return NULL;
    replace(s, "seed", cJSON_CreateNumber(plan->runs[i].seed));
    replace(s, "steps", cJSON_CreateNumber((double)e->steps));
    cJSON *params = cJSON_GetObjectItemCaseSensitive(s, "params");
    if (!params) params = cJSON_AddObjectToObject(s, "params");
    for (size_t j = 0; j < e->n_factors; j++) {
        const factor_t *f = &e->factors[j];
        double v = (int)j == e->swept ? f->values[0] : design_value(&plan->design, plan->runs[i].point, j);
        if (f->param == EXPERIMENT_FACTOR_AGENTS)
            replace(s, "agents", json_value(f, v));
        else if (strcmp(f->name, "model") == 0)
            replace(s, "model", json_value(f, v));
        else
            replace(params, f->name, json_value(f, v));
    }
    return s;
}

int run_scenario_write(const char *dir, const char *run_id, FILE *out)
{
    char path[4096], msg[500];
    experiment_t e;
    if (out_dir_path(dir, "experiment.json", path, sizeof path) ||
        experiment_load(path, &e, msg, sizeof msg) != EXPERIMENT_OK) {
        fprintf(stderr, "swarmcast: %s: %s\n", path, msg);
        return EXIT_USAGE;
    }
    run_plan_t plan;
    if (run_plan_make(&e, &plan, msg, sizeof msg)) {
        fprintf(stderr, "swarmcast: %s: %s\n", path, msg);
        experiment_free(&e);
        return EXIT_USAGE;
    }
    int rc = EXIT_USAGE;
    size_t i = 0;
    char id[17];
    for (; i < plan.n_runs; i++) {
        run_id_text(plan.runs[i].id, id);
        if (strcmp(id, run_id) == 0) break;
    }
    if (i == plan.n_runs) {
        fprintf(stderr, "swarmcast: %s has no run %s (results.csv and manifest.json list the run ids)\n", dir, run_id);
    } else {
        cJSON *s = scenario_of(&e, &plan, i);
        char *text = s ? cJSON_Print(s) : NULL;
        cJSON_Delete(s);
        rc = text && fprintf(out, "%s\n", text) >= 0 && fflush(out) == 0 ? EXIT_OK : EXIT_IO;
        free(text);
        if (e.swept >= 0)
            fprintf(stderr, "swarmcast: run %s is a continuation; this is its first stage (%s = %g), then %s goes "
                            "through %zu values with the world carried over\n",
                    run_id, e.factors[e.swept].name, e.factors[e.swept].values[0], e.factors[e.swept].name,
                    e.factors[e.swept].n_values);
    }
    run_plan_free(&plan);
    experiment_free(&e);
    return rc;
}
