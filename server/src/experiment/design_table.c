/* design_table: design points made elsewhere (SALib, scipy.qmc, a
 * spreadsheet) as a CSV file. The header names the factors, in any order,
 * each exactly once; every row gives one point. Blank lines and lines that
 * start with '#' are skipped; a cell may be quoted. A bad cell refuses the
 * whole table, naming its line and column: a sweep never runs half a design. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/design.h"
#include "protocol/utf8.h"

/* As many points as a Latin hypercube may have. A line holds 64 cells of a
 * number or a name each; anything longer (a binary file, /dev/zero) is not a
 * design, and is refused before it is held in memory. */
#define MAX_ROWS 100000u
#define MAX_LINE 4096

/* Splits line (modified in place) at commas; returns the cell count, or -1
 * when there are more than `max`. Cells are trimmed and unquoted. */
static int split(char *line, char **cells, int max)
{
    line[strcspn(line, "\r\n")] = '\0';
    int n = 0;
    for (char *p = line;;) {
        if (n == max) return -1;
        while (*p == ' ' || *p == '\t') p++;
        char *cell = p, *end;
        if (*p == '"') {
            cell = ++p;
            while (*p && *p != '"') p++;
            end = p;
            if (*p) p++;
            while (*p && *p != ',') p++;
        } else {
            while (*p && *p != ',') p++;
            end = p;
            while (end > cell && (end[-1] == ' ' || end[-1] == '\t')) end--;
        }
        char sep = *p;
        *end = '\0';
        cells[n++] = cell;
        if (sep != ',') return n;
        p++;
    }
}

static bool skipped(const char *line)
{
    const char *p = line + strspn(line, " \t\r\n");
    return *p == '\0' || *p == '#';
}

int design_read_table(const experiment_t *e, design_t *d, char *msg, size_t msg_len)
{
    memset(d, 0, sizeof *d);
    FILE *f = fopen(e->table_path, "r");
    if (!f) return text_fail(msg, msg_len, "design.table: cannot read %s: %s", e->table_path, strerror(errno));
    enum { MAX_COLUMNS = 64 };
    char *cells[MAX_COLUMNS];
    int column_factor[MAX_COLUMNS];
    char line[MAX_LINE + 1];
    size_t line_no = 0, rows_cap = 0;
    int columns = -1, rc = 0;
    d->n_factors = e->n_factors;
    while (!rc && fgets(line, sizeof line, f)) {
        line_no++;
        if (!strchr(line, '\n') && !feof(f)) {
            rc = text_fail(msg, msg_len, "design.table: line %zu is longer than %d bytes", line_no, MAX_LINE);
            break;
        }
        if (skipped(line)) continue;
        int n = split(line, cells, MAX_COLUMNS);
        if (columns < 0) { /* the header */
            if (n < 0) {
                rc = text_fail(msg, msg_len, "design.table: line %zu: more than %d columns", line_no, MAX_COLUMNS);
                break;
            }
            bool seen[MAX_COLUMNS] = {false};
            for (int c = 0; c < n && !rc; c++) {
                column_factor[c] = -1;
                for (size_t j = 0; j < e->n_factors; j++)
                    if (strcmp(cells[c], e->factors[j].name) == 0) column_factor[c] = (int)j;
                if (column_factor[c] < 0)
                    rc = text_fail(msg, msg_len, "design.table: column '%s' is not one of the factors", cells[c]);
                else if (seen[column_factor[c]])
                    rc = text_fail(msg, msg_len, "design.table: column '%s' appears twice", cells[c]);
                else
                    seen[column_factor[c]] = true;
            }
            for (size_t j = 0; j < e->n_factors && !rc; j++)
                if (!seen[j]) rc = text_fail(msg, msg_len, "design.table: no column for factor %s", e->factors[j].name);
            columns = n;
            continue;
        }
        if (n != columns) {
            rc = text_fail(msg, msg_len, "design.table: line %zu has %d cells, the header %d", line_no, n < 0 ? MAX_COLUMNS : n,
                           columns);
            break;
        }
        if (d->n_points == MAX_ROWS) {
            rc = text_fail(msg, msg_len, "design.table: more than %u rows", MAX_ROWS);
            break;
        }
        if (d->n_points == rows_cap) {
            size_t grown_cap = rows_cap ? rows_cap * 2 : 64;
            if (grown_cap > MAX_ROWS) grown_cap = MAX_ROWS;
            double *grown = realloc(d->values, grown_cap * (e->n_factors ? e->n_factors : 1) * sizeof *grown);
            if (!grown) {
                rc = text_fail(msg, msg_len, "out of memory");
                break;
            }
            d->values = grown;
            rows_cap = grown_cap;
        }
        for (int c = 0; c < n && !rc; c++) {
            const factor_t *fac = &e->factors[column_factor[c]];
            char why[240];
            if (factor_value_text(fac, cells[c], &d->values[d->n_points * e->n_factors + (size_t)column_factor[c]], why,
                                  sizeof why))
                rc = text_fail(msg, msg_len, "design.table: line %zu, column %s: %s", line_no, fac->name, why);
        }
        d->n_points++;
    }
    if (!rc && ferror(f)) rc = text_fail(msg, msg_len, "design.table: cannot read %s: %s", e->table_path, strerror(errno));
    if (!rc && columns < 0) rc = text_fail(msg, msg_len, "design.table: %s has no header", e->table_path);
    if (!rc && d->n_points == 0) rc = text_fail(msg, msg_len, "design.table: %s has no rows", e->table_path);
    fclose(f);
    if (rc) design_free(d);
    return rc;
}
