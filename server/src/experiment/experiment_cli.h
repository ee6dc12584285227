/* experiment_cli: the `swarmcast experiment` subcommands. */
#ifndef SWARMCAST_EXPERIMENT_CLI_H
#define SWARMCAST_EXPERIMENT_CLI_H

/* argv[0] is "experiment"; returns the process's exit status. */
int experiment_main(int argc, char **argv);
/* `swarmcast experiment --help` (the manual page shows it too). */
extern const char experiment_usage[];

#endif
