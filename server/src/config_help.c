#include "config_options.h"

#include "config_help.h"

#include <string.h>

#include "sim/params.h"

const char *const config_synopsis[] = {
    "[options]\t",
    "--scenario FILE [options]\tthat world, live from tick 0 (one run of a sweep)",
    "--headless --steps N [options]\t",
    "--headless --replay FILE [--final FILE] [--csv FILE]\t",
    "relay --nats URL [options]\t",
    "experiment plan FILE\t(docs/EXPERIMENTS.md; swarmcast experiment --help)",
    "worker --nats URL\t(runs an experiment pool's runs; swarmcast worker --help)",
    NULL,
};

const char config_summary[] = "Steps a 2-D flock at a fixed rate and streams it to browsers over WebSocket.";

const char *config_option_default(const config_option_t *o)
{
    return o->def ? o->def : o->shown;
}

/* "--name ARG" */
static void option_words(const config_option_t *o, char *buf, size_t len)
{
    snprintf(buf, len, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
}

static void print_option(FILE *f, const config_option_t *o)
{
    char words[64];
    option_words(o, words, sizeof words);
    fprintf(f, "  %-20s %-23s ", words, o->env ? o->env : "");
    /* The help's lines, then the default's, each after the first indented
     * under the help's first column. */
    const char *def = config_option_default(o);
    char text[512];
    if (def)
        snprintf(text, sizeof text, "%s (%s)", o->help, def);
    else
        snprintf(text, sizeof text, "%s", o->help);
    for (const char *line = text; line;) {
        const char *nl = strchr(line, '\n');
        int n = nl ? (int)(nl - line) : (int)strlen(line);
        fprintf(f, "%s%.*s\n", line == text ? "" : "                                               ", n, line);
        line = nl ? nl + 1 : NULL;
    }
}

static void print_parameters(FILE *f)
{
    for (size_t i = 0; i < params_count(); i++) {
        const param_desc_t *d = params_desc(i);
        if (d->type == PARAM_ENUM) {
            char values[128] = "";
            for (int k = 0; k <= (int)d->max; k++) {
                strncat(values, k ? "|" : "", sizeof values - strlen(values) - 1);
                strncat(values, d->enum_names[k], sizeof values - strlen(values) - 1);
            }
            fprintf(f, "  %-16s %-22s default %-8s %s\n", d->name, values, d->enum_names[(int)d->def], d->help);
        } else {
            char range[48];
            snprintf(range, sizeof range, "%g..%g %s", d->min, d->max, d->unit);
            fprintf(f, "  %-16s %-22s default %-8g %s\n", d->name, range, d->def, d->help);
        }
    }
}

void config_help(FILE *f)
{
    for (size_t i = 0; config_synopsis[i]; i++) {
        const char *tab = strchr(config_synopsis[i], '\t');
        fprintf(f, "%s swarmcast %.*s%s%s\n", i ? "      " : "usage:", (int)(tab - config_synopsis[i]),
                config_synopsis[i], tab[1] ? "   " : "", tab + 1);
    }
    fprintf(f, "\n%s\nEvery option can also be set by the environment variable shown, its default in parentheses.\n",
            config_summary);
    for (size_t i = 0; i < config_options_count(); i++) {
        const config_option_t *o = config_option(i);
        if (o->id)
            print_option(f, o);
        else
            fprintf(f, "\n%s%s", o->help, *o->help ? "\n" : "");
    }
    fprintf(f, "\nParameters (--set, and set_param over the protocol):\n");
    print_parameters(f);
}
