#include "reference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ref_init(ref_world_t *r, size_t n, const float *x, const float *y, const float *vx, const float *vy,
             float width, float height, float dt)
{
    memset(r, 0, sizeof *r);
    r->n = n;
    r->width = width;
    r->height = height;
    r->dt = dt;
    r->sep_r = 25, r->ali_r = 50, r->coh_r = 50, r->fov_deg = 300;
    r->w_sep = 1.5f, r->w_ali = 1, r->w_coh = 1, r->max_speed = 150, r->max_force = 300;
    float cell = r->coh_r;
    r->nx = (int)(width / cell);
    r->ny = (int)(height / cell);
    if (r->nx < 3) r->nx = 3;
    if (r->ny < 3) r->ny = 3;
    r->cell_w = width / (float)r->nx;
    r->cell_h = height / (float)r->ny;
    size_t cells = (size_t)r->nx * (size_t)r->ny;
    r->agents = malloc(n * sizeof *r->agents);
    r->next = malloc(n * sizeof *r->next);
    r->cell_start = malloc((cells + 1) * sizeof *r->cell_start);
    r->cell_count = malloc(cells * sizeof *r->cell_count);
    r->index = malloc(n * sizeof *r->index);
    if (!r->agents || !r->next || !r->cell_start || !r->cell_count || !r->index) {
        ref_free(r);
        return -1;
    }
    for (size_t i = 0; i < n; i++) r->agents[i] = (ref_agent_t){x[i], y[i], vx[i], vy[i]};
    return 0;
}

void ref_free(ref_world_t *r)
{
    free(r->agents);
    free(r->next);
    free(r->cell_start);
    free(r->cell_count);
    free(r->index);
    memset(r, 0, sizeof *r);
}

static int cell_of(const ref_world_t *r, float x, float y)
{
    int cx = (int)(x / r->cell_w), cy = (int)(y / r->cell_h);
    if (cx >= r->nx) cx = r->nx - 1;
    if (cy >= r->ny) cy = r->ny - 1;
    return cy * r->nx + cx;
}

static void steer(float dx, float dy, const ref_agent_t *a, float max_speed, float max_force, float *sx, float *sy)
{
    float len = sqrtf(dx * dx + dy * dy);
    *sx = *sy = 0;
    if (len == 0) return;
    float ux = dx / len * max_speed - a->vx, uy = dy / len * max_speed - a->vy;
    float m = sqrtf(ux * ux + uy * uy);
    if (m > max_force) {
        ux = ux / m * max_force;
        uy = uy / m * max_force;
    }
    *sx = ux;
    *sy = uy;
}

void ref_step(ref_world_t *r)
{
    size_t cells = (size_t)r->nx * (size_t)r->ny;
    memset(r->cell_count, 0, cells * sizeof *r->cell_count);
    for (size_t i = 0; i < r->n; i++) r->cell_count[cell_of(r, r->agents[i].x, r->agents[i].y)]++;
    uint32_t sum = 0;
    for (size_t c = 0; c < cells; c++) {
        r->cell_start[c] = sum;
        sum += r->cell_count[c];
        r->cell_count[c] = 0;
    }
    r->cell_start[cells] = sum;
    for (size_t i = 0; i < r->n; i++) {
        int c = cell_of(r, r->agents[i].x, r->agents[i].y);
        r->index[r->cell_start[c] + r->cell_count[c]++] = (uint32_t)i;
    }

    const float cos_half = cosf(r->fov_deg * 0.5f * 3.14159265f / 180.0f);
    size_t pairs = 0;
    for (size_t i = 0; i < r->n; i++) {
        const ref_agent_t *a = &r->agents[i];
        float speed = sqrtf(a->vx * a->vx + a->vy * a->vy);
        float sep_x = 0, sep_y = 0, ali_x = 0, ali_y = 0, coh_x = 0, coh_y = 0;
        int ns = 0, na = 0, nc = 0;
        int cx = (int)(a->x / r->cell_w), cy = (int)(a->y / r->cell_h);
        for (int oy = -1; oy <= 1; oy++)
            for (int ox = -1; ox <= 1; ox++) {
                int gx = (cx + ox + r->nx) % r->nx, gy = (cy + oy + r->ny) % r->ny;
                int c = gy * r->nx + gx;
                for (uint32_t k = r->cell_start[c]; k < r->cell_start[c + 1]; k++) {
                    uint32_t j = r->index[k];
                    if (j == i) continue;
                    const ref_agent_t *b = &r->agents[j];
                    float dx = b->x - a->x, dy = b->y - a->y;
                    if (dx > r->width / 2) dx -= r->width;
                    if (dx < -r->width / 2) dx += r->width;
                    if (dy > r->height / 2) dy -= r->height;
                    if (dy < -r->height / 2) dy += r->height;
                    float d = sqrtf(dx * dx + dy * dy);
                    if (d >= r->coh_r && d >= r->ali_r && d >= r->sep_r) continue;
                    if (speed > 0 && d > 0 && a->vx * dx + a->vy * dy < cos_half * speed * d) continue;
                    pairs++;
                    if (d < r->sep_r && d > 0) {
                        sep_x -= dx / d / d;
                        sep_y -= dy / d / d;
                        ns++;
                    }
                    if (d < r->ali_r) {
                        ali_x += b->vx;
                        ali_y += b->vy;
                        na++;
                    }
                    if (d < r->coh_r) {
                        coh_x += dx;
                        coh_y += dy;
                        nc++;
                    }
                }
            }
        float ax = 0, ay = 0, wsum = 0, sx, sy;
        if (ns) {
            steer(sep_x, sep_y, a, r->max_speed, r->max_force, &sx, &sy);
            ax += r->w_sep * sx, ay += r->w_sep * sy, wsum += r->w_sep;
        }
        if (na) {
            steer(ali_x, ali_y, a, r->max_speed, r->max_force, &sx, &sy);
            ax += r->w_ali * sx, ay += r->w_ali * sy, wsum += r->w_ali;
        }
        if (nc) {
            steer(coh_x, coh_y, a, r->max_speed, r->max_force, &sx, &sy);
            ax += r->w_coh * sx, ay += r->w_coh * sy, wsum += r->w_coh;
        }
        ref_agent_t out = *a;
        if (wsum > 0) {
            out.vx += ax / wsum * r->dt;
            out.vy += ay / wsum * r->dt;
        }
        float s = sqrtf(out.vx * out.vx + out.vy * out.vy);
        if (s > r->max_speed) {
            out.vx = out.vx / s * r->max_speed;
            out.vy = out.vy / s * r->max_speed;
        }
        out.x += out.vx * r->dt;
        out.y += out.vy * r->dt;
        if (out.x < 0) out.x += r->width;
        if (out.x >= r->width) out.x -= r->width;
        if (out.y < 0) out.y += r->height;
        if (out.y >= r->height) out.y -= r->height;
        r->next[i] = out;
    }
    ref_agent_t *tmp = r->agents;
    r->agents = r->next;
    r->next = tmp;
    r->mean_neighbours = r->n ? (double)pairs / (double)r->n : 0;
}
