#include <stdlib.h>
#include <string.h>

#include "sim/metrics.h"
#include "sim/prng.h"
#include "sim_fixtures.h"

#define PI 3.14159265358979323846

static void assert_near(double actual, double expected, double tolerance)
{
    if (!(fabs(actual - expected) <= tolerance))
        fail_msg("%.12g is not within %g of %.12g", actual, tolerance, expected);
}

static metrics_t compute(const world_t *w, float cluster_radius, float collision_distance)
{
    metrics_state_t s;
    metrics_init(&s);
    metrics_config_t cfg = {.cluster_radius = cluster_radius, .collision_distance = collision_distance};
    metrics_t m;
    assert_int_equal(metrics_compute(&s, w, &cfg, &m), 0);
    metrics_free(&s);
    return m;
}

static metrics_t compute_default(const world_t *w)
{
    metrics_config_t cfg = metrics_default_config(w);
    return compute(w, cfg.cluster_radius, cfg.collision_distance);
}

/* ---- brute force: every pair, the same float distance as the module ---- */

static float wrapped(float d, float extent, bool wrap)
{
    if (!wrap) return d;
    if (d > 0.5f * extent) return d - extent;
    if (d < -0.5f * extent) return d + extent;
    return d;
}

static float pair_d2(const world_t *w, size_t i, size_t j)
{
    bool wrap = w->params.border == BORDER_WRAP;
    float dx = wrapped(w->cur.x[j] - w->cur.x[i], w->width, wrap);
    float dy = wrapped(w->cur.y[j] - w->cur.y[i], w->height, wrap);
    return dx * dx + dy * dy;
}

static size_t root_of(size_t *parent, size_t i)
{
    while (parent[i] != i) i = parent[i];
    return i;
}

typedef struct brute {
    metrics_t m;
    double max_nn; /* the farthest any agent's nearest neighbour is */
} brute_t;

static brute_t brute_force(const world_t *w, float cluster_radius, float collision_distance)
{
    const size_t n = w->n;
    const bool wrap = w->params.border == BORDER_WRAP;
    brute_t b = {.m = {.mean_nn_distance = NAN, .min_clearance = NAN}};
    size_t *parent = malloc(n * sizeof *parent);
    size_t *size = calloc(n, sizeof *size);
    assert_non_null(parent);
    assert_non_null(size);
    for (size_t i = 0; i < n; i++) parent[i] = i;
    double nn_sum = 0;
    for (size_t i = 0; i < n; i++) {
        float best = INFINITY;
        for (size_t j = 0; j < n; j++) {
            if (j == i) continue;
            float d2 = pair_d2(w, i, j);
            if (d2 < best) best = d2;
            if (j > i && d2 < collision_distance * collision_distance) b.m.collisions++;
            if (j > i && d2 < cluster_radius * cluster_radius) parent[root_of(parent, i)] = root_of(parent, j);
        }
        nn_sum += sqrt((double)best);
        if (sqrt((double)best) > b.max_nn) b.max_nn = sqrt((double)best);
    }
    if (n >= 2) b.m.mean_nn_distance = nn_sum / (double)n;
    for (size_t i = 0; i < n; i++) size[root_of(parent, i)]++;
    for (size_t i = 0; i < n; i++) {
        if (!size[i]) continue;
        b.m.clusters++;
        if (size[i] > b.m.largest_cluster) b.m.largest_cluster = (uint32_t)size[i];
    }
    for (size_t k = 0; k < w->n_obstacles; k++) {
        const obstacle_t *o = &w->obstacles[k];
        for (size_t i = 0; i < n; i++) {
            float dx = wrapped(w->cur.x[i] - o->x, w->width, wrap), dy = wrapped(w->cur.y[i] - o->y, w->height, wrap);
            float d2 = dx * dx + dy * dy;
            b.m.penetrations += d2 < o->r * o->r;
            double c = sqrt((double)d2) - (double)o->r;
            if (isnan(b.m.min_clearance) || c < b.m.min_clearance) b.m.min_clearance = c;
        }
    }
    free(parent);
    free(size);
    return b;
}

static void assert_same_as_brute_force(const world_t *w, float cluster_radius, float collision_distance)
{
    metrics_t m = compute(w, cluster_radius, collision_distance);
    brute_t b = brute_force(w, cluster_radius, collision_distance);
    assert_int_equal(m.agents, w->n);
    assert_int_equal(m.collisions, b.m.collisions);
    assert_int_equal(m.clusters, b.m.clusters);
    assert_int_equal(m.largest_cluster, b.m.largest_cluster);
    assert_int_equal(m.penetrations, b.m.penetrations);
    /* Same per-agent distances, summed in another order. */
    assert_near(m.mean_nn_distance, b.m.mean_nn_distance, 1e-9 * b.m.mean_nn_distance);
    if (isnan(b.m.min_clearance))
        assert_true(isnan(m.min_clearance));
    else
        assert_near(m.min_clearance, b.m.min_clearance, 1e-9);
}

/* Half the agents in a dense blob (which straddles the corner of the world,
 * so a wrapping world sees it whole), a quarter in a thin line, the rest
 * scattered thinly: clusters of every size, collisions, and lone agents
 * whose nearest neighbour lies far outside their own 3x3 block. */
static void scatter_mixed(world_t *w, uint64_t seed)
{
    prng_t r;
    prng_seed(&r, seed, 7);
    for (size_t i = 0; i < w->n; i++) {
        float x, y;
        if (i < w->n / 2) {
            float rad = 70.0f * sqrtf(prng_unit(&r)), t = 6.2831853f * prng_unit(&r);
            x = fmodf(w->width + rad * cosf(t), w->width);
            y = fmodf(w->height + rad * sinf(t), w->height);
        } else if (i < w->n * 3 / 4) {
            x = prng_range(&r, 0.0f, w->width);
            y = 0.5f * w->height + prng_range(&r, -3.0f, 3.0f);
        } else {
            x = prng_range(&r, 0.0f, w->width);
            y = prng_range(&r, 0.0f, w->height);
        }
        place(w, i, x, y, w->cur.vx[i], w->cur.vy[i]);
    }
}

/* ---- polarization and milling ---- */

static void agents_flying_the_same_way_should_have_polarization_one(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 800, 600, 401, 1);
    for (size_t i = 0; i < w.n; i++) {
        float speed = 1.0f + (float)(i % 7); /* headings alike, speeds not */
        place(&w, i, 100.0f + 10.0f * (float)(i % 20), 100.0f + 10.0f * (float)(i / 20), 0.6f * speed, 0.8f * speed);
    }
    /* Stopped agents have no heading: they are left out (the first and the
     * last, as the sums take agents two at a time and the odd one alone). */
    w.cur.vx[0] = w.cur.vy[0] = 0.0f;
    w.cur.vx[400] = w.cur.vy[400] = 0.0f;
    metrics_t m = compute_default(&w);
    assert_near(m.polarization, 1.0, 1e-12);
    /* A lattice translating has no rotation about its centroid. */
    assert_near(m.milling, 0.0, 0.02);
    world_free(&w);
}

static void random_headings_should_have_low_polarization(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 2000, 2000, 10000, 5); /* spawned with uniform random headings */
    metrics_t m = compute_default(&w);
    /* |Σ of N random unit vectors| ~ √N: polarization ~ 1/√N = 0.01. */
    assert_true(m.polarization < 0.05);
    assert_true(m.milling < 0.05);
    world_free(&w);
}

static void agents_circling_the_centroid_should_mill_and_not_polarize(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 800, 600, 720, 2);
    /* Two concentric rings, every agent moving along its circle the same way
     * round (counter-clockwise), at speeds that differ from ring to ring. */
    for (size_t i = 0; i < w.n; i++) {
        double t = 2.0 * PI * (double)(i % 360) / 360.0;
        float radius = i < 360 ? 100.0f : 180.0f, speed = i < 360 ? 5.0f : 9.0f;
        place(&w, i, 400.0f + radius * (float)cos(t), 300.0f + radius * (float)sin(t), -speed * (float)sin(t),
              speed * (float)cos(t));
    }
    metrics_t m = compute_default(&w);
    assert_near(m.milling, 1.0, 1e-5);
    assert_near(m.polarization, 0.0, 1e-5);
    /* Reversing half of the agents (every other one) cancels the rotation. */
    for (size_t i = 0; i < w.n; i += 2) {
        w.cur.vx[i] = -w.cur.vx[i];
        w.cur.vy[i] = -w.cur.vy[i];
    }
    m = compute_default(&w);
    assert_near(m.milling, 0.0, 1e-5);
    world_free(&w);

    /* An agent at the centroid has no lever arm: it is left out. Four
     * agents turning about (400, 300), with one or two more at the very
     * centre (first or last, as the sums take agents two at a time and the
     * odd one alone). */
    for (size_t n = 5; n <= 6; n++) {
        make_world(&w, 800, 600, n, 2);
        const size_t ring = n == 5 ? 0 : 1;
        place(&w, ring + 0, 500, 300, 0, 5);
        place(&w, ring + 1, 400, 400, -5, 0);
        place(&w, ring + 2, 300, 300, 0, -5);
        place(&w, ring + 3, 400, 200, 5, 0);
        place(&w, n - 1, 400, 300, 3, 1);
        if (n == 6) place(&w, 0, 400, 300, -1, 2);
        assert_near(compute_default(&w).milling, 1.0, 1e-12);
        world_free(&w);
    }
}

/* ---- nearest neighbour ---- */

static void a_square_lattice_of_spacing_ten_should_have_mean_nearest_distance_ten(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 800, 600, 400, 3);
    for (size_t i = 0; i < w.n; i++)
        place(&w, i, 200.0f + 10.0f * (float)(i % 20), 150.0f + 10.0f * (float)(i / 20), 1, 0);
    assert_near(compute_default(&w).mean_nn_distance, 10.0, 1e-12);
    /* The nearest neighbour does not depend on the cluster radius. */
    assert_near(compute(&w, 1.0f, 0.5f).mean_nn_distance, 10.0, 1e-12);
    world_free(&w);
}

static void a_lone_agent_far_from_the_flock_should_get_its_exact_nearest_distance(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 2000, 2000, 401, 3);
    for (size_t i = 0; i < 400; i++)
        place(&w, i, 100.0f + 10.0f * (float)(i % 20), 100.0f + 10.0f * (float)(i / 20), 1, 0);
    /* 300 u right of the lattice's right edge (x = 290) and 400 u above its
     * top row (y = 290): 500 u from the corner agent, many cells away. */
    place(&w, 400, 590.0f, 690.0f, 1, 0);
    assert_near(compute_default(&w).mean_nn_distance, (400.0 * 10.0 + 500.0) / 401.0, 1e-9);
    world_free(&w);
}

static void nearest_distance_should_wrap_across_the_border_only_when_wrapping(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 800, 600, 2, 3);
    place(&w, 0, 1.0f, 300.0f, 1, 0);
    place(&w, 1, 799.0f, 300.0f, 1, 0);
    metrics_t m = compute(&w, 50.0f, 3.0f);
    assert_near(m.mean_nn_distance, 2.0, 1e-12);
    assert_int_equal(m.clusters, 1);
    assert_int_equal(m.collisions, 1);

    set_param(&w, "border", BORDER_BOUNCE);
    m = compute(&w, 50.0f, 3.0f);
    assert_near(m.mean_nn_distance, 798.0, 1e-12);
    assert_int_equal(m.clusters, 2);
    assert_int_equal(m.collisions, 0);

    /* The same across the top and bottom edges. */
    set_param(&w, "border", BORDER_WRAP);
    place(&w, 0, 400.0f, 0.5f, 1, 0);
    place(&w, 1, 400.0f, 598.0f, 1, 0);
    assert_near(compute(&w, 50.0f, 3.0f).mean_nn_distance, 2.5, 1e-12);
    world_free(&w);
}

static void fewer_than_two_agents_should_have_no_nearest_distance(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 800, 600, 0, 3);
    metrics_t m = compute_default(&w);
    assert_int_equal(m.agents, 0);
    assert_true(isnan(m.mean_nn_distance));
    assert_int_equal(m.clusters, 0);
    assert_int_equal(m.largest_cluster, 0);
    assert_near(m.polarization, 0.0, 0.0);

    assert_int_equal(world_add_agents(&w, 1, true, 400, 300), SIM_OK);
    m = compute_default(&w);
    assert_int_equal(m.agents, 1);
    assert_true(isnan(m.mean_nn_distance));
    assert_int_equal(m.clusters, 1);
    assert_int_equal(m.largest_cluster, 1);
    assert_near(m.polarization, 1.0, 1e-12);
    world_free(&w);
}

/* ---- clusters and collisions ---- */

static void two_separated_groups_should_be_two_clusters(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 1000, 1000, 80, 4);
    /* 50 agents in a 10x5 lattice at 20 u spacing, 30 in a 6x5 lattice at
     * 20 u spacing 300 u away: linked within 50 u, never across the gap. */
    for (size_t i = 0; i < 50; i++) place(&w, i, 100.0f + 20.0f * (float)(i % 10), 100.0f + 20.0f * (float)(i / 10), 1, 0);
    for (size_t i = 50; i < 80; i++)
        place(&w, i, 600.0f + 20.0f * (float)((i - 50) % 6), 600.0f + 20.0f * (float)((i - 50) / 6), 1, 0);
    metrics_t m = compute(&w, 50.0f, 2.0f);
    assert_int_equal(m.clusters, 2);
    assert_int_equal(m.largest_cluster, 50);
    /* A radius under the spacing leaves every agent alone. */
    m = compute(&w, 19.0f, 2.0f);
    assert_int_equal(m.clusters, 80);
    assert_int_equal(m.largest_cluster, 1);
    world_free(&w);
}

static void olfati_saber_clusters_should_be_the_components_of_the_proximity_net_of_range_r(void **state)
{
    (void)state;
    /* Three agents 40 u apart in a row: one group for the cohesion radius
     * (50 u) of Reynolds' model; three for Olfati-Saber's, whose agents
     * interact within r = 30 u only (his "fragmentation" is that net
     * coming apart). */
    world_t w;
    make_world(&w, 1000, 1000, 3, 4);
    for (size_t i = 0; i < 3; i++) place(&w, i, 100.0f + 40.0f * (float)i, 100.0f, 1, 0);
    metrics_t m = compute_default(&w);
    assert_int_equal(m.clusters, 1);
    for (int model = MODEL_OLFATI1; model <= MODEL_OLFATI3; model++) {
        set_param(&w, "model", model);
        set_param(&w, "os_r", 30);
        assert_float_equal(metrics_default_config(&w).cluster_radius, 30.0f, 0);
        m = compute_default(&w);
        assert_int_equal(m.clusters, 3);
        set_param(&w, "os_r", 45);
        m = compute_default(&w);
        assert_int_equal(m.clusters, 1);
    }
    set_param(&w, "model", MODEL_COUZIN);
    assert_float_equal(metrics_default_config(&w).cluster_radius, 50.0f, 0);
    world_free(&w);
}

static void a_chain_spaced_just_under_the_radius_should_be_one_cluster(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 3000, 3000, 40, 4);
    /* A diagonal chain, 40 links long. */
    const float step = 49.9f / sqrtf(2.0f);
    for (size_t i = 0; i < w.n; i++) place(&w, i, 100.0f + step * (float)i, 100.0f + step * (float)i, 1, 0);
    metrics_t m = compute(&w, 50.0f, 2.0f);
    assert_int_equal(m.clusters, 1);
    assert_int_equal(m.largest_cluster, 40);
    /* Just over the radius: no link at all. */
    m = compute(&w, 49.8f, 2.0f);
    assert_int_equal(m.clusters, 40);
    assert_int_equal(m.largest_cluster, 1);
    world_free(&w);
}

static void collisions_should_count_each_close_pair_once(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 1000, 1000, 11, 4);
    /* Pairs 100 u apart from each other, at 1 u, 1.9 u (collide), 2 u (not
     * closer than 2), 2.5 u (no). */
    place(&w, 0, 100, 100, 1, 0);
    place(&w, 1, 101, 100, 1, 0);
    place(&w, 2, 200, 100, 1, 0);
    place(&w, 3, 200, 101.9f, 1, 0);
    place(&w, 4, 300, 100, 1, 0);
    place(&w, 5, 302, 100, 1, 0);
    place(&w, 6, 400, 100, 1, 0);
    place(&w, 7, 402.5f, 100, 1, 0);
    /* A triangle of side 1.5: three pairs. */
    place(&w, 8, 500, 500, 1, 0);
    place(&w, 9, 501.5f, 500, 1, 0);
    place(&w, 10, 500.75f, 500.0f + 1.5f * 0.8660254f, 1, 0);
    assert_int_equal(compute_default(&w).collisions, 2 + 3);
    world_free(&w);
}

/* ---- obstacles ---- */

static void an_agent_inside_an_obstacle_should_be_a_penetration_with_negative_clearance(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 800, 600, 3, 6);
    place(&w, 0, 500, 300, 1, 0);
    place(&w, 1, 300, 500, 1, 0);
    place(&w, 2, 300, 420, 1, 0);
    metrics_t m = compute_default(&w);
    assert_int_equal(m.penetrations, 0);
    assert_true(isnan(m.min_clearance)); /* no obstacles */

    assert_int_equal(world_add_obstacle(&w, 300, 300, 40, NULL), SIM_OK);
    m = compute_default(&w);
    assert_int_equal(m.penetrations, 0);
    assert_near(m.min_clearance, 80.0, 1e-9); /* agent 2: 120 u from the centre */

    place(&w, 0, 310, 300, 1, 0); /* 10 u from the centre: 30 u inside */
    m = compute_default(&w);
    assert_int_equal(m.penetrations, 1);
    assert_near(m.min_clearance, -30.0, 1e-9);

    /* Inside two overlapping obstacles: two agent-obstacle pairs. */
    assert_int_equal(world_add_obstacle(&w, 320, 300, 15, NULL), SIM_OK);
    m = compute_default(&w);
    assert_int_equal(m.penetrations, 2);
    assert_near(m.min_clearance, -30.0, 1e-9);
    world_free(&w);
}

static void obstacle_distances_should_wrap_across_the_border_when_wrapping(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 800, 600, 1, 6);
    place(&w, 0, 795, 300, 1, 0);
    assert_int_equal(world_add_obstacle(&w, 10, 300, 20, NULL), SIM_OK);
    metrics_t m = compute_default(&w);
    assert_int_equal(m.penetrations, 1);
    assert_near(m.min_clearance, -5.0, 1e-9); /* 15 u across the edge */
    set_param(&w, "border", BORDER_BOUNCE);
    m = compute_default(&w);
    assert_int_equal(m.penetrations, 0);
    assert_near(m.min_clearance, 765.0, 1e-9);
    world_free(&w);
}

/* ---- against brute force ---- */

static void metrics_should_equal_brute_force_on_random_agents_when_wrapping(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 1200, 900, 3000, 11);
    scatter_mixed(&w, 11);
    world_add_obstacle(&w, 600, 450, 60, NULL);
    world_add_obstacle(&w, 5, 890, 30, NULL); /* across the corner, over the blob */
    brute_t b = brute_force(&w, 12.0f, 2.0f);
    /* The configuration means something: several clusters, collisions,
     * penetrations, and agents whose nearest neighbour is far away. */
    assert_true(b.m.clusters > 10 && b.m.largest_cluster > 100);
    assert_true(b.m.collisions > 10);
    assert_true(b.m.penetrations > 10);
    assert_true(b.max_nn > 40.0);
    assert_same_as_brute_force(&w, 12.0f, 2.0f);
    assert_same_as_brute_force(&w, 50.0f, 2.0f);
    assert_same_as_brute_force(&w, 3.0f, 6.0f); /* collision distance over the cluster radius */
    world_free(&w);
}

static void metrics_should_equal_brute_force_on_random_agents_when_bouncing(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 1200, 900, 3000, 12);
    set_param(&w, "border", BORDER_BOUNCE);
    scatter_mixed(&w, 12);
    world_add_obstacle(&w, 600, 450, 60, NULL);
    world_add_obstacle(&w, 5, 890, 30, NULL);
    brute_t b = brute_force(&w, 12.0f, 2.0f);
    assert_true(b.m.clusters > 10 && b.m.largest_cluster > 100);
    assert_true(b.m.collisions > 10);
    assert_true(b.max_nn > 40.0);
    assert_same_as_brute_force(&w, 12.0f, 2.0f);
    assert_same_as_brute_force(&w, 50.0f, 2.0f);
    assert_same_as_brute_force(&w, 3.0f, 6.0f);
    world_free(&w);
}

static void metrics_should_equal_brute_force_in_a_world_of_a_few_cells(void **state)
{
    (void)state;
    /* 2x1 cells: a cell is a neighbour from both sides when wrapping. */
    world_t w;
    make_world(&w, 100, 60, 300, 13);
    assert_same_as_brute_force(&w, 40.0f, 2.0f);
    assert_same_as_brute_force(&w, 4.0f, 3.0f);
    set_param(&w, "border", BORDER_BOUNCE);
    assert_same_as_brute_force(&w, 40.0f, 2.0f);
    assert_same_as_brute_force(&w, 4.0f, 3.0f);
    world_free(&w);

    /* 3x3 cells of 50 u: agent A's nearest neighbour is B, 70 u away
     * across the border (80 u the other way); a clump 76 u from A is
     * nearer than 80 but farther than 70. */
    make_world(&w, 150, 150, 22, 13);
    place(&w, 0, 60, 75, 1, 0);
    place(&w, 1, 140, 75, 1, 0);
    for (size_t i = 2; i < w.n; i++) place(&w, i, 100.0f + (float)(i % 5), 140.0f + (float)(i / 5), 1, 0);
    brute_t b = brute_force(&w, 45.0f, 2.0f);
    assert_true(b.max_nn > 69.9 && b.max_nn < 70.1);
    assert_same_as_brute_force(&w, 45.0f, 2.0f);
    world_free(&w);
}

static void metrics_should_equal_brute_force_on_a_flock_that_has_flown(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 1000, 800, 2000, 14);
    world_add_obstacle(&w, 500, 400, 50, NULL);
    for (int t = 0; t < 300; t++) world_step(&w);
    metrics_config_t cfg = metrics_default_config(&w);
    assert_same_as_brute_force(&w, cfg.cluster_radius, cfg.collision_distance);
    world_free(&w);
}

/* ---- configuration and memory ---- */

static void the_default_configuration_should_follow_the_cohesion_radius(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 800, 600, 10, 8);
    set_param(&w, "coh_radius", 80);
    metrics_config_t cfg = metrics_default_config(&w);
    assert_near(cfg.cluster_radius, 80.0, 0.0);
    assert_near(cfg.collision_distance, 2.0, 0.0);
    world_free(&w);
}

static void the_tick_and_population_should_be_reported(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 800, 600, 123, 8);
    for (int t = 0; t < 5; t++) world_step(&w);
    metrics_t m = compute_default(&w);
    assert_int_equal(m.tick, 5);
    assert_int_equal(m.agents, 123);
    world_free(&w);
}

/* Every buffer the state holds, and its capacities. */
typedef struct buffers {
    const void *parent, *x, *y, *nn2, *cell_start, *cursor, *cell_of, *order;
    size_t cap, cells_cap, agents_cap;
} buffers_t;

static buffers_t buffers_of(const metrics_state_t *s)
{
    return (buffers_t){
        .parent = s->parent,
        .x = s->x,
        .y = s->y,
        .nn2 = s->nn2,
        .cell_start = s->grid.cell_start,
        .cursor = s->grid.cursor,
        .cell_of = s->grid.cell_of,
        .order = s->grid.order,
        .cap = s->cap,
        .cells_cap = s->grid.cells_cap,
        .agents_cap = s->grid.agents_cap,
    };
}

static void a_second_call_with_the_same_population_should_allocate_nothing(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 2000, 1500, 5000, 9);
    metrics_state_t s;
    metrics_init(&s);
    metrics_config_t cfg = metrics_default_config(&w);
    metrics_t m;
    assert_int_equal(metrics_compute(&s, &w, &cfg, &m), 0);
    buffers_t first = buffers_of(&s);
    assert_true(first.cap >= w.n);

    /* The flock moves on; the population stays. */
    for (int t = 0; t < 10; t++) world_step(&w);
    assert_int_equal(metrics_compute(&s, &w, &cfg, &m), 0);
    buffers_t second = buffers_of(&s);
    assert_memory_equal(&first, &second, sizeof first);

    /* More agents: room is made for them. */
    assert_int_equal(world_add_agents(&w, 3000, false, 0, 0), SIM_OK);
    assert_int_equal(metrics_compute(&s, &w, &cfg, &m), 0);
    assert_int_equal(m.agents, 8000);
    assert_true(s.cap >= 8000);
    assert_true(s.grid.agents_cap >= 8000);
    metrics_free(&s);
    world_free(&w);
}

/* A crowd whose pair count passes max_pairs leaves the pair metrics out
 * (their cost grows with the square of density) and still gives the rest;
 * under the limit, or with none, they are computed exactly. */
static void a_crowd_over_max_pairs_should_skip_only_the_pair_metrics(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 800, 600, 2000, 3);
    for (size_t i = 0; i < w.n; i++) /* all within one 20 u square: every pair is a candidate */
        place(&w, i, 400.0f + (float)(i % 45) * 0.45f, 300.0f + (float)(i / 45) * 0.45f, 1.0f, 0.0f);
    metrics_state_t s;
    metrics_init(&s);
    metrics_config_t cfg = metrics_default_config(&w);
    metrics_t m;

    cfg.max_pairs = 2000ull * 2000ull / 4; /* fewer than the crowd's */
    assert_int_equal(metrics_compute(&s, &w, &cfg, &m), 0);
    assert_true(m.pairs_skipped);
    assert_true(isnan(m.mean_nn_distance));
    assert_int_equal(m.clusters, 0);
    assert_int_equal(m.collisions, 0);
    assert_near(m.polarization, 1.0, 1e-12); /* the cheap ones still come */
    assert_int_equal(m.agents, 2000);

    cfg.max_pairs = 2000ull * 2000ull; /* every agent against the whole crowd */
    assert_int_equal(metrics_compute(&s, &w, &cfg, &m), 0);
    assert_false(m.pairs_skipped);
    assert_int_equal(m.clusters, 1);
    assert_true(m.collisions > 0);
    metrics_t unlimited;
    cfg.max_pairs = 0;
    assert_int_equal(metrics_compute(&s, &w, &cfg, &unlimited), 0);
    assert_false(unlimited.pairs_skipped);
    assert_int_equal(unlimited.collisions, m.collisions);
    assert_near(unlimited.mean_nn_distance, m.mean_nn_distance, 0.0);
    metrics_free(&s);
    world_free(&w);
}

static double oscillation_of(const world_t *w)
{
    metrics_state_t ms;
    metrics_init(&ms);
    metrics_config_t mc = metrics_default_config(w);
    metrics_t m;
    assert_int_equal(metrics_compute(&ms, w, &mc, &m), 0);
    metrics_free(&ms);
    return m.oscillation;
}

static void oscillation_should_be_the_mean_turn_rate_over_the_last_step(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 1000, 1000, 2, 3);
    /* Far apart, nobody to steer by: both fly straight. */
    place(&w, 0, 100, 100, 100, 0);
    place(&w, 1, 600, 600, 0, 80);
    assert_true(isnan(oscillation_of(&w))); /* no step yet */
    world_step(&w);
    assert_true(oscillation_of(&w) == 0.0);
    /* Agent 0 turned by 0.3 rad during the step (as if it had), agent 1
     * not: a mean of 0.15 rad in 1/60 s. */
    const size_t i = index_of(&w, 0);
    w.next.vx[i] = 100.0f * cosf(-0.3f), w.next.vy[i] = 100.0f * sinf(-0.3f);
    w.cur.vx[i] = 100.0f, w.cur.vy[i] = 0.0f;
    assert_true(fabs(oscillation_of(&w) - 0.15 * 60.0) < 1e-3);
    /* Velocities written by hand: no step led to them. */
    assert_int_equal(world_agents_placed(&w), SIM_OK);
    assert_true(isnan(oscillation_of(&w)));
    world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(agents_flying_the_same_way_should_have_polarization_one),
        cmocka_unit_test(a_crowd_over_max_pairs_should_skip_only_the_pair_metrics),
        cmocka_unit_test(random_headings_should_have_low_polarization),
        cmocka_unit_test(olfati_saber_clusters_should_be_the_components_of_the_proximity_net_of_range_r),
        cmocka_unit_test(agents_circling_the_centroid_should_mill_and_not_polarize),
        cmocka_unit_test(a_square_lattice_of_spacing_ten_should_have_mean_nearest_distance_ten),
        cmocka_unit_test(a_lone_agent_far_from_the_flock_should_get_its_exact_nearest_distance),
        cmocka_unit_test(nearest_distance_should_wrap_across_the_border_only_when_wrapping),
        cmocka_unit_test(fewer_than_two_agents_should_have_no_nearest_distance),
        cmocka_unit_test(two_separated_groups_should_be_two_clusters),
        cmocka_unit_test(a_chain_spaced_just_under_the_radius_should_be_one_cluster),
        cmocka_unit_test(collisions_should_count_each_close_pair_once),
        cmocka_unit_test(an_agent_inside_an_obstacle_should_be_a_penetration_with_negative_clearance),
        cmocka_unit_test(obstacle_distances_should_wrap_across_the_border_when_wrapping),
        cmocka_unit_test(metrics_should_equal_brute_force_on_random_agents_when_wrapping),
        cmocka_unit_test(metrics_should_equal_brute_force_on_random_agents_when_bouncing),
        cmocka_unit_test(metrics_should_equal_brute_force_in_a_world_of_a_few_cells),
        cmocka_unit_test(metrics_should_equal_brute_force_on_a_flock_that_has_flown),
        cmocka_unit_test(the_default_configuration_should_follow_the_cohesion_radius),
        cmocka_unit_test(the_tick_and_population_should_be_reported),
        cmocka_unit_test(a_second_call_with_the_same_population_should_allocate_nothing),
        cmocka_unit_test(oscillation_should_be_the_mean_turn_rate_over_the_last_step),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
