/* Obstacles are solid, by the measure the metrics report (`penetrations`:
 * the displacement from the obstacle's centre, the shortest way round when
 * the world wraps, in float, shorter than the radius). Where the push-out
 * suffices (edges, touching and overlapping obstacles, narrow gaps, a
 * dragged obstacle) no agent is inside after any tick; where it needs the
 * escape (escape.h: far from the origin, an obstacle over a bouncing or
 * respawning border, the largest obstacles on a small torus) an agent may
 * stay inside until its turn to escape: none is inside after a step on
 * its turn (escape_turn; with the escape off, 5 to 111 are, per scene),
 * and none for more than ESCAPE_EVERY ticks running (a weaker check: in
 * these scenes the agents left inside drift out within 16 ticks even with
 * the escape off). The hard cases for the push-out: an
 * agent exactly on an edge, at the point where two obstacles touch, in the
 * lens of overlapping ones, in a gap narrower than the push-out's margin,
 * under an obstacle dragged onto a crowd, at the world's border, with the
 * smallest and largest radii the commands allow, in every model, steering
 * every tick and staggered. Agents are points: any gap holds one, a
 * touching point too (distance = radius is outside). An agent squeezed
 * into a gap narrower than the margin is pushed straight out from the
 * first obstacle (in table order) holding it, through the other one to
 * where the line leaves both: the same place on every run, never NaN.
 * Where obstacles leave no room at all it stays inside, finite. */
#include <stdio.h>
#include <stdlib.h>

#include "sim_fixtures.h"
#include "sim/commands.h"
#include "sim/escape.h"
#include "sim/motion.h"

/* A deterministic stream of numbers in [0, 1) for placing agents. */
static float draw(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (float)(*s >> 8) / 16777216.0f;
}

/* Whether (x, y) is inside an obstacle by the metrics' measure (NaN
 * counts): which one first, and how deep. */
static bool point_inside(const world_t *w, float x, float y, size_t *which, double *depth)
{
    if (!isfinite(x) || !isfinite(y)) return true;
    const bool wrap = w->params.border == BORDER_WRAP;
    for (size_t k = 0; k < w->n_obstacles; k++) {
        const obstacle_t *o = &w->obstacles[k];
        float dx = x - o->x, dy = y - o->y;
        if (wrap) dx = motion_wrap_delta(dx, w->width), dy = motion_wrap_delta(dy, w->height);
        if (!(dx * dx + dy * dy >= o->r * o->r)) {
            *which = k, *depth = (double)o->r - hypot(dx, dy);
            return true;
        }
    }
    return false;
}

/* Agents inside some obstacle now (or with a velocity not finite). */
static size_t agents_inside(const world_t *w, size_t *first_agent, size_t *first_obstacle, double *depth)
{
    size_t count = 0;
    for (size_t i = 0; i < w->n; i++) {
        size_t which = 0;
        double how_deep = 0.0;
        const bool in = point_inside(w, w->cur.x[i], w->cur.y[i], &which, &how_deep) || !isfinite(w->cur.vx[i]) ||
                        !isfinite(w->cur.vy[i]);
        if (in && count++ == 0) *first_agent = i, *first_obstacle = which, *depth = how_deep;
    }
    return count;
}

typedef struct scene {
    const char *name;
    float width, height;
    int border;
    size_t agents;
    int ticks;
    void (*setup)(world_t *w);
    void (*each_tick)(world_t *w, int tick); /* between steps, like a client's commands; may be NULL */
    bool escapes; /* the push-out leaves agents inside: they wait for their turn to escape */
} scene_t;

/* Agents within `near` of an obstacle's edge, outside it. */
static size_t agents_at_an_edge(const world_t *w, float near)
{
    const bool wrap = w->params.border == BORDER_WRAP;
    size_t count = 0;
    for (size_t i = 0; i < w->n; i++)
        for (size_t k = 0; k < w->n_obstacles; k++) {
            const obstacle_t *o = &w->obstacles[k];
            float dx = w->cur.x[i] - o->x, dy = w->cur.y[i] - o->y;
            if (wrap) dx = motion_wrap_delta(dx, w->width), dy = motion_wrap_delta(dy, w->height);
            const float d = sqrtf(dx * dx + dy * dy);
            if (d >= o->r && d < o->r + near) {
                count++;
                break;
            }
        }
    return count;
}

/* The ticks running that each agent (by id) has ended inside an
 * obstacle: the longest run so far; and the agents that ended a step
 * inside although it was their turn to escape (escape_turn, on the tick
 * the step started at). */
typedef struct streaks {
    int *by_id;
    size_t ids;
    int longest;
    size_t inside_on_turn;
} streaks_t;

static void streaks_start(streaks_t *st, const world_t *w)
{
    st->ids = 0;
    for (size_t i = 0; i < w->n; i++)
        if ((size_t)w->cur.id[i] + 1 > st->ids) st->ids = (size_t)w->cur.id[i] + 1;
    st->by_id = calloc(st->ids ? st->ids : 1, sizeof *st->by_id);
    assert_non_null(st->by_id);
    st->longest = 0;
    st->inside_on_turn = 0;
}

static void streaks_count(streaks_t *st, const world_t *w)
{
    for (size_t i = 0; i < w->n; i++) {
        size_t which;
        double depth;
        const uint32_t id = w->cur.id[i];
        assert_true(id < st->ids);
        const bool in = point_inside(w, w->cur.x[i], w->cur.y[i], &which, &depth);
        st->by_id[id] = in ? st->by_id[id] + 1 : 0;
        if (in && ((uint64_t)id + w->tick - 1) % ESCAPE_EVERY == 0) st->inside_on_turn++;
        if (st->by_id[id] > st->longest) st->longest = st->by_id[id];
    }
}

/* Runs the scene in every model, steering every tick and every third,
 * and counts the agent-ticks that ended inside an obstacle (and in
 * *touching those within 0.01 u of an edge, when not NULL); *longest: the
 * most ticks running any agent ended inside. */
static size_t run_scene(const scene_t *s, bool report, size_t *touching, int *longest, size_t *inside_on_turn)
{
    size_t total = 0;
    *longest = 0;
    *inside_on_turn = 0;
    for (int model = MODEL_REYNOLDS; model <= MODEL_COUZIN; model++) {
        for (int every = 1; every <= 3; every += 2) {
            world_t w;
            make_world(&w, s->width, s->height, s->agents, 7);
            set_param(&w, "border", s->border);
            set_param(&w, "model", model);
            set_param(&w, "steer_every", every);
            s->setup(&w);
            streaks_t st;
            streaks_start(&st, &w);
            for (int t = 0; t < s->ticks; t++) {
                if (s->each_tick) s->each_tick(&w, t);
                world_step(&w);
                size_t i = 0, k = 0;
                double depth = 0;
                const size_t in = agents_inside(&w, &i, &k, &depth);
                if (in && report && total == 0)
                    print_message("%s, model %d, steer_every %d, tick %d: %zu inside; agent %u at (%.9g, %.9g) "
                                  "is %.3g u inside obstacle %zu (%.9g, %.9g, r %.9g)\n",
                                  s->name, model, every, t, in, (unsigned)w.cur.id[i], (double)w.cur.x[i],
                                  (double)w.cur.y[i], depth, k, (double)w.obstacles[k].x, (double)w.obstacles[k].y,
                                  (double)w.obstacles[k].r);
                total += in;
                streaks_count(&st, &w);
                if (touching) *touching += agents_at_an_edge(&w, 0.01f);
            }
            if (st.longest > *longest) *longest = st.longest;
            *inside_on_turn += st.inside_on_turn;
            free(st.by_id);
            world_free(&w);
        }
    }
    if (report)
        print_message("%s: %zu agent-ticks inside an obstacle, at most %d ticks running, %zu on their turn\n",
                      s->name, total, *longest, *inside_on_turn);
    return total;
}

static uint32_t add(world_t *w, float x, float y, float r)
{
    uint32_t id;
    assert_int_equal(world_add_obstacle(w, x, y, r, &id), SIM_OK);
    return id;
}

/* Agents on the circle (cx, cy, r) at n angles, flying at its centre. */
static void ring(world_t *w, size_t *next, size_t n, float cx, float cy, float r, float speed)
{
    for (size_t k = 0; k < n && *next < w->n; k++, (*next)++) {
        const float a = 6.2831853f * (float)k / (float)n, c = cosf(a), s = sinf(a);
        place(w, *next, cx + r * c, cy + r * s, -speed * c, -speed * s);
    }
}

/* Agents spread over the box [x0, x1] × [y0, y1], flying at (tx, ty). */
static void crowd(world_t *w, size_t *next, size_t n, float x0, float y0, float x1, float y1, float tx, float ty,
                  uint32_t seed)
{
    for (size_t k = 0; k < n && *next < w->n; k++, (*next)++) {
        const float x = x0 + (x1 - x0) * draw(&seed), y = y0 + (y1 - y0) * draw(&seed);
        const float dx = tx - x, dy = ty - y, d = hypotf(dx, dy) + 1e-3f;
        place(w, *next, x, y, 100.0f * dx / d, 100.0f * dy / d);
    }
}

/* On the edge exactly, and at the point where two obstacles touch. */
static void setup_tangent(world_t *w)
{
    add(w, 400, 500, 50);
    add(w, 500, 500, 50);
    size_t next = 0;
    place(w, next++, 450, 500, 0, 80);  /* where they touch, along the common tangent */
    place(w, next++, 450, 500, 80, 0);  /* where they touch, into the second */
    place(w, next++, 400, 500, 0, 0);   /* at a centre: no direction out */
    place(w, next++, 500, 500, -30, 0); /* at the other centre, toward the first */
    ring(w, &next, 60, 400, 500, 50, 100);
    ring(w, &next, 60, 500, 500, 50, 100);
    crowd(w, &next, w->n, 430, 470, 470, 530, 450, 500, 3);
}

/* Three overlapping obstacles and a crowd in and around their lenses. */
static void setup_overlapping(world_t *w)
{
    add(w, 500, 500, 80);
    add(w, 560, 500, 80);
    add(w, 530, 560, 60);
    add(w, 530, 530, 1);
    size_t next = 0;
    crowd(w, &next, w->n, 420, 420, 640, 640, 530, 530, 5);
}

/* Gaps narrower than the push-out's margin (about 1e-4 of the distance
 * plus 1e-4 u), down to touching: a point fits in any gap, so each agent
 * must end in a gap or outside both, never in the other obstacle. */
static const float gaps[] = {0.0f, 1e-5f, 1e-4f, 3e-4f, 7e-4f, 2e-3f, 1e-2f};

static void setup_narrow_gaps(world_t *w)
{
    size_t next = 0;
    for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++) {
        const float y = 100.0f + 120.0f * (float)g, r = g % 2 ? 6.0f : 40.0f;
        add(w, 300, y, r);
        add(w, 300 + 2 * r + gaps[g], y, r);
        const float mid = 300 + r + 0.5f * gaps[g];
        for (int k = 0; k < 12 && next < w->n; k++, next++) /* pressed into the gap from either side */
            place(w, next, mid + (float)(k - 6) * 0.25f, y + (float)(k % 3 - 1) * 0.05f, (k % 2 ? 60 : -60), 0);
        crowd(w, &next, 40, mid - 5, y - 5, mid + 5, y + 5, mid, y, (uint32_t)g);
    }
}

/* An obstacle dragged (move_obstacle, as a client does) through a crowd and
 * onto a static one, squeezing the agents between them; a moving obstacle
 * gliding into the same place. */
static void setup_dragged(world_t *w)
{
    add(w, 600, 500, 70);
    add(w, 200, 500, 60);
    uint32_t id;
    assert_int_equal(world_add_moving_obstacle(w, 500, 150, 30, 0, 400, &id), SIM_OK);
    size_t next = 0;
    crowd(w, &next, w->n, 250, 380, 560, 620, 600, 500, 9);
}

static void drag(world_t *w, int tick)
{
    /* 12 u a tick toward the static obstacle, ending overlapping it. */
    const float x = fminf(200.0f + 12.0f * (float)tick, 590.0f);
    sim_cmd_t cmd = {.kind = CMD_MOVE_OBSTACLE, .obstacle_id = 1, .x = x, .y = 500.0f + 3.0f * (float)(tick % 5)};
    sim_result_t res;
    sim_apply(w, &cmd, &res);
    assert_int_equal(res.status, SIM_OK);
}

/* Obstacles over the world's edges and corners, a crowd flying at them. */
static void setup_border(world_t *w)
{
    const float W = w->width, H = w->height;
    add(w, 0, 0, 60);
    add(w, W, H * 0.5f, 60);
    add(w, W * 0.5f, 0, 40);
    add(w, W * 0.3f, H, 90);
    add(w, W * 0.3f, H - 100, 30);
    add(w, W * 0.7f, 50, 50); /* touching the bottom edge, as a moving obstacle stops there */
    size_t next = 0;
    crowd(w, &next, w->n / 8, W * 0.7f - 60, 0, W * 0.7f + 60, 30, W * 0.7f, 0, 5);
    crowd(w, &next, w->n / 4, 0, 0, 80, 80, -20, -20, 1);
    crowd(w, &next, w->n / 4, W - 80, H * 0.5f - 80, W, H * 0.5f + 80, W + 20, H * 0.5f, 2);
    crowd(w, &next, w->n / 4, W * 0.3f - 100, H - 120, W * 0.3f + 100, H, W * 0.3f, H + 30, 3);
    crowd(w, &next, w->n, W * 0.5f - 50, 0, W * 0.5f + 50, 60, W * 0.5f, -10, 4);
}

/* The commands' smallest radius far from the origin (where a float's step
 * is coarse), and the largest. */
static void setup_radii(world_t *w)
{
    const float W = w->width, H = w->height;
    add(w, W - 7, H - 7, SIM_OBSTACLE_MIN_RADIUS);
    add(w, W - 5.5f, H - 7, SIM_OBSTACLE_MIN_RADIUS);
    add(w, W * 0.5f, H * 0.5f, SIM_OBSTACLE_MAX_RADIUS);
    size_t next = 0;
    crowd(w, &next, w->n / 3, W - 10, H - 10, W - 3, H - 4, W - 6.25f, H - 7, 6);
    crowd(w, &next, w->n, W * 0.5f - 520, H * 0.5f - 520, W * 0.5f + 520, H * 0.5f + 520, W * 0.5f, H * 0.5f, 7);
}

/* Two of the largest obstacles on a torus little more than twice their
 * radius wide: pushed out along a ray, an agent goes more than half the
 * world, round the torus. */
static void setup_huge_on_torus(world_t *w)
{
    add(w, 300, 600, SIM_OBSTACLE_MAX_RADIUS);
    add(w, 900, 600, SIM_OBSTACLE_MAX_RADIUS);
    size_t next = 0;
    crowd(w, &next, w->n, 0, 0, 1200, 1200, 600, 600, 8);
}

/* The scenes, each a test named by the scene: no agent inside after any
 * tick (where the push-out suffices) or for more than ESCAPE_EVERY ticks
 * running (where agents wait for their turn to escape: these scenes last
 * 16 ticks more than that, and do leave some inside), and some pressed
 * against an edge (the scene does test the push-out). The notes say what
 * the push-out did before. */
static const scene_t scene_cases[] = {
    /* An agent left on the edge, or where two touching obstacles meet, went
     * a hair into the other one (0.005 u at radius 50). */
    {"an_agent_on_an_edge_or_where_two_obstacles_touch_should_stay_out", 1000, 1000, BORDER_BOUNCE, 400, 40,
     setup_tangent, NULL, false},
    {"agents_in_overlapping_obstacles_should_be_pushed_out_of_all", 1000, 1000, BORDER_WRAP, 600, 40,
     setup_overlapping, NULL, false},
    /* Pushed out of one obstacle a hair past its edge, untested, into the
     * other one across a gap narrower than the hair (0.005 u deep at radius
     * 40, 7e-4 u at radius 6). */
    {"agents_in_a_gap_narrower_than_the_margin_should_not_be_pushed_into_the_other_obstacle", 1000, 1000,
     BORDER_BOUNCE, 400, 30, setup_narrow_gaps, NULL, false},
    {"an_obstacle_dragged_onto_a_crowd_and_a_static_one_should_leave_nobody_inside", 800, 1000, BORDER_BOUNCE,
     1500, 40, setup_dragged, drag, false},
    /* A respawned agent could land in an obstacle; one pushed out over the
     * edge was bounced back into the obstacle (under one touching the edge,
     * for ever). */
    {"obstacles_at_a_wrapping_border_should_stay_solid", 900, 700, BORDER_WRAP, 800, 40, setup_border, NULL, false},
    {"obstacles_at_a_bouncing_border_should_stay_solid", 900, 700, BORDER_BOUNCE, 800, 48, setup_border, NULL, true},
    {"obstacles_at_a_respawning_border_should_stay_solid", 900, 700, BORDER_RESPAWN, 800, 48, setup_border, NULL,
     true},
    /* At 10^6 u a float's step (1/16 u) is coarser than the push's margin:
     * a radius-1 obstacle kept agents 0.01 u inside. */
    {"the_smallest_and_largest_radii_should_hold_far_from_the_origin", 1e6f, 1e6f, BORDER_BOUNCE, 300, 48,
     setup_radii, NULL, true},
    {"the_smallest_and_largest_radii_should_hold_on_a_torus_too", 1e5f, 1e5f, BORDER_WRAP, 300, 48, setup_radii,
     NULL, true},
    /* Straight out from the centre of an obstacle wider than a quarter of
     * the torus, the way out ended in the other one's image (23 u deep). */
    {"the_largest_obstacles_on_a_small_torus_should_stay_solid", 1200, 1200, BORDER_WRAP, 800, 48,
     setup_huge_on_torus, NULL, true},
};

static void scene_should_hold(void **state)
{
    const scene_t *s = *state;
    size_t touching = 0;
    int longest = 0;
    size_t inside_on_turn = 0;
    const size_t inside = run_scene(s, true, &touching, &longest, &inside_on_turn);
    if (s->escapes) {
        assert_true(s->ticks >= ESCAPE_EVERY + 16); /* in for its first 16 ticks, it must be out */
        assert_true(inside > 0); /* the scene does test the escape */
        assert_int_equal(inside_on_turn, 0); /* there is room: on its turn, out */
        assert_true(longest <= ESCAPE_EVERY);
    } else {
        assert_int_equal(inside, 0);
    }
    assert_true(touching > 0);
}

/* A world of 12,000 agents (split between threads) with every hard case
 * at once: the same bits on one thread and on two, every tick, and no
 * agent inside for more than ESCAPE_EVERY ticks running. */
static void setup_everything(world_t *w)
{
    setup_narrow_gaps(w);
    add(w, 0, 0, 120);                         /* over a corner */
    add(w, 1200, 2300, SIM_OBSTACLE_MAX_RADIUS); /* over an edge */
    add(w, 1500, 700, 90);                      /* dragged */
    add(w, 1700, 700, 90);
    size_t next = 400;
    crowd(w, &next, 4000, 1300, 550, 1800, 850, 1600, 700, 11);
    crowd(w, &next, 4000, 700, 1700, 1700, 2400, 1200, 2400, 12);
    crowd(w, &next, w->n, 0, 0, 200, 200, 0, 0, 13);
}

static void drag_onto_the_other(world_t *w, int tick)
{
    const obstacle_t *o = world_find_obstacle(w, 11);
    assert_non_null(o);
    assert_int_equal(world_move_obstacle(w, 11, fminf(o->x + 8.0f, 1640.0f), 700.0f + (float)(tick % 3)), SIM_OK);
}

static void the_push_out_should_give_the_same_bits_on_one_thread_and_on_two(void **state)
{
    (void)state;
    const int borders_tried[] = {BORDER_WRAP, BORDER_BOUNCE, BORDER_RESPAWN};
    for (size_t b = 0; b < 3; b++) {
        for (int every = 1; every <= 3; every += 2) {
            world_t w[2];
            for (int k = 0; k < 2; k++) {
                world_config_t cfg = {.width = 2400, .height = 2400, .dt = 1.0f / 60, .seed = 5, .agents = 12000,
                                      .max_agents = 12000, .max_targets = 4, .threads = k + 1};
                assert_int_equal(world_init(&w[k], &cfg), 0);
                set_param(&w[k], "border", borders_tried[b]);
                set_param(&w[k], "steer_every", every);
                setup_everything(&w[k]);
            }
            size_t touching = 0, inside = 0;
            streaks_t st;
            streaks_start(&st, &w[0]);
            for (int t = 0; t < ESCAPE_EVERY + 16; t++) {
                for (int k = 0; k < 2; k++) {
                    drag_onto_the_other(&w[k], t);
                    world_step(&w[k]);
                }
                assert_same_state(&w[0], &w[1]);
                size_t i, o;
                double depth;
                inside += agents_inside(&w[0], &i, &o, &depth);
                streaks_count(&st, &w[0]);
                assert_true(st.longest <= ESCAPE_EVERY);
                assert_int_equal(st.inside_on_turn, 0);
                touching += agents_at_an_edge(&w[0], 0.01f);
            }
            print_message("border %d, steer_every %d: %zu agent-ticks inside, at most %d running\n",
                          borders_tried[b], every, inside, st.longest);
            free(st.by_id);
            assert_true(touching > 100);
            for (int k = 0; k < 2; k++) world_free(&w[k]);
        }
    }
}

/* Where obstacles cover the whole world there is no room: every agent is
 * inside every tick (and tries to escape on its turn, in vain). The agents
 * stay where the push leaves them, inside, finite and in the world after
 * every tick, the same bits on one thread and on two (never NaN, never a
 * wild jump). Two such worlds: one of the largest obstacles over a small
 * world, and eight of radius 500 in two rows over the default 1600 × 900
 * (what a few visitors can build). */
static void agents_with_no_room_anywhere_should_stay_finite_in_the_world_and_deterministic(void **state)
{
    (void)state;
    for (int covered = 0; covered < 2; covered++) {
        for (int border = BORDER_WRAP; border <= BORDER_RESPAWN; border++) {
            world_t w[2];
            for (int k = 0; k < 2; k++) {
                world_config_t cfg = {.width = covered ? 1600 : 300, .height = covered ? 900 : 200, .dt = 1.0f / 60,
                                      .seed = 3, .agents = covered ? 3000 : 200, .max_agents = 3000,
                                      .max_targets = 4, .threads = k + 1};
                assert_int_equal(world_init(&w[k], &cfg), 0);
                set_param(&w[k], "border", border);
                if (covered) {
                    for (int m = 0; m < 8; m++)
                        add(&w[k], 200.0f + 400.0f * (float)(m % 4), m < 4 ? 225.0f : 675.0f, 500.0f);
                } else {
                    add(&w[k], 150, 100, SIM_OBSTACLE_MAX_RADIUS);
                    add(&w[k], 10, 10, 40);
                }
            }
            for (int t = 0; t < ESCAPE_EVERY + 8; t++) {
                for (int k = 0; k < 2; k++) world_step(&w[k]);
                assert_same_state(&w[0], &w[1]);
                size_t i0, o0;
                double depth;
                assert_int_equal(agents_inside(&w[0], &i0, &o0, &depth), w[0].n); /* no room: all inside */
                for (size_t i = 0; i < w[0].n; i++) {
                    assert_true(w[0].cur.x[i] >= 0.0f && w[0].cur.x[i] <= w[0].width);
                    assert_true(w[0].cur.y[i] >= 0.0f && w[0].cur.y[i] <= w[0].height);
                    assert_true(isfinite(w[0].cur.vx[i]) && isfinite(w[0].cur.vy[i]));
                }
            }
            for (int k = 0; k < 2; k++) world_free(&w[k]);
        }
    }
}

/* escape_obstacle on its own: the shortest of its ways, and only those
 * that end outside every obstacle (and inside a bounded world). */
static bool outside_all(const world_t *w, float x, float y)
{
    size_t which;
    double depth;
    return !point_inside(w, x, y, &which, &depth);
}

static void escape_should_leave_by_the_shortest_way_that_ends_outside_every_obstacle(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 1000, 600, 1, 1);
    /* On a torus 600 high an obstacle of radius 400 covers every height
     * at its own x: straight down from the centre never leaves it (its
     * exit 100 u below the centre's is 200 u above it on the torus).
     * Sideways the way out is sqrt(400² − 100²) = 387.3 u long; a
     * slanting one, to where the free band is widest (300 u from the
     * centre's height), is shorter. */
    set_param(&w, "border", BORDER_WRAP);
    add(&w, 500, 300, 400);
    float x = 500, y = 200, vx = 10, vy = -50;
    assert_true(escape_obstacle(&w, &x, &y, &vx, &vy, 1));
    assert_true(outside_all(&w, x, y));
    const float dx = motion_wrap_delta(x - 500.0f, 1000), dy = motion_wrap_delta(y - 200.0f, 600);
    print_message("escaped on the torus by (%.2f, %.2f)\n", (double)dx, (double)dy);
    assert_true(hypotf(dx, dy) < sqrtf(400.0f * 400.0f - 100.0f * 100.0f)); /* no longer than sideways */
    assert_true(hypotf(dx, dy) > 300.0f); /* the nearest free place is 331.7 u away */
    assert_true(isfinite(vx) && isfinite(vy));
    /* Outside, nothing moves. */
    const float ox = x, oy = y;
    assert_false(escape_obstacle(&w, &x, &y, &vx, &vy, 1));
    assert_true(x == ox && y == oy);
    world_free(&w);

    /* In a bounded world an obstacle reaching over the left edge: straight
     * out (toward the edge) ends outside the world; the way out is along
     * the wall, or up, or down — inside the world. */
    make_world(&w, 400, 400, 1, 1);
    set_param(&w, "border", BORDER_BOUNCE);
    add(&w, 30, 200, 60);
    x = 2, y = 205, vx = -20, vy = 0;
    assert_true(escape_obstacle(&w, &x, &y, &vx, &vy, 1));
    assert_true(outside_all(&w, x, y));
    assert_true(x >= 0.0f && x <= 400.0f && y >= 0.0f && y <= 400.0f);
    assert_true(hypotf(x - 2.0f, y - 205.0f) < 60.0f); /* near: not round the far side */
    world_free(&w);

    /* Two obstacles 1e-5 u apart: out of the first, never into the second. */
    make_world(&w, 400, 400, 1, 1);
    set_param(&w, "border", BORDER_BOUNCE);
    add(&w, 100, 200, 50);
    add(&w, 200.00001f, 200, 50);
    for (int k = 0; k < 40; k++) {
        x = 149.9f + 0.01f * (float)k, y = 200.0f + 0.05f * (float)(k % 5), vx = vy = 0;
        escape_obstacle(&w, &x, &y, &vx, &vy, 1);
        assert_true(outside_all(&w, x, y));
    }
    world_free(&w);
}

int main(void)
{
    enum { SCENES = sizeof scene_cases / sizeof scene_cases[0] };
    struct CMUnitTest tests[SCENES + 3] = {
        cmocka_unit_test(the_push_out_should_give_the_same_bits_on_one_thread_and_on_two),
        cmocka_unit_test(agents_with_no_room_anywhere_should_stay_finite_in_the_world_and_deterministic),
        cmocka_unit_test(escape_should_leave_by_the_shortest_way_that_ends_outside_every_obstacle),
    };
    for (size_t k = 0; k < SCENES; k++)
        tests[3 + k] = (struct CMUnitTest){
            .name = scene_cases[k].name, .test_func = scene_should_hold, .initial_state = (void *)&scene_cases[k]};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
