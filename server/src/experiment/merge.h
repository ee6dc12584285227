/* merge: `swarmcast experiment merge --out DIR SHARD_DIR...` joins the
 * output folders of the shares of one sweep (--shard, --index, machines of a
 * job array) into one folder with the same files a single run would have
 * made: its journal holds every run once in the plan's order, and its
 * results.csv and summary.csv are byte-identical to an unsharded sweep's.
 * The folders must hold the same experiment (experiment.json byte for
 * byte); a run done in several keeps its first success. */
#ifndef SWARMCAST_MERGE_H
#define SWARMCAST_MERGE_H

/* The exit status: 0, 2 (folders that do not belong together), 1 (I/O). */
int merge_run(const char *out_dir, const char *const *dirs, int n_dirs);

#endif
