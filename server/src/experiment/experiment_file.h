/* experiment_file: one JSON file that describes a whole experiment (see
 * docs/EXPERIMENTS.md): a base scenario, the factors varied and how their
 * values are combined (the design), replicates and the master seed, how long
 * each run lasts and what it records.
 *
 *   {"scenario": {"agents": 300, "model": "reynolds", "params": {"border": "wrap"}},
 *    "factors": [{"param": "delay_ticks", "values": [0, 4, 8, 16]},
 *                {"param": "w_ali", "first": 0.5, "step": 0.5, "last": 2}],
 *    "design": "factorial", "replicates": 5, "master_seed": 1,
 *    "steps": 3000, "warmup": 600, "record_every": 100,
 *    "metrics": ["polarization", "clusters"]}
 *
 * Reading checks everything a run would meet (every value against the
 * parameter registry, the scenario against its own reader) so that a bad
 * file is refused before anything runs, with a message that names the field
 * ("factors[1].values[3]: ..."). */
#ifndef SWARMCAST_EXPERIMENT_FILE_H
#define SWARMCAST_EXPERIMENT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A factor that is not a registry parameter: the population. */
#define EXPERIMENT_FACTOR_AGENTS (-2)

typedef enum { SWEEP_NONE = 0, SWEEP_UP, SWEEP_DOWN, SWEEP_UP_DOWN } sweep_t;

typedef struct factor {
    char name[48];
    int param;            /* registry index, or EXPERIMENT_FACTOR_AGENTS */
    double *values;       /* `values`, or first/step/last spelled out; NULL for a lo/hi range */
    size_t n_values;
    bool ranged;          /* lo/hi: only sampled designs (lhs, table) use it */
    double lo, hi;
    sweep_t sweep;        /* continuation: swept in this direction, world carried over */
} factor_t;

typedef enum { DESIGN_FACTORIAL = 0, DESIGN_ZIP, DESIGN_LHS, DESIGN_TABLE } design_kind_t;

/* The metrics a run can record: the headless CSV's columns. */
typedef enum {
    METRIC_POLARIZATION = 0,
    METRIC_MILLING,
    METRIC_MEAN_NN_DISTANCE,
    METRIC_CLUSTERS,
    METRIC_LARGEST_CLUSTER,
    METRIC_COLLISIONS,
    METRIC_PENETRATIONS,
    METRIC_MIN_CLEARANCE,
    METRIC_OSCILLATION,
    METRIC_COUNT
} metric_id_t;

const char *metric_name(metric_id_t id);
/* The id of a metric's name, or -1. */
int metric_find(const char *name);

typedef struct experiment {
    char *scenario_json; /* the base scenario as compact JSON (what every run starts from) */
    factor_t *factors;
    size_t n_factors;
    design_kind_t design;
    size_t lhs_points;   /* design "lhs" */
    char *table_path;    /* design "table": resolved against the experiment file's folder */
    uint32_t replicates;
    uint64_t master_seed;
    uint64_t steps;      /* per run; per point of a continuation sweep */
    uint64_t warmup;     /* steps not recorded at the start of a run (or of each swept point) */
    uint64_t record_every; /* 0: only at the end */
    bool metrics[METRIC_COUNT];
    bool has_stop;       /* stop a run early once the metric crosses the value */
    metric_id_t stop_metric;
    bool stop_above;
    double stop_value;
    int swept;           /* index of the swept factor, or -1 */
} experiment_t;

enum { EXPERIMENT_OK = 0, EXPERIMENT_E_IO = -1, EXPERIMENT_E_INVALID = -2 };

/* Reads and checks the file. On failure, msg says why (naming the field) and
 * *e holds nothing to free. */
int experiment_load(const char *path, experiment_t *e, char *msg, size_t msg_len);
/* The same from text (NUL-terminated); `dir` is where a relative table path or
 * scenario path is looked up. */
int experiment_load_text(const char *text, const char *dir, experiment_t *e, char *msg, size_t msg_len);
void experiment_free(experiment_t *e);

/* One value of f (a JSON number, enum name or boolean) checked the way the
 * simulation takes it: 0 with *out (the numeric form), or -1 with why. */
struct cJSON;
int factor_value(const factor_t *f, const struct cJSON *v, double *out, char *why, size_t why_len);
/* The same from text (a design table's cell); also inside lo/hi if f has them. */
int factor_value_text(const factor_t *f, const char *text, double *out, char *why, size_t why_len);
/* A value as the files show it: an enum's name, true/false, or the shortest
 * number that reads back exactly. */
void factor_value_format(const factor_t *f, double v, char *out, size_t out_len);

#endif
