#include "docs/env_file.h"

#include <string.h>

#include "config_help.h"
#include "config_options.h"

/* text as comment lines, its newlines kept, after prefix. */
static void comment(FILE *f, const char *prefix, const char *text)
{
    fprintf(f, "# %s", prefix);
    for (const char *ch = text; *ch; ch++) {
        if (*ch == '\n')
            fputs("\n#   ", f);
        else
            fputc(*ch, f);
    }
    fputc('\n', f);
}

void env_file_write(FILE *f)
{
    fputs("# swarmcast's settings for swarmcast.service (systemd's EnvironmentFile=): one VAR=value a line.\n"
          "# Every variable sets the command-line option named above it (man swarmcast); an empty or\n"
          "# commented-out one keeps the default shown. After a change: systemctl restart swarmcast.\n"
          "# The service already gives --state-dir /var/lib/swarmcast on its command line.\n"
          "# Printed by `swarmcast --env-file` from the option table, so it names every setting there is.\n",
          f);
    for (size_t i = 0; i < config_options_count(); i++) {
        const config_option_t *o = config_option(i);
        if (!o->id) {
            if (*o->help) {
                fputs("\n", f);
                comment(f, "", o->help);
            }
            continue;
        }
        if (!o->env) continue;
        fputs("\n", f);
        char head[80];
        snprintf(head, sizeof head, "--%s%s%s: ", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        comment(f, head, o->help);
        const char *def = config_option_default(o);
        if (def) comment(f, "default: ", def);
        fprintf(f, "#%s=\n", o->env);
    }
}
