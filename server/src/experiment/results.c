#include "experiment/results.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "experiment/run_one.h"
#include "protocol/utf8.h"

double student_t975(unsigned df)
{
    static const double table[30] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                     2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                     2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    if (df == 0) return NAN;
    if (df <= 30) return table[df - 1];
    /* Cornish-Fisher's first terms: within 0.001 of the exact value past 30 */
    double z = 1.959963985, d = (double)df;
    return z + (z * z * z + z) / (4 * d) + (5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * d * d);
}

/* Welford's running mean and variance of one metric at one (point, stage). */
typedef struct {
    double n, mean, m2;
} moments_t;

typedef struct {
    const experiment_t *e;
    size_t stages, n_metrics;
    moments_t *m;      /* [point][stage][metric] */
    unsigned *runs;    /* [point][stage]: runs that reached the stage */
} summary_t;

static moments_t *at(summary_t *s, size_t point, size_t stage, size_t metric)
{
    return &s->m[(point * s->stages + stage) * s->n_metrics + metric];
}

/* Adds a run's last row of a stage (the cells of one CSV line). */
static void add_row(summary_t *s, size_t point, const char *line)
{
    size_t nf = s->e->n_factors, col = 0, stage = 0, metric = 0;
    for (const char *p = line;; col++) {
        size_t w = strcspn(p, ",\n");
        if (col == 4 + nf) stage = (size_t)strtoul(p, NULL, 10);
        if (col >= 6 + nf && metric < s->n_metrics && stage < s->stages) {
            if (w) {
                double x = strtod(p, NULL);
                moments_t *m = at(s, point, stage, metric);
                m->n += 1;
                double d = x - m->mean;
                m->mean += d / m->n;
                m->m2 += d * (x - m->mean);
            }
            metric++;
        }
        if (p[w] != ',') break;
        p += w + 1;
    }
    if (stage < s->stages) s->runs[point * s->stages + stage]++;
}

/* The last row of each stage of one run's rows. */
static void add_run(summary_t *s, size_t point, char *rows)
{
    size_t nf = s->e->n_factors;
    const char *last = NULL;
    long last_stage = -1;
    for (char *line = rows; *line;) {
        char *next = strchr(line, '\n');
        next = next ? next + 1 : line + strlen(line);
        /* the stage is column 4 + nf */
        const char *p = line;
        for (size_t c = 0; c < 4 + nf && p; c++) p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
        long stage = p ? strtol(p, NULL, 10) : -1;
        if (last && stage != last_stage) add_row(s, point, last);
        last = line;
        last_stage = stage;
        line = next;
    }
    if (last) add_row(s, point, last);
}

static void cell(FILE *f, double x)
{
    if (isfinite(x))
        fprintf(f, ",%.9g", x);
    else
        fputc(',', f);
}

static void write_summary(summary_t *s, const run_plan_t *plan, FILE *f)
{
    const experiment_t *e = s->e;
    fputs("point", f);
    for (size_t j = 0; j < e->n_factors; j++) fprintf(f, ",%s", e->factors[j].name);
    if (e->swept >= 0) fputs(",stage", f);
    fputs(",runs", f);
    for (int k = 0; k < METRIC_COUNT; k++)
        if (e->metrics[k]) {
            const char *n = metric_name((metric_id_t)k);
            fprintf(f, ",%s_mean,%s_sd,%s_ci95", n, n, n);
        }
    fputc('\n', f);
    char v[64];
    for (size_t p = 0; p < plan->design.n_points; p++)
        for (size_t st = 0; st < s->stages; st++) {
            fprintf(f, "%zu", p);
            for (size_t j = 0; j < e->n_factors; j++) {
                double x = (int)j == e->swept ? e->factors[j].values[st] : design_value(&plan->design, p, j);
                factor_value_format(&e->factors[j], x, v, sizeof v);
                fprintf(f, ",%s", v);
            }
            if (e->swept >= 0) fprintf(f, ",%zu", st);
            fprintf(f, ",%u", s->runs[p * s->stages + st]);
            for (size_t k = 0; k < s->n_metrics; k++) {
                const moments_t *m = at(s, p, st, k);
                double sd = m->n >= 2 ? sqrt(m->m2 / (m->n - 1)) : NAN;
                cell(f, m->n >= 1 ? m->mean : NAN);
                cell(f, sd);
                cell(f, m->n >= 2 ? student_t975((unsigned)m->n - 1) * sd / sqrt(m->n) : NAN);
            }
            fputc('\n', f);
        }
}

/* Opens DIR/NAME.tmp for writing. */
static FILE *open_tmp(const char *dir, const char *name, char *path, size_t path_len)
{
    snprintf(path, path_len, "%s/%s.tmp", dir, name);
    return fopen(path, "w");
}

static int commit(FILE *f, const char *tmp, char *msg, size_t msg_len)
{
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    char final[4096];
    snprintf(final, sizeof final, "%.*s", (int)(strlen(tmp) - 4), tmp);
    if (bad || rename(tmp, final)) {
        int err = errno;
        unlink(tmp);
        return text_fail(msg, msg_len, "cannot write %s: %s", final, strerror(err));
    }
    return 0;
}

int results_write(const experiment_t *e, const run_plan_t *plan, journal_index_t *idx, const char *dir, char *msg,
                  size_t msg_len)
{
    summary_t s = {.e = e, .stages = e->swept >= 0 ? e->factors[e->swept].n_values : 1};
    for (int k = 0; k < METRIC_COUNT; k++) s.n_metrics += e->metrics[k];
    size_t cells = plan->design.n_points * s.stages;
    s.m = calloc(cells * s.n_metrics + 1, sizeof *s.m);
    s.runs = calloc(cells + 1, sizeof *s.runs);
    char tmp[4096], sum_tmp[4096];
    FILE *f = s.m && s.runs ? open_tmp(dir, "results.csv", tmp, sizeof tmp) : NULL;
    if (!f) {
        free(s.m);
        free(s.runs);
        return text_fail(msg, msg_len, "cannot write %s/results.csv: %s", dir, strerror(errno));
    }
    int rc = run_rows_header(e, f);
    for (size_t i = 0; i < plan->n_runs && !rc; i++) {
        char *rows;
        size_t len;
        if (journal_rows(idx, i, &rows, &len)) {
            rc = text_fail(msg, msg_len, "cannot read the journal: %s", strerror(errno));
            break;
        }
        if (!rows) continue;
        if (fwrite(rows, 1, len, f) != len) rc = -1;
        add_run(&s, plan->runs[i].point, rows);
        free(rows);
    }
    if (rc) {
        fclose(f);
        unlink(tmp);
    } else {
        rc = commit(f, tmp, msg, msg_len);
    }
    FILE *g = rc ? NULL : open_tmp(dir, "summary.csv", sum_tmp, sizeof sum_tmp);
    if (!rc && !g) rc = text_fail(msg, msg_len, "cannot write %s/summary.csv: %s", dir, strerror(errno));
    if (g) {
        write_summary(&s, plan, g);
        rc = commit(g, sum_tmp, msg, msg_len);
    }
    free(s.m);
    free(s.runs);
    return rc;
}
