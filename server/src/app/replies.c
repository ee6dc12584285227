/* replies: what the simulation thread says back. It fills a list of replies
 * (acks, errors, news under a key, activity and inspect messages) and hands
 * it over under the lock (sim_thread.c: publish); the loop thread takes it
 * in on_wake, with any state-file capture, and routes each reply by its key:
 * news to everyone, activity into the feed, inspect only to a client whose
 * outbox is not backing up, the rest to their client. */
#include <stdlib.h>

#include "app_internal.h"

void replies_push(replies_t *r, size_t slot, uint32_t to, int key, char *text)
{
    if (!text) return;
    if (r->len == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        reply_t *grown = realloc(r->items, cap * sizeof *grown);
        if (!grown) {
            free(text); /* out of memory: this reply is lost, nothing else */
            return;
        }
        r->items = grown;
        r->cap = cap;
    }
    r->items[r->len++] = (reply_t){to, slot, key, text};
}

void replies_clear(replies_t *r)
{
    for (size_t i = 0; i < r->len; i++) free(r->items[i].text);
    r->len = 0;
}

/* The simulation has replies and maybe a new frame: send them. */
void on_wake(uv_async_t *handle)
{
    room_t *room = handle->data;
    app_t *a = room->app;
    replies_t out = {0};
    pthread_mutex_lock(&room->lock);
    out = room->outgoing;
    room->outgoing = (replies_t){0};
    state_image_t *captured = room->state_captured;
    room->state_captured = NULL;
    pthread_mutex_unlock(&room->lock);
    timeline_deliver(room);

    for (size_t i = 0; i < out.len; i++) {
        const reply_t *r = &out.items[i];
        if (room->closing) break; /* its people are being sent away */
        if (r->key >= 0) {
            send_latest(room, (unsigned)r->key, r->text);
        } else if (r->key == ROUTE_ACTIVITY) {
            presence_activity(room->presence, r->to, r->text, wall_clock_s());
        } else if (r->key == ROUTE_INSPECT) {
            if (client_backlog(a, r->slot, r->to) < INSPECT_MAX_BACKLOG) client_send(a, r->slot, r->to, r->text);
        } else {
            client_send(a, r->slot, r->to, r->text);
        }
    }
    replies_clear(&out);
    free(out.items);
    if (captured) state_write_queue(room, captured);
}
