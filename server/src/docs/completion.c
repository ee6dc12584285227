#include "docs/completion.h"

#include <string.h>

#include "config_options.h"
#include "sim/params.h"

/* The argument names that stand for a path. */
static int is_file(const char *arg)
{
    return !strcmp(arg, "FILE") || !strcmp(arg, "PATH");
}

/* The options (with an argument or not, or all: want_arg -1; only those pick
 * accepts), separated by sep: a case pattern's "|" or a word list's " ". */
static void words(FILE *f, int want_arg, const char *(*pick)(const char *), const char *sep)
{
    const char *before = "";
    for (size_t i = 0; i < config_options_count(); i++) {
        const config_option_t *o = config_option(i);
        if (!o->id || (want_arg >= 0 && (o->arg != NULL) != want_arg)) continue;
        if (pick && (!o->arg || !pick(o->arg))) continue;
        fprintf(f, "%s--%s", before, o->name);
        before = sep;
    }
}

static const char *file_arg(const char *arg)
{
    return is_file(arg) ? arg : NULL;
}

static const char *dir_arg(const char *arg)
{
    return !strcmp(arg, "DIR") ? arg : NULL;
}

void completion_write_bash(FILE *f)
{
    fputs("# bash completion for swarmcast, printed by `swarmcast --bash-completion` from its option table.\n"
          "_swarmcast()\n{\n    local cur prev\n    cur=${COMP_WORDS[COMP_CWORD]}\n"
          "    prev=${COMP_WORDS[COMP_CWORD-1]}\n"
          "    if [ \"$COMP_CWORD\" -ge 2 ] && [ \"${COMP_WORDS[1]}\" = experiment ]; then\n"
          "        case $COMP_CWORD in\n"
          "            2) COMPREPLY=($(compgen -W 'plan run merge scenario --help' -- \"$cur\")) ;;\n"
          "            *) case $prev in\n"
          "                   --out) COMPREPLY=($(compgen -d -- \"$cur\")) ;;\n"
          "                   --workers|--shard|--index|--ack-wait|--max-deliver|--nats) ;;\n"
          "                   *) COMPREPLY=($(compgen -W '--out --workers --shard --index --nats --ack-wait "
          "--max-deliver' -- \"$cur\") $(compgen -f -- \"$cur\")) ;;\n"
          "               esac ;;\n"
          "        esac\n        return\n    fi\n"
          "    if [ \"$COMP_CWORD\" -ge 2 ] && [ \"${COMP_WORDS[1]}\" = worker ]; then\n"
          "        case $prev in --nats|--name) ;; *) COMPREPLY=($(compgen -W '--nats --name --help' -- \"$cur\")) ;; "
          "esac\n        return\n    fi\n"
          "    case $prev in\n",
          f);
    fputs("        ", f);
    words(f, 1, file_arg, "|");
    fputs(")\n            COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n        ", f);
    words(f, 1, dir_arg, "|");
    fputs(")\n            COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n", f);
    fputs("        --rooms) COMPREPLY=($(compgen -W 'open operators off' -- \"$cur\")); return ;;\n", f);
    /* The models and the parameters' names, from the registry. */
    int model = params_find("model");
    if (model >= 0) {
        const param_desc_t *d = params_desc((size_t)model);
        fputs("        --model) COMPREPLY=($(compgen -W '", f);
        for (int k = 0; k <= (int)d->max; k++) fprintf(f, "%s%s", k ? " " : "", d->enum_names[k]);
        fputs("' -- \"$cur\")); return ;;\n", f);
    }
    fputs("        --set) compopt -o nospace 2>/dev/null; COMPREPLY=($(compgen -S = -W '", f);
    for (size_t i = 0; i < params_count(); i++) fprintf(f, "%s%s", i ? " " : "", params_desc(i)->name);
    fputs("' -- \"$cur\")); return ;;\n        ", f);
    words(f, 1, NULL, "|");
    fputs(")\n            return ;;\n    esac\n    local opts='", f);
    words(f, -1, NULL, " ");
    fputs("'\n    if [ \"$COMP_CWORD\" -eq 1 ]; then opts=\"relay experiment worker $opts\"; fi\n"
          "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n}\ncomplete -F _swarmcast swarmcast\n",
          f);
}
