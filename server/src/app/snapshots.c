/* snapshots: a snapshot's way out on the loop thread. The encoder worker
 * (stream/encoder.c) turns the simulation's copy of the world into a bundle
 * (every distinct view encoded once, and a v1 frame while a v1 client is
 * there); on_bundles gives the newest bundle to net's clients (v1 frame,
 * v2 chunks for compose) and each bundle to the relays (relay_bridge.c);
 * compose_v2 makes a v2 client's frame when net can write to it; and
 * sync_encoder tells the encoder which views to encode. */
#include "app_internal.h"

/* The registry's views go to the encoder when they changed; v1 frames are
 * encoded only while a v1 client is there to get them. */
void sync_encoder(room_t *r)
{
    if (!r->encoder) return; /* not started yet */
    if (views_changed(r->views)) {
        size_t n;
        const view_spec_t *specs = views_specs(r->views, &n);
        if (specs) encoder_set_views(r->encoder, specs, n);
    }
    encoder_want_v1(r->encoder, net_channel_protocol_count(r->app->net, r->index, 1) > 0);
}

/* The encoder made bundles: the newest one's chunks become what v2 clients
 * are sent (older ones still fill the views' delta rings), its v1 frame
 * goes to v1 clients. */
void on_bundles(void *user)
{
    room_t *r = user;
    app_t *a = r->app;
    bundle_t *list = encoder_take(r->encoder);
    if (!list || r->closing) {
        for (bundle_t *next; list; list = next) next = list->next, bundle_free(list);
        return;
    }
    while (list) {
        bundle_t *b = list;
        list = b->next;
        b->next = NULL;
        compose_apply(r->compose, b);
        if (a->nats) publish_bundle(r, b);
        if (b->v1) {
            net_publish_snapshot(a->net, r->index, shared_buf_data(b->v1), b->v1->len);
            shared_buf_unref(r->v1_frame);
            r->v1_frame = shared_buf_ref(b->v1);
        }
        bundle_free(r->current);
        r->current = b;
    }
    viewers_set_grid(r->viewers, &r->current->grid);
    viewers_poll(r->viewers, now_ns());
    timeline_follow_views(r);
    sync_encoder(r);
    net_publish_v2(a->net, r->index);
}

int compose_v2(void *user, uint32_t client_id, size_t slot, const uint8_t **data, size_t *len)
{
    app_t *a = user;
    room_t *r = room_of_slot(a, slot);
    if (!r) return 0;
    int past = timeline_compose(r, slot, client_id, data, len);
    if (past >= 0) return past; /* it looks at the past: no live frames meanwhile */
    viewer_view_t v = viewers_view_of(r->viewers, slot);
    return v.view_id ? compose_frame(r->compose, slot, client_id, v.view_id, data, len) : 0;
}
