/* out_dir: the output folder of an experiment. Besides the tables and the
 * journal it holds the experiment itself, made self-contained: its scenario
 * inlined and a design table copied beside it (experiment.json,
 * design.csv), so that a merge of shards, a later resume or a reader needs
 * nothing but the folder; and the base scenario on its own (scenario.json),
 * the file every run's headless command names. */
#ifndef SWARMCAST_OUT_DIR_H
#define SWARMCAST_OUT_DIR_H

#include <stddef.h>

#include "experiment/experiment_file.h"

/* Creates dir if needed and writes experiment.json, design.csv (a table
 * design) and scenario.json. `file` is the experiment file e was read from.
 * 0, or -1 with msg. */
int out_dir_prepare(const char *file, const experiment_t *e, const char *dir, char *msg, size_t msg_len);

/* Creates dir if needed and takes its lock (dir/.lock, flock): one runner
 * or merge writes a folder at a time; a second is refused with msg rather
 * than interleaving its journal with the first's. *fd holds the lock until
 * out_dir_unlock. 0, or -1 with msg. */
int out_dir_lock(const char *dir, int *fd, char *msg, size_t msg_len);
void out_dir_unlock(int fd);

/* dir/name into out; -1 when it does not fit. */
int out_dir_path(const char *dir, const char *name, char *out, size_t out_len);

/* Writes text to dir/name through a temporary file and a rename. */
int out_dir_write(const char *dir, const char *name, const char *text, size_t len, char *msg, size_t msg_len);

#endif
