#include "docs/manual.h"

#include <string.h>

#include "config_help.h"
#include "config_options.h"
#include "docs/roff.h"
#include "experiment/experiment_cli.h"
#include "experiment/pool_worker.h"
#include "sim/params.h"

static void section(FILE *f, const char *name)
{
    fprintf(f, ".SH %s\n", name);
}

/* A block printed line for line (a subcommand's own --help). */
static void verbatim(FILE *f, const char *text)
{
    fputs(".PP\n.nf\n", f);
    roff_text(f, text, strlen(text));
    if (text[0] && text[strlen(text) - 1] != '\n') fputc('\n', f);
    fputs(".fi\n", f);
}

static void synopsis(FILE *f)
{
    section(f, "SYNOPSIS");
    for (size_t i = 0; config_synopsis[i]; i++) {
        const char *tab = strchr(config_synopsis[i], '\t');
        fputs(i ? ".br\n" : "", f);
        fputs("\\fBswarmcast\\fR ", f);
        roff_text(f, config_synopsis[i], (size_t)(tab - config_synopsis[i]));
        fputc('\n', f);
    }
}

static void modes(FILE *f)
{
    section(f, "DESCRIPTION");
    roff_words(f, config_summary);
    fputs("\n.PP\nEvery setting comes from its default, then its SWARMCAST_* environment variable, then its "
          "command-line option: a later one wins. An installed swarmcast serves the web client from "
          "PREFIX/share/swarmcast/client-web beside its bin/ without \\fB\\-\\-web\\-root\\fR.\n",
          f);
    section(f, "MODES");
    static const char *const what[][2] = {
        {"live", "The default: \\fBswarmcast\\fR [options]. One process steps the world and serves the page, its "
                 "WebSocket viewers and rooms on \\fB\\-\\-bind\\fR:\\fB\\-\\-port\\fR, until SIGINT or SIGTERM. "
                 "With \\fB\\-\\-nats\\fR it also publishes the stream for relays."},
        {"relay", "\\fBswarmcast relay \\-\\-nats\\fR \\fIURL\\fR [options] serves viewers from the NATS subjects "
                  "a live server publishes; it has no world of its own (no \\fB\\-\\-state\\-file\\fR, "
                  "\\fB\\-\\-state\\-dir\\fR, \\fB\\-\\-record\\fR or \\fB\\-\\-scenario\\fR)."},
        {"headless", "\\fBswarmcast \\-\\-headless \\-\\-steps\\fR \\fIN\\fR steps the world without any network "
                     "and exits; \\fB\\-\\-csv\\fR, \\fB\\-\\-final\\fR and \\fB\\-\\-replay\\fR write or re-run "
                     "its files. The same seed and inputs give byte-identical files."},
        {"experiment", "\\fBswarmcast experiment\\fR plans, runs and merges sweeps of headless runs; its own "
                       "options are under EXPERIMENTS below. A FILE that is not found names one of the "
                       "shipped experiments in PREFIX/share/swarmcast/experiments (e.g. fov.json)."},
        {"worker", "\\fBswarmcast worker \\-\\-nats\\fR \\fIURL\\fR runs the runs of experiments started with "
                   "\\fBswarmcast experiment run \\-\\-nats\\fR, one at a time; see WORKER below."},
    };
    for (size_t i = 0; i < sizeof what / sizeof what[0]; i++) fprintf(f, ".TP\n.B %s\n%s\n", what[i][0], what[i][1]);
}

static void option(FILE *f, const config_option_t *o)
{
    fputs(".TP\n\\fB\\-\\-", f);
    roff_text(f, o->name, strlen(o->name));
    fputs("\\fR", f);
    if (o->arg) {
        fputs(" \\fI", f);
        roff_text(f, o->arg, strlen(o->arg));
        fputs("\\fR", f);
    }
    fputc('\n', f);
    roff_words(f, o->help);
    fputs(".\n", f);
    const char *def = config_option_default(o);
    if (o->env || def) fputs(".br\n", f);
    if (o->env) fprintf(f, "Environment: \\fB%s\\fR.%s", o->env, def ? " " : "\n");
    if (def) {
        fputs("Default: ", f);
        roff_words(f, def);
        fputs(".\n", f);
    }
}

static void options(FILE *f)
{
    section(f, "OPTIONS");
    for (size_t i = 0; i < config_options_count(); i++) {
        const config_option_t *o = config_option(i);
        if (o->id) {
            option(f, o);
            continue;
        }
        /* A heading: its first clause names the subsection, the whole of it follows. */
        size_t n = strcspn(o->help, "(:");
        while (n && o->help[n - 1] == ' ') n--;
        fputs(".SS ", f);
        if (n)
            roff_text(f, o->help, n);
        else
            fputs("General", f);
        fputc('\n', f);
        if (n) {
            fputs(".PP\n", f);
            roff_words(f, o->help);
            fputc('\n', f);
        }
    }
}

static void parameters(FILE *f)
{
    section(f, "PARAMETERS");
    fputs("The simulation's parameters, for \\fB\\-\\-set\\fR \\fINAME\\fR=\\fIVALUE\\fR and a scenario's "
          "\"params\" (and set_param over the protocol):\n",
          f);
    for (size_t i = 0; i < params_count(); i++) {
        const param_desc_t *d = params_desc(i);
        fprintf(f, ".TP\n.B %s\n", d->name);
        if (d->type == PARAM_ENUM) {
            fputs("One of ", f);
            for (int k = 0; k <= (int)d->max; k++) fprintf(f, "%s\\fB%s\\fR", k ? ", " : "", d->enum_names[k]);
            fprintf(f, "; default \\fB%s\\fR. ", d->enum_names[(int)d->def]);
        } else {
            fprintf(f, "%g to %g", d->min, d->max);
            if (*d->unit) {
                fputc(' ', f);
                roff_words(f, d->unit);
            }
            fprintf(f, "; default %g. ", d->def);
        }
        roff_words(f, d->help);
        fputc('\n', f);
    }
}

static void environment(FILE *f)
{
    section(f, "ENVIRONMENT");
    fputs("Each of these sets the option it names, as that option would; an empty one is ignored. "
          "The command line wins over them; experiment runs read none of them.\n",
          f);
    for (size_t i = 0; i < config_options_count(); i++) {
        const config_option_t *o = config_option(i);
        if (!o->env) continue;
        fprintf(f, ".TP\n.B %s\n\\fB\\-\\-", o->env);
        roff_text(f, o->name, strlen(o->name));
        fputs("\\fR\n", f);
    }
}

void manual_write(FILE *f)
{
    fprintf(f, ".\\\" swarmcast(1), printed by `swarmcast --man` from the option table (server/src/config_options.c).\n"
               ".TH SWARMCAST 1 \"\" \"swarmcast %s\" \"User Commands\"\n",
            SWARMCAST_VERSION);
    section(f, "NAME");
    fputs("swarmcast \\- a flocking simulation streamed live to browsers, and its experiments\n", f);
    synopsis(f);
    modes(f);
    options(f);
    parameters(f);
    section(f, "EXPERIMENTS");
    verbatim(f, experiment_usage);
    section(f, "WORKER");
    verbatim(f, pool_worker_usage);
    environment(f);
    section(f, "EXIT STATUS");
    fputs(".TP\n.B 0\nStopped by SIGINT or SIGTERM; a headless run or an experiment finished; "
          "\\fB\\-\\-help\\fR and the other texts printed.\n"
          ".TP\n.B 1\nA failure at run time: the port could not be opened, the web root or NATS could not be "
          "reached, a file could not be read or written.\n"
          ".TP\n.B 2\nA bad option, environment variable, scenario or experiment file: nothing was started.\n"
          ".TP\n.B 3\n\\fBswarmcast experiment run\\fR: some runs failed; the others are done.\n",
          f);
    section(f, "FILES");
    fputs(".TP\n.I /etc/swarmcast/swarmcast.env\nThe packaged service's settings: SWARMCAST_* variables, "
          "each commented with its option and default (\\fBswarmcast \\-\\-env\\-file\\fR prints it).\n"
          ".TP\n.I /usr/share/swarmcast/client\\-web\nThe web client and its libraries, the default "
          "\\fB\\-\\-web\\-root\\fR of /usr/bin/swarmcast (PREFIX/share/swarmcast from another prefix).\n"
          ".TP\n.I /usr/share/swarmcast/experiments\nThe shipped experiment files.\n"
          ".TP\n.I /var/lib/swarmcast\nThe service's \\fB\\-\\-state\\-dir\\fR (systemd's StateDirectory).\n"
          ".TP\n.I /lib/systemd/system/swarmcast.service\nThe service: \\fBsystemctl enable \\-\\-now "
          "swarmcast\\fR.\n",
          f);
    section(f, "EXAMPLES");
    static const char *const examples[][2] = {
        {"swarmcast", "Serve the default world at http://127.0.0.1:8080/."},
        {"swarmcast --bind 0.0.0.0 --control-token \"$(openssl rand -base64 18)\"",
         "Share a world: anyone on the network watches and steers, operators sign in with the token."},
        {"swarmcast --agents 2000 --set model=couzin --state-dir /var/lib/swarmcast",
         "Another model, and rooms and set-up kept across restarts."},
        {"swarmcast --headless --steps 600 --seed 7 --csv metrics.csv --final end.json",
         "Ten seconds of simulated time, without a network, as files."},
        {"swarmcast relay --nats nats://127.0.0.1:4222 --port 8081",
         "A relay of a server started with --nats nats://127.0.0.1:4222."},
        {"swarmcast experiment run fov.json --out fov-results", "A shipped sweep, on every core."},
    };
    for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++) {
        fputs(".PP\n.nf\n.RS\n", f);
        roff_text(f, examples[i][0], strlen(examples[i][0]));
        fputs("\n.RE\n.fi\n", f);
        roff_words(f, examples[i][1]);
        fputc('\n', f);
    }
    section(f, "SEE ALSO");
    fputs("The project's docs/ and protocol/PROTOCOL.md; \\fBsystemd.exec\\fR(5) for the service's sandbox.\n", f);
}
