/* past_metrics: the loop's side of the metrics of the past. The room keeps
 * the metrics it computed by place, as frames of the past are (timeline/metrics_past.h: the live
 * broadcasts, and a run's stepped into the past when its room was made); a
 * viewer looking at a tick of the past is sent the row of that moment, so
 * that the page's plots give the values a live viewer read then, also for
 * ticks from before the page opened (a served run, a late joiner). One
 * message per row a viewer is shown, not per frame: a paused viewer gets
 * it once, a playing one about --metrics-hz a second of the past's time. */
#include <math.h>
#include <stdlib.h>

#include "app_internal.h"
#include "protocol/metrics_json.h"

/* Rows kept at most: four hours at the default 4 a second (about 5 MiB),
 * whatever the window; the oldest go first. */
#define PAST_METRICS_MAX_ROWS 57600

void past_metrics_open(room_t *r, uint64_t ticks)
{
    const config_t *cfg = r->cfg;
    if (!r->history || cfg->metrics_hz <= 0 || r->metrics_past) return;
    double span_s = ticks ? (double)ticks / cfg->tick_hz : cfg->history_minutes * 60.0;
    double rows = ceil(span_s * cfg->metrics_hz) + 2;
    size_t seats = cfg->timeline_seats ? cfg->timeline_seats : 1;
    r->metrics_past = metrics_past_create(rows > PAST_METRICS_MAX_ROWS ? PAST_METRICS_MAX_ROWS : (size_t)rows);
    r->past_metrics_sent = calloc(seats, sizeof *r->past_metrics_sent);
    if (!r->past_metrics_sent) { /* no past metrics then: the plots show what the page read */
        metrics_past_destroy(r->metrics_past);
        r->metrics_past = NULL;
    }
}

void past_metrics_stepped(room_t *r, const world_t *w)
{
    const config_t *cfg = r->cfg;
    if (!r->metrics_past || cfg->metrics_hz <= 0) return;
    uint64_t every = (uint64_t)fmax(1, llround(cfg->tick_hz / cfg->metrics_hz));
    if (w->tick % every) return;
    metrics_t m;
    metrics_config_t mc = metrics_default_config(w);
    mc.max_pairs = room_metrics_config(r).max_pairs;
    if (metrics_compute(&r->metrics, w, &mc, &m) == 0) past_metrics_keep(r, &m);
}

/* Rows are kept by place, as the frames of the past are (history.h): the
 * past spans resets, and after one the world's tick k is place base + k,
 * another moment than tick k before it. */
void past_metrics_keep(room_t *r, const metrics_t *m)
{
    if (!r->metrics_past || !r->history) return;
    metrics_t at = *m;
    at.tick = history_place_of(r->history, m->tick);
    metrics_past_add(r->metrics_past, &at);
}

void past_metrics_send(room_t *r, int seat, size_t slot, uint32_t client_id, uint64_t tick)
{
    metrics_t m;
    if (!r->metrics_past || seat < 0 || (size_t)seat >= r->cfg->timeline_seats ||
        !metrics_past_at(r->metrics_past, tick, &m))
        return;
    struct past_metrics_sent *sent = &r->past_metrics_sent[seat];
    if (sent->client_id == client_id && sent->tick == m.tick) return;
    char *text = msg_metrics_past(&m);
    if (!text) return;
    sent->client_id = client_id, sent->tick = m.tick;
    client_send(r->app, slot, client_id, text);
    free(text);
}
