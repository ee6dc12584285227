/* Frame assembly of protocol v2: the 20-byte header, the optional scene and
 * the chunk headers. */
#include <stdlib.h>
#include <string.h>

#include "protocol/le_bytes.h"
#include "protocol/wire2.h"

void wire2_chunk_header_write(uint8_t *out, unsigned type, wire2_rect_t r, uint32_t seq, uint32_t payload_bytes)
{
    out[0] = (uint8_t)type;
    out[1] = r.level;
    put_u16(out + 2, r.x0);
    put_u16(out + 4, r.y0);
    put_u16(out + 6, r.x1);
    put_u16(out + 8, r.y1);
    put_u32(out + 10, seq);
    put_u32(out + 14, payload_bytes);
}

void wire2_chunk_free(wire2_chunk_t *c)
{
    free(c->buf);
    *c = (wire2_chunk_t){0};
}

size_t wire2_frame_header_size(const snap_view_t *scene)
{
    if (!scene) return WIRE2_HEADER_BYTES;
    return WIRE2_HEADER_BYTES + WIRE2_SCENE_FIXED_BYTES + SNAP_OBSTACLE_BYTES * scene->n_obstacles +
           SNAP_TARGET_BYTES * scene->n_targets;
}

size_t wire2_frame_header(uint8_t *out, size_t cap, const wire2_world_t *q, uint32_t population,
                          const snap_view_t *scene, uint16_t n_chunks)
{
    size_t size = wire2_frame_header_size(scene);
    if (size > cap) return 0;
    if (scene && (scene->n_obstacles > 0xffff || scene->n_targets > 0xffff)) return 0;
    out[0] = WIRE2_KIND;
    out[1] = WIRE2_VERSION;
    put_u16(out + 2, (q->paused ? WIRE2_FLAG_PAUSED : 0u) | (scene ? WIRE2_FLAG_SCENE : 0u));
    put_u32(out + 4, q->seq);
    put_u32(out + 8, q->tick);
    put_u32(out + 12, population);
    put_u16(out + 16, n_chunks);
    put_u16(out + 18, 0);
    if (!scene) return size;
    uint8_t *p = out + WIRE2_HEADER_BYTES;
    put_f32(p, scene->width);
    put_f32(p + 4, scene->height);
    put_u16(p + 8, (uint32_t)scene->n_obstacles);
    put_u16(p + 10, (uint32_t)scene->n_targets);
    p += WIRE2_SCENE_FIXED_BYTES;
    for (size_t k = 0; k < scene->n_obstacles; k++, p += SNAP_OBSTACLE_BYTES) {
        put_u32(p, scene->obstacles[k].id);
        put_f32(p + 4, scene->obstacles[k].x);
        put_f32(p + 8, scene->obstacles[k].y);
        put_f32(p + 12, scene->obstacles[k].r);
    }
    for (size_t k = 0; k < scene->n_targets; k++, p += SNAP_TARGET_BYTES) {
        put_u32(p, scene->targets[k].client_id);
        put_f32(p + 4, scene->targets[k].x);
        put_f32(p + 8, scene->targets[k].y);
    }
    return size;
}

int wire2_frame_build(const wire2_world_t *q, uint32_t population, const snap_view_t *scene,
                      const wire2_chunk_t *chunks, size_t n_chunks, uint8_t **out, size_t *out_len)
{
    *out = NULL;
    *out_len = 0;
    if (n_chunks > 0xffff) return WIRE2_E_ARG;
    size_t head = wire2_frame_header_size(scene), size = head;
    for (size_t i = 0; i < n_chunks; i++) size += chunks[i].len;
    uint8_t *buf = malloc(size);
    if (!buf) return WIRE2_E_NOMEM;
    if (wire2_frame_header(buf, size, q, population, scene, (uint16_t)n_chunks) != head) {
        free(buf);
        return WIRE2_E_ARG;
    }
    size_t off = head;
    for (size_t i = 0; i < n_chunks; i++) {
        if (chunks[i].len) memcpy(buf + off, chunks[i].buf, chunks[i].len);
        off += chunks[i].len;
    }
    *out = buf;
    *out_len = size;
    return 0;
}
