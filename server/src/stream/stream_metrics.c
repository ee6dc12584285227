#include "stream/stream_metrics.h"

#include "protocol/json_out.h"

static void series(jbuf_t *b, const char *name, const char *type, const char *help, double value)
{
    jb_printf(b, "# HELP %s %s\n# TYPE %s %s\n%s %.9g\n", name, help, name, type, name, value);
}

char *stream_metrics_text(const encoder_stats_t *e, const compose_stats_t *c, const stream_gauges_t *g)
{
    jbuf_t b;
    jb_init_growing(&b);
    series(&b, "swarmcast_views", "gauge", "distinct views (tile rect and mode) encoded per snapshot", (double)g->views);
    series(&b, "swarmcast_encoder_views", "gauge", "view encoders alive on the encoder worker", (double)e->views);
    series(&b, "swarmcast_encode_snapshots_total", "counter", "snapshots the encoder worker quantized and encoded",
           (double)e->snapshots);
    series(&b, "swarmcast_encode_replaced_total", "counter",
           "world copies replaced by a newer one before the encoder worker took them", (double)e->replaced);
    series(&b, "swarmcast_encode_seconds_total", "counter",
           "encoder worker time: quantizing plus every view (and v1) per snapshot", e->seconds_total);
    series(&b, "swarmcast_encode_seconds_last", "gauge", "encoder worker time of the last snapshot", e->seconds_last);
    series(&b, "swarmcast_encode_seconds_max", "gauge", "longest encoder worker time of one snapshot", e->seconds_max);
    series(&b, "swarmcast_v1_frames_encoded_total", "counter", "v1 frames encoded (only while a v1 client is connected)",
           (double)e->v1_frames);
    series(&b, "swarmcast_frames_composed_total", "counter", "v2 frames built (one per view, recipe and scene)",
           (double)c->frames_composed);
    series(&b, "swarmcast_compose_cache_hits_total", "counter", "v2 frames handed out again from the composition cache",
           (double)c->cache_hits);
    jb_printf(&b, "# HELP swarmcast_encode_snapshots_by_path_total snapshots by how the encoder made them: by_id "
                  "(quantized by agent id, for detail views) or summed (one pass over the copy: no view, or LOD views only)\n"
                  "# TYPE swarmcast_encode_snapshots_by_path_total counter\n"
                  "swarmcast_encode_snapshots_by_path_total{path=\"by_id\"} %llu\n"
                  "swarmcast_encode_snapshots_by_path_total{path=\"summed\"} %llu\n",
              (unsigned long long)e->by_id, (unsigned long long)e->summed);
    jb_printf(&b, "# HELP swarmcast_v2_frames_by_recipe_total v2 frames handed to clients, by recipe\n"
                  "# TYPE swarmcast_v2_frames_by_recipe_total counter\n"
                  "swarmcast_v2_frames_by_recipe_total{recipe=\"key\"} %llu\n"
                  "swarmcast_v2_frames_by_recipe_total{recipe=\"delta\"} %llu\n"
                  "swarmcast_v2_frames_by_recipe_total{recipe=\"chain\"} %llu\n",
              (unsigned long long)c->keys, (unsigned long long)c->deltas, (unsigned long long)c->chains);
    if (b.failed) {
        jb_free(&b);
        return NULL;
    }
    return b.buf;
}
