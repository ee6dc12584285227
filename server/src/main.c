/* swarmcast: configuration, wiring and signals; nothing else. */
#include <libwebsockets.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <uv.h>

#include "app/app.h"
#include "config.h"
#include "docs/completion.h"
#include "docs/env_file.h"
#include "docs/manual.h"
#include "experiment/experiment_cli.h"
#include "experiment/pool_worker.h"
#include "headless.h"
#include "people/token_strength.h"
#include "relay/relay.h"
#include "world_setup.h"

/* The process serves either the simulation (app) or a relay. */
typedef struct {
    app_t *app;
    relay_t *relay;
    uv_signal_t sigint, sigterm;
} process_t;

/* libwebsockets' log, less the line it writes for every connection the
 * server refuses on purpose (--connect-rate, --allow-origin): a flood of
 * refusals must not become a flood of the log. */
static void log_line(int level, const char *line)
{
    if (strstr(line, "User code denied connection")) return;
    lwsl_emit_stderr(level, line);
}

static void on_signal(uv_signal_t *s, int signum)
{
    process_t *p = s->data;
    fprintf(stderr, "swarmcast: %s, closing connections\n", signum == SIGINT ? "SIGINT" : "SIGTERM");
    uv_close((uv_handle_t *)&p->sigint, NULL);
    uv_close((uv_handle_t *)&p->sigterm, NULL);
    if (p->relay)
        relay_shutdown(p->relay);
    else
        app_shutdown(p->app);
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "experiment") == 0) return experiment_main(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "worker") == 0) return pool_worker_main(argc - 1, argv + 1);
    config_t cfg;
    int rc = config_load(&cfg, argc, argv, stdout, stderr);
    if (rc == CONFIG_PRINT_MAN) manual_write(stdout);
    if (rc == CONFIG_PRINT_BASH_COMPLETION) completion_write_bash(stdout);
    if (rc == CONFIG_PRINT_ENV_FILE) env_file_write(stdout);
    if (rc != CONFIG_RUN) return rc == CONFIG_EXIT_USAGE ? 2 : 0;
    if (cfg.headless) return headless_run(&cfg);
    /* A live server's --scenario: the whole file checked, and its world's
     * size, population and seed in cfg, before anything listens. */
    config_t given = cfg;
    char msg[400];
    if (world_setup_resolve(&given, &cfg, msg, sizeof msg)) {
        fprintf(stderr, "swarmcast: %s\n", msg);
        return 2;
    }
    char why[96];
    if (cfg.control_token && token_weakness(cfg.control_token, why, sizeof why))
        fprintf(stderr, "swarmcast: warning: the control token is guessable (%s); make a strong one with "
                        "`openssl rand -base64 18` (docs/DEPLOYING.md, \"Sharing a world with strangers\")\n", why);

    lws_set_log_level(LLL_ERR | LLL_WARN, log_line);
    /* A peer that vanishes mid-write must not kill the process. */
    signal(SIGPIPE, SIG_IGN);

    uv_loop_t loop;
    uv_loop_init(&loop);
    process_t p = {0};
    if (cfg.relay ? !(p.relay = relay_create(&loop, &cfg)) : !(p.app = app_create(&loop, &cfg))) {
        uv_loop_close(&loop);
        return 1;
    }
    uv_signal_init(&loop, &p.sigint);
    uv_signal_init(&loop, &p.sigterm);
    p.sigint.data = p.sigterm.data = &p;
    uv_signal_start(&p.sigint, on_signal, SIGINT);
    uv_signal_start(&p.sigterm, on_signal, SIGTERM);

    /* What a person can paste into a browser: the wildcard address is not. */
    const char *host = strcmp(cfg.bind, "0.0.0.0") == 0 ? "localhost" : strcmp(cfg.bind, "::") == 0 ? "[::1]" : cfg.bind;
    bool bracket = strchr(host, ':') && host[0] != '[';
    if (p.relay)
        printf("swarmcast listening on http://%s%s%s:%d/ (a relay of the world on NATS %s)\n", bracket ? "[" : "", host,
               bracket ? "]" : "", relay_port(p.relay), cfg.nats_url);
    else
        printf("swarmcast listening on http://%s%s%s:%d/ (%zu agents, %g Hz ticks, %g Hz snapshots)\n",
               bracket ? "[" : "", host, bracket ? "]" : "", app_port(p.app), cfg.agents, cfg.tick_hz,
               cfg.snapshot_hz);
    int metrics_port = p.relay ? relay_metrics_port(p.relay) : app_metrics_port(p.app);
    if (metrics_port >= 0) {
        bool v6 = strchr(cfg.metrics_bind, ':') != NULL;
        printf("swarmcast metrics on http://%s%s%s:%d/metrics (and the detailed /healthz; not on the public port)\n",
               v6 ? "[" : "", cfg.metrics_bind, v6 ? "]" : "", metrics_port);
    }
    fflush(stdout);

    uv_run(&loop, UV_RUN_DEFAULT);
    bool failed = p.app && app_failed(p.app);
    app_destroy(p.app);
    relay_destroy(p.relay);
    uv_run(&loop, UV_RUN_DEFAULT); /* let libwebsockets close its last handles */
    rc = uv_loop_close(&loop);
    if (rc) fprintf(stderr, "swarmcast: loop did not close cleanly: %s\n", uv_strerror(rc));
    fprintf(stderr, "swarmcast: stopped\n");
    return rc || failed ? 1 : 0;
}
