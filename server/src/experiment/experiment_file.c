#include "experiment/experiment_file.h"

#include <cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "persist/param_json.h"
#include "persist/scenario.h"
#include "persist/whole_file.h"
#include "protocol/utf8.h"
#include "sim/params.h"

/* Bounds that keep a typo from asking for a billion runs or values. */
#define MAX_FACTORS 16
#define MAX_VALUES 100000
#define MAX_REPLICATES 100000
#define MAX_AGENTS_FACTOR 10000000
/* Seeds and counts are JSON numbers: whole numbers up to 2^53 read exactly. */
#define MAX_WHOLE 9007199254740992.0

static const char *const metric_names[METRIC_COUNT] = {
    "polarization", "milling", "mean_nn_distance", "clusters", "largest_cluster", "collisions", "penetrations",
    "min_clearance", "oscillation",
};

const char *metric_name(metric_id_t id)
{
    return id < METRIC_COUNT ? metric_names[id] : "?";
}

int metric_find(const char *name)
{
    for (int i = 0; i < METRIC_COUNT; i++)
        if (strcmp(metric_names[i], name) == 0) return i;
    return -1;
}

static const char *const known_fields[] = {"scenario", "factors", "design", "replicates", "master_seed", "steps",
                                           "warmup", "record_every", "metrics", "stop", "description", NULL};
static const char *const factor_fields[] = {"param", "values", "first", "step", "last", "lo", "hi", "sweep", NULL};

static bool known(const char *const *list, const char *name)
{
    for (; *list; list++)
        if (strcmp(*list, name) == 0) return true;
    return false;
}

/* A whole number in [lo, hi] from a JSON number; -1 when it is not. */
static int whole(const cJSON *v, double lo, double hi, uint64_t *out)
{
    if (!cJSON_IsNumber(v)) return -1;
    double d = v->valuedouble;
    if (!isfinite(d) || d != floor(d) || d < lo || d > hi) return -1;
    *out = (uint64_t)d;
    return 0;
}

/* A path in the file, made absolute against the file's folder. */
static char *resolve(const char *dir, const char *path)
{
    size_t n = strlen(path) + (dir ? strlen(dir) : 0) + 2;
    char *out = malloc(n);
    if (!out) return NULL;
    if (path[0] == '/' || !dir || !dir[0])
        snprintf(out, n, "%s", path);
    else
        snprintf(out, n, "%s/%s", dir, path);
    return out;
}

/* ---- the base scenario ----------------------------------------------------- */

static int read_scenario(const cJSON *root, const char *dir, experiment_t *e, uint64_t *scenario_steps, char *msg,
                         size_t msg_len)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(root, "scenario");
    char *text = NULL;
    if (!s) {
        text = strdup("{}");
    } else if (cJSON_IsObject(s)) {
        text = cJSON_PrintUnformatted(s);
    } else if (cJSON_IsString(s)) {
        char *path = resolve(dir, s->valuestring);
        size_t file_len;
        char *file = path ? whole_file_read(path, &file_len) : NULL;
        if (!file) {
            int err = errno;
            free(path);
            return text_fail(msg, msg_len, "scenario: cannot read %s: %s", s->valuestring, strerror(err));
        }
        free(path);
        cJSON *parsed = cJSON_Parse(file);
        free(file);
        if (!cJSON_IsObject(parsed)) {
            cJSON_Delete(parsed);
            return text_fail(msg, msg_len, "scenario: %s is not a JSON object", s->valuestring);
        }
        text = cJSON_PrintUnformatted(parsed);
        cJSON_Delete(parsed);
    } else {
        return text_fail(msg, msg_len, "scenario: must be an object (a scenario) or a string (its file)");
    }
    if (!text) return text_fail(msg, msg_len, "out of memory");

    /* The scenario's own reader checks it, as a headless run would. */
    scenario_t sc = {0};
    char why[300];
    int rc = scenario_load_text(text, strlen(text), &sc, why, sizeof why);
    if (rc == SCENARIO_OK) {
        cmd_limits_t limits = {sc.has_world ? sc.width : 1600.0f, sc.has_world ? sc.height : 900.0f,
                               MAX_AGENTS_FACTOR};
        rc = scenario_build(&sc, &limits, why, sizeof why);
    }
    *scenario_steps = sc.has_steps ? sc.steps : 0;
    scenario_free(&sc);
    if (rc != SCENARIO_OK) {
        free(text);
        return text_fail(msg, msg_len, "scenario: %s", why);
    }
    e->scenario_json = text;
    return 0;
}

/* ---- factors ------------------------------------------------------------------ */

/* One value of factor f, checked the way the simulation would take it. */
int factor_value(const factor_t *f, const cJSON *v, double *out, char *why, size_t why_len)
{
    if (f->param == EXPERIMENT_FACTOR_AGENTS) {
        uint64_t n;
        if (whole(v, 1, MAX_AGENTS_FACTOR, &n)) return text_fail(why, why_len, "agents must be a whole number in [1, %d]", MAX_AGENTS_FACTOR);
        *out = (double)n;
        return 0;
    }
    int index;
    return param_from_json(f->name, v, &index, out, why, why_len);
}

static int add_value(factor_t *f, double v)
{
    if (f->n_values >= MAX_VALUES) return -1;
    double *grown = realloc(f->values, (f->n_values + 1) * sizeof *grown);
    if (!grown) return -1;
    f->values = grown;
    f->values[f->n_values++] = v;
    return 0;
}

static int number_field(const cJSON *obj, const char *name, size_t i, double *out, char *msg, size_t msg_len)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return text_fail(msg, msg_len, "factors[%zu].%s: must be a number", i, name);
    *out = v->valuedouble;
    return 0;
}

static int compare_up(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A continuation's values in the order the world goes through them. */
static int order_sweep(factor_t *f, size_t i, char *msg, size_t msg_len)
{
    qsort(f->values, f->n_values, sizeof *f->values, compare_up);
    for (size_t k = 1; k < f->n_values; k++)
        if (f->values[k] == f->values[k - 1])
            return text_fail(msg, msg_len, "factors[%zu].values: a swept factor's values must differ (%g twice)", i,
                             f->values[k]);
    if (f->sweep == SWEEP_DOWN) {
        for (size_t a = 0, b = f->n_values - 1; a < b; a++, b--) {
            double t = f->values[a];
            f->values[a] = f->values[b];
            f->values[b] = t;
        }
    } else if (f->sweep == SWEEP_UP_DOWN) {
        /* up, then back down without repeating the top */
        for (size_t k = f->n_values - 1; k-- > 0;)
            if (add_value(f, f->values[k])) return text_fail(msg, msg_len, "factors[%zu]: too many values", i);
    }
    return 0;
}

static int read_factor(const cJSON *obj, size_t i, factor_t *f, char *msg, size_t msg_len)
{
    if (!cJSON_IsObject(obj)) return text_fail(msg, msg_len, "factors[%zu]: must be an object", i);
    for (const cJSON *c = obj->child; c; c = c->next)
        if (!known(factor_fields, c->string))
            return text_fail(msg, msg_len, "factors[%zu]: unknown field '%s' (known: param, values, first, step, last, "
                                           "lo, hi, sweep)", i, c->string);
    const cJSON *param = cJSON_GetObjectItemCaseSensitive(obj, "param");
    if (!cJSON_IsString(param) || !param->valuestring[0])
        return text_fail(msg, msg_len, "factors[%zu].param: must be a parameter's name (or \"agents\")", i);
    if (strlen(param->valuestring) >= sizeof f->name)
        return text_fail(msg, msg_len, "factors[%zu].param: no parameter has so long a name", i);
    snprintf(f->name, sizeof f->name, "%s", param->valuestring);
    if (strcmp(f->name, "agents") == 0) {
        f->param = EXPERIMENT_FACTOR_AGENTS;
    } else if ((f->param = params_find(f->name)) < 0) {
        return text_fail(msg, msg_len, "factors[%zu].param: unknown parameter '%s' (swarmcast --help lists them)", i,
                         f->name);
    }

    const cJSON *values = cJSON_GetObjectItemCaseSensitive(obj, "values");
    bool stepped = cJSON_GetObjectItemCaseSensitive(obj, "first") || cJSON_GetObjectItemCaseSensitive(obj, "step") ||
                   cJSON_GetObjectItemCaseSensitive(obj, "last");
    bool ranged = cJSON_GetObjectItemCaseSensitive(obj, "lo") || cJSON_GetObjectItemCaseSensitive(obj, "hi");
    if ((values != NULL) + stepped + ranged > 1)
        return text_fail(msg, msg_len, "factors[%zu] (%s): give one of values, first/step/last or lo/hi", i, f->name);
    char why[300];
    if (values) {
        if (!cJSON_IsArray(values) || cJSON_GetArraySize(values) == 0)
            return text_fail(msg, msg_len, "factors[%zu].values: must be a non-empty list", i);
        size_t k = 0;
        for (const cJSON *v = values->child; v; v = v->next, k++) {
            double d;
            if (factor_value(f, v, &d, why, sizeof why))
                return text_fail(msg, msg_len, "factors[%zu].values[%zu]: %s", i, k, why);
            if (add_value(f, d)) return text_fail(msg, msg_len, "factors[%zu].values: more than %d values", i, MAX_VALUES);
        }
    } else if (stepped) {
        double first = 0, step = 0, last = 0;
        if (number_field(obj, "first", i, &first, msg, msg_len) || number_field(obj, "step", i, &step, msg, msg_len) ||
            number_field(obj, "last", i, &last, msg, msg_len))
            return -1;
        if (step == 0 || (last - first) / step < 0)
            return text_fail(msg, msg_len, "factors[%zu].step: %g does not lead from first %g to last %g", i, step,
                             first, last);
        double count = floor((last - first) / step + 1e-9) + 1;
        if (count > MAX_VALUES)
            return text_fail(msg, msg_len, "factors[%zu].step: %.0f values, more than %d", i, count, MAX_VALUES);
        for (size_t k = 0; k < (size_t)count; k++) {
            /* multiplied, not added up, so that 0.1 steps do not drift */
            double d = first + (double)k * step;
            cJSON *v = cJSON_CreateNumber(d);
            int bad = !v || factor_value(f, v, &d, why, sizeof why);
            cJSON_Delete(v);
            if (bad) return text_fail(msg, msg_len, "factors[%zu] (first/step/last): value %zu: %s", i, k, why);
            if (add_value(f, d)) return text_fail(msg, msg_len, "out of memory");
        }
    } else if (ranged) {
        if (number_field(obj, "lo", i, &f->lo, msg, msg_len) || number_field(obj, "hi", i, &f->hi, msg, msg_len))
            return -1;
        if (!(f->lo < f->hi)) return text_fail(msg, msg_len, "factors[%zu]: lo (%g) must be below hi (%g)", i, f->lo, f->hi);
        const char *ends[2] = {"lo", "hi"};
        for (int end = 0; end < 2; end++) {
            double d;
            if (factor_value(f, cJSON_GetObjectItemCaseSensitive(obj, ends[end]), &d, why, sizeof why))
                return text_fail(msg, msg_len, "factors[%zu].%s: %s", i, ends[end], why);
        }
        f->ranged = true;
    }

    const cJSON *sweep = cJSON_GetObjectItemCaseSensitive(obj, "sweep");
    if (sweep) {
        const char *s = cJSON_IsString(sweep) ? sweep->valuestring : "";
        f->sweep = strcmp(s, "up") == 0 ? SWEEP_UP : strcmp(s, "down") == 0 ? SWEEP_DOWN
                 : strcmp(s, "up_down") == 0 ? SWEEP_UP_DOWN : SWEEP_NONE;
        if (f->sweep == SWEEP_NONE)
            return text_fail(msg, msg_len, "factors[%zu].sweep: must be \"up\", \"down\" or \"up_down\"", i);
        if (!f->n_values) return text_fail(msg, msg_len, "factors[%zu].sweep: a swept factor needs values or first/step/last", i);
        if (f->param == EXPERIMENT_FACTOR_AGENTS)
            return text_fail(msg, msg_len, "factors[%zu].sweep: agents cannot be swept (a population is not carried over)", i);
        if (order_sweep(f, i, msg, msg_len)) return -1;
    }
    return 0;
}

/* ---- the design ---------------------------------------------------------------- */

static int read_design(const cJSON *root, const char *dir, experiment_t *e, char *msg, size_t msg_len)
{
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(root, "design");
    e->design = DESIGN_FACTORIAL;
    if (cJSON_IsString(d) && strcmp(d->valuestring, "factorial") == 0) {
        e->design = DESIGN_FACTORIAL;
    } else if (cJSON_IsString(d) && strcmp(d->valuestring, "zip") == 0) {
        e->design = DESIGN_ZIP;
    } else if (cJSON_IsObject(d) && cJSON_GetArraySize(d) == 1 && cJSON_GetObjectItemCaseSensitive(d, "lhs")) {
        uint64_t n;
        if (whole(cJSON_GetObjectItemCaseSensitive(d, "lhs"), 1, MAX_VALUES, &n))
            return text_fail(msg, msg_len, "design.lhs: the number of points, a whole number in [1, %d]", MAX_VALUES);
        e->design = DESIGN_LHS;
        e->lhs_points = (size_t)n;
    } else if (cJSON_IsObject(d) && cJSON_GetArraySize(d) == 1 && cJSON_GetObjectItemCaseSensitive(d, "table")) {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(d, "table");
        if (!cJSON_IsString(t) || !t->valuestring[0])
            return text_fail(msg, msg_len, "design.table: the CSV file of design points (a path)");
        if (!(e->table_path = resolve(dir, t->valuestring))) return text_fail(msg, msg_len, "out of memory");
        e->design = DESIGN_TABLE;
    } else if (d) {
        return text_fail(msg, msg_len, "design: \"factorial\", \"zip\", {\"lhs\": POINTS} or {\"table\": \"FILE.csv\"}");
    }

    if ((e->design == DESIGN_LHS || e->design == DESIGN_TABLE) && e->n_factors == 0)
        return text_fail(msg, msg_len, "design: %s needs factors", e->design == DESIGN_LHS ? "lhs" : "a table");
    /* What each design needs of the factors. */
    size_t zip_len = 0;
    for (size_t i = 0; i < e->n_factors; i++) {
        const factor_t *f = &e->factors[i];
        if (f->sweep) continue;
        switch (e->design) {
        case DESIGN_FACTORIAL:
        case DESIGN_ZIP:
            if (!f->n_values)
                return text_fail(msg, msg_len, "factors[%zu] (%s): the %s design needs values or first/step/last", i,
                                 f->name, e->design == DESIGN_ZIP ? "zip" : "factorial");
            if (e->design == DESIGN_ZIP && zip_len && f->n_values != zip_len)
                return text_fail(msg, msg_len, "factors[%zu] (%s): %zu values, but zip needs as many as the others (%zu)",
                                 i, f->name, f->n_values, zip_len);
            zip_len = f->n_values;
            break;
        case DESIGN_LHS:
            if (!f->ranged) return text_fail(msg, msg_len, "factors[%zu] (%s): the lhs design needs lo and hi", i, f->name);
            break;
        case DESIGN_TABLE:
            if (f->n_values) /* lo/hi are allowed: the table's values are checked against them */
                return text_fail(msg, msg_len, "factors[%zu] (%s): with a table design the values come from the table", i,
                                 f->name);
            break;
        }
    }
    if (e->swept >= 0 && (e->design == DESIGN_LHS || e->design == DESIGN_TABLE))
        return text_fail(msg, msg_len, "factors[%d].sweep: a continuation goes with the factorial or zip design",
                         e->swept);
    return 0;
}

/* ---- run length and recording ---------------------------------------------------- */

static int read_recording(const cJSON *root, uint64_t scenario_steps, experiment_t *e, char *msg, size_t msg_len)
{
    const cJSON *v;
    e->replicates = 1;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "replicates"))) {
        uint64_t n;
        if (whole(v, 1, MAX_REPLICATES, &n))
            return text_fail(msg, msg_len, "replicates: a whole number in [1, %d]", MAX_REPLICATES);
        e->replicates = (uint32_t)n;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "master_seed")) && whole(v, 0, MAX_WHOLE, &e->master_seed))
        return text_fail(msg, msg_len, "master_seed: a whole number in [0, 2^53]");
    e->steps = scenario_steps;
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "steps")) && whole(v, 1, MAX_WHOLE, &e->steps))
        return text_fail(msg, msg_len, "steps: a whole number of steps, 1 or more");
    if (!e->steps) return text_fail(msg, msg_len, "steps: missing (how many steps each run makes)");
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "warmup")) && whole(v, 0, (double)e->steps - 1, &e->warmup))
        return text_fail(msg, msg_len, "warmup: a whole number of steps below steps (%llu)", (unsigned long long)e->steps);
    v = cJSON_GetObjectItemCaseSensitive(root, "record_every");
    if (v && !(cJSON_IsString(v) && strcmp(v->valuestring, "end") == 0) && whole(v, 1, MAX_WHOLE, &e->record_every))
        return text_fail(msg, msg_len, "record_every: a whole number of steps, or \"end\" (only the last step)");

    const cJSON *m = cJSON_GetObjectItemCaseSensitive(root, "metrics");
    if (!m) {
        for (int i = 0; i < METRIC_COUNT; i++) e->metrics[i] = true;
    } else {
        if (!cJSON_IsArray(m) || cJSON_GetArraySize(m) == 0)
            return text_fail(msg, msg_len, "metrics: a non-empty list of names");
        size_t k = 0;
        for (const cJSON *n = m->child; n; n = n->next, k++) {
            int id = cJSON_IsString(n) ? metric_find(n->valuestring) : -1;
            if (id < 0)
                return text_fail(msg, msg_len, "metrics[%zu]: unknown metric%s%s (known: polarization, milling, "
                                               "mean_nn_distance, clusters, largest_cluster, collisions, penetrations, "
                                               "min_clearance, oscillation)", k, cJSON_IsString(n) ? " " : "",
                                 cJSON_IsString(n) ? n->valuestring : "");
            e->metrics[id] = true;
        }
    }

    const cJSON *stop = cJSON_GetObjectItemCaseSensitive(root, "stop");
    if (stop) {
        const cJSON *metric = cJSON_GetObjectItemCaseSensitive(stop, "metric");
        const cJSON *above = cJSON_GetObjectItemCaseSensitive(stop, "above");
        const cJSON *below = cJSON_GetObjectItemCaseSensitive(stop, "below");
        int id = cJSON_IsString(metric) ? metric_find(metric->valuestring) : -1;
        const cJSON *bound = above ? above : below;
        if (!cJSON_IsObject(stop) || id < 0 || (above && below) || !cJSON_IsNumber(bound) || cJSON_GetArraySize(stop) != 2)
            return text_fail(msg, msg_len, "stop: {\"metric\": NAME, \"above\": NUMBER} or {\"metric\": NAME, \"below\": "
                                           "NUMBER}");
        if (e->swept >= 0) return text_fail(msg, msg_len, "stop: a continuation runs every point for its steps");
        e->has_stop = true;
        e->stop_metric = (metric_id_t)id;
        e->stop_above = above != NULL;
        e->stop_value = bound->valuedouble;
    }
    return 0;
}

int factor_value_text(const factor_t *f, const char *text, double *out, char *why, size_t why_len)
{
    char *end;
    errno = 0;
    double d = strtod(text, &end);
    bool number = end != text && *end == '\0' && errno == 0 && isfinite(d);
    cJSON *v = number ? cJSON_CreateNumber(d) : strcmp(text, "true") == 0 ? cJSON_CreateTrue()
             : strcmp(text, "false") == 0 ? cJSON_CreateFalse() : cJSON_CreateString(text);
    if (!v) return text_fail(why, why_len, "out of memory");
    int rc = factor_value(f, v, out, why, why_len);
    cJSON_Delete(v);
    if (!rc && f->ranged && (*out < f->lo || *out > f->hi))
        return text_fail(why, why_len, "%s is outside the factor's lo/hi [%g, %g]", text, f->lo, f->hi);
    return rc;
}

void factor_value_format(const factor_t *f, double v, char *out, size_t out_len)
{
    const param_desc_t *d = f->param >= 0 ? params_desc((size_t)f->param) : NULL;
    if (d && d->type == PARAM_ENUM && v >= 0 && v <= d->max && v == floor(v)) {
        snprintf(out, out_len, "%s", d->enum_names[(int)v]);
    } else if (d && d->type == PARAM_BOOL) {
        snprintf(out, out_len, "%s", v != 0 ? "true" : "false");
    } else {
        /* the shortest decimal that reads back as the same double */
        for (int digits = 15; digits <= 17; digits++) {
            snprintf(out, out_len, "%.*g", digits, v);
            if (strtod(out, NULL) == v) break;
        }
    }
}

/* ---- the file -------------------------------------------------------------------- */

/* 0, or -1 with the reason in msg. */
static int load(const cJSON *root, const char *dir, experiment_t *e, char *msg, size_t msg_len)
{
    if (!cJSON_IsObject(root)) return text_fail(msg, msg_len, "an experiment is a JSON object");
    for (const cJSON *c = root->child; c; c = c->next)
        if (!known(known_fields, c->string))
            return text_fail(msg, msg_len, "unknown field '%s' (known: scenario, factors, design, replicates, "
                                           "master_seed, steps, warmup, record_every, metrics, stop, description)",
                             c->string);
    uint64_t scenario_steps;
    if (read_scenario(root, dir, e, &scenario_steps, msg, msg_len)) return -1;

    const cJSON *factors = cJSON_GetObjectItemCaseSensitive(root, "factors");
    e->swept = -1;
    if (factors) {
        if (!cJSON_IsArray(factors)) return text_fail(msg, msg_len, "factors: must be a list");
        size_t n = (size_t)cJSON_GetArraySize(factors);
        if (n > MAX_FACTORS) return text_fail(msg, msg_len, "factors: at most %d", MAX_FACTORS);
        if (n && !(e->factors = calloc(n, sizeof *e->factors))) return text_fail(msg, msg_len, "out of memory");
        size_t i = 0;
        for (const cJSON *f = factors->child; f; f = f->next, i++) {
            e->n_factors = i + 1;
            if (read_factor(f, i, &e->factors[i], msg, msg_len)) return -1;
            for (size_t j = 0; j < i; j++)
                if (strcmp(e->factors[j].name, e->factors[i].name) == 0)
                    return text_fail(msg, msg_len, "factors[%zu].param: %s is already factors[%zu]", i,
                                     e->factors[i].name, j);
            if (e->factors[i].sweep) {
                if (e->swept >= 0)
                    return text_fail(msg, msg_len, "factors[%zu].sweep: only one factor is swept (factors[%d] is)", i,
                                     e->swept);
                e->swept = (int)i;
            }
        }
    }
    if (read_design(root, dir, e, msg, msg_len)) return -1;
    return read_recording(root, scenario_steps, e, msg, msg_len);
}

int experiment_load_text(const char *text, const char *dir, experiment_t *e, char *msg, size_t msg_len)
{
    memset(e, 0, sizeof *e);
    e->swept = -1;
    cJSON *root = cJSON_Parse(text);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        size_t line = 1;
        for (const char *p = text; at && p < at; p++) line += *p == '\n';
        text_fail(msg, msg_len, "not valid JSON (near line %zu)", line);
        return EXPERIMENT_E_INVALID;
    }
    int rc = load(root, dir, e, msg, msg_len);
    cJSON_Delete(root);
    if (rc) {
        experiment_free(e);
        return EXPERIMENT_E_INVALID;
    }
    return EXPERIMENT_OK;
}

int experiment_load(const char *path, experiment_t *e, char *msg, size_t msg_len)
{
    memset(e, 0, sizeof *e);
    size_t file_len;
    char *text = whole_file_read(path, &file_len);
    if (!text) {
        text_fail(msg, msg_len, "cannot read %s: %s", path, strerror(errno));
        return EXPERIMENT_E_IO;
    }
    char *dir = strdup(path);
    char *slash = dir ? strrchr(dir, '/') : NULL;
    if (dir) {
        if (slash)
            *slash = '\0';
        else
            strcpy(dir, ".");
    }
    int rc = dir ? experiment_load_text(text, dir, e, msg, msg_len) : EXPERIMENT_E_IO;
    free(dir);
    free(text);
    return rc;
}

void experiment_free(experiment_t *e)
{
    for (size_t i = 0; i < e->n_factors; i++) free(e->factors[i].values);
    free(e->factors);
    free(e->scenario_json);
    free(e->table_path);
    memset(e, 0, sizeof *e);
    e->swept = -1;
}
