/* The other flocking models, tested by what the agents do. */
#include <stdlib.h>

#include "sim/commands.h"
#include "sim_fixtures.h"

static void cluster_agents(world_t *w, float x0, float y0, float size, float speed, unsigned seed)
{
    prng_t r;
    prng_seed(&r, seed, 9);
    for (size_t i = 0; i < w->n; i++)
        place(w, i, x0 + prng_range(&r, 0, size), y0 + prng_range(&r, 0, size), prng_range(&r, -speed, speed),
              prng_range(&r, -speed, speed));
}

/* Mean and smallest distance between agents closer than range. */
static void neighbour_distances(const world_t *w, float range, double *mean, double *smallest)
{
    double sum = 0;
    size_t count = 0;
    *smallest = INFINITY;
    for (size_t i = 0; i < w->n; i++)
        for (size_t j = i + 1; j < w->n; j++) {
            double d = hypot(w->cur.x[j] - w->cur.x[i], w->cur.y[j] - w->cur.y[i]);
            if (d >= range) continue;
            sum += d;
            count++;
            *smallest = fmin(*smallest, d);
        }
    *mean = count ? sum / (double)count : NAN;
}

static void mean_velocity(const world_t *w, double *vx, double *vy, double *spread)
{
    *vx = *vy = *spread = 0;
    for (size_t i = 0; i < w->n; i++) *vx += w->cur.vx[i], *vy += w->cur.vy[i];
    *vx /= (double)w->n;
    *vy /= (double)w->n;
    for (size_t i = 0; i < w->n; i++) *spread += hypot(w->cur.vx[i] - *vx, w->cur.vy[i] - *vy);
    *spread /= (double)w->n;
}

static void olfati_alpha_agents_should_settle_into_a_lattice_at_distance_d(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 1600, 900, 60, 3);
    set_param(&w, "model", MODEL_OLFATI1);
    cluster_agents(&w, 700, 350, 150, 20, 1);
    for (int t = 0; t < 30 * 60; t++) world_step(&w);
    double mean, smallest;
    neighbour_distances(&w, w.params.os_r, &mean, &smallest);
    print_message("alpha lattice: mean neighbour distance %.2f, smallest %.2f (d = 25)\n", mean, smallest);
    assert_float_equal(mean, 25.0, 25.0 * 0.05);
    assert_true(smallest > 0.8 * 25.0);
    world_free(&w);
}

static void the_gamma_agent_should_drag_the_flock_to_the_reference_velocity(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 1600, 900, 60, 3);
    set_param(&w, "model", MODEL_OLFATI2);
    set_param(&w, "os_ref_vx", 30);
    set_param(&w, "os_ref_vy", -10);
    cluster_agents(&w, 700, 350, 150, 20, 2);
    double vx, vy, spread;
    mean_velocity(&w, &vx, &vy, &spread);
    assert_true(hypot(vx - 30, vy + 10) > 20); /* far from it at first */
    for (int t = 0; t < 30 * 60; t++) world_step(&w);
    mean_velocity(&w, &vx, &vy, &spread);
    print_message("gamma: mean velocity (%.2f, %.2f), spread %.2f; reference (30, -10)\n", vx, vy, spread);
    assert_float_equal(vx, 30.0, 1.0);
    assert_float_equal(vy, -10.0, 1.0);
    assert_true(spread < 1.0); /* velocity consensus */
    world_free(&w);
}

static void the_gamma_agent_should_bring_the_flock_to_a_client_target(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 1600, 900, 40, 3);
    set_param(&w, "model", MODEL_OLFATI2);
    cluster_agents(&w, 200, 200, 100, 10, 3);
    assert_int_equal(world_set_target(&w, 5, 1200, 600), SIM_OK);
    for (int t = 0; t < 40 * 60; t++) world_step(&w);
    double cx = 0, cy = 0;
    for (size_t i = 0; i < w.n; i++) cx += w.cur.x[i], cy += w.cur.y[i];
    cx /= (double)w.n;
    cy /= (double)w.n;
    print_message("gamma target: centroid (%.1f, %.1f), target (1200, 600)\n", cx, cy);
    assert_true(hypot(cx - 1200, cy - 600) < 30);
    world_free(&w);
}

static void beta_agents_should_keep_a_flock_out_of_an_obstacle_in_its_way(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 1600, 900, 40, 3);
    set_param(&w, "model", MODEL_OLFATI3);
    set_param(&w, "os_ref_vx", 60);
    cluster_agents(&w, 300, 400, 100, 10, 4);
    uint32_t id;
    assert_int_equal(world_add_obstacle(&w, 700, 450, 60, &id), SIM_OK);
    double closest = INFINITY;
    for (int t = 0; t < 20 * 60; t++) {
        world_step(&w);
        for (size_t i = 0; i < w.n; i++) closest = fmin(closest, hypot(w.cur.x[i] - 700, w.cur.y[i] - 450) - 60);
    }
    print_message("beta: closest approach to the obstacle's surface %.2f u\n", closest);
    assert_true(closest > 5.0); /* the beta-agents keep them off, not the last-resort push-out */
    world_free(&w);
}

static void unicycle_agents_should_keep_their_own_constant_speed(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 1000, 1000, 200, 4);
    set_param(&w, "model", MODEL_UNICYCLE);
    float speed[200];
    world_step(&w);
    for (size_t i = 0; i < w.n; i++) speed[w.cur.id[i]] = hypotf(w.cur.vx[i], w.cur.vy[i]);
    float lo = INFINITY, hi = 0;
    for (int t = 0; t < 300; t++) {
        world_step(&w);
        for (size_t i = 0; i < w.n; i++) {
            float s = hypotf(w.cur.vx[i], w.cur.vy[i]);
            assert_float_equal(s, speed[w.cur.id[i]], 1e-3);
        }
    }
    for (int k = 0; k < 200; k++) lo = fminf(lo, speed[k]), hi = fmaxf(hi, speed[k]);
    assert_true(lo >= 100.0f && hi <= 140.0f);
    assert_true(hi - lo > 20.0f); /* drawn per agent, not one for all */
    world_free(&w);
}

/* Random headings of 150 agents have a polarization near 1/√150 ≈ 0.08; a
 * flock of them heads one way. One world's polarization after 40 s is
 * chaotic (over seeds 1–10 it spans 0.39–0.72, mean 0.62, and the last bit
 * of an angle moves it by as much), so the test takes the mean of four. */
static void unicycle_agents_should_flock_into_a_common_heading(void **state)
{
    (void)state;
    double start = 0.0, end = 0.0;
    for (uint32_t seed = 1; seed <= 4; seed++) {
        world_t w;
        make_world(&w, 500, 500, 150, seed);
        set_param(&w, "model", MODEL_UNICYCLE);
        start += polarization(&w) / 4.0;
        for (int t = 0; t < 40 * 60; t++) world_step(&w);
        end += polarization(&w) / 4.0;
        world_free(&w);
    }
    print_message("unicycle polarization, mean of 4 worlds: %.3f -> %.3f\n", start, end);
    assert_true(start < 0.2);
    assert_true(end > 0.55);
}

static void a_blind_separation_zone_should_still_let_cohesion_see_behind(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 1000, 1000, 2, 1);
    set_param(&w, "fov_sep", 300);
    set_param(&w, "fov_ali", 300);
    set_param(&w, "fov_coh", 360);
    set_param(&w, "w_coh", 1);
    /* 30 u straight behind: outside separation anyway, inside cohesion, which sees all round. */
    place(&w, 0, 500, 500, 100, 0);
    place(&w, 1, 470, 500, 100, 0);
    world_step(&w);
    size_t a = index_of(&w, 0);
    assert_true(w.cur.vx[a] < 100.0f); /* pulled back toward the one behind */
    world_free(&w);
}

static void alignment_by_heading_should_also_polarize_the_flock(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 400, 400, 300, 5);
    set_param(&w, "ali_mode", ALIGN_HEADING);
    for (int t = 0; t < 30 * 60; t++) world_step(&w);
    print_message("polarization by heading %.3f\n", polarization(&w));
    assert_true(polarization(&w) > 0.85);
    world_free(&w);
}

static void no_agent_should_enter_moving_obstacles_over_a_long_run(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 800, 800, 400, 7);
    uint32_t id;
    assert_int_equal(world_add_moving_obstacle(&w, 200, 200, 50, 80, 30, &id), SIM_OK);
    assert_int_equal(world_add_moving_obstacle(&w, 600, 500, 70, -60, 90, &id), SIM_OK);
    assert_int_equal(world_add_obstacle(&w, 400, 650, 40, &id), SIM_OK);
    world_set_target(&w, 1, 400, 400);
    float moved = 0;
    for (int t = 0; t < 60 * 60; t++) {
        float x0 = w.obstacles[0].x;
        world_step(&w);
        moved += fabsf(w.obstacles[0].x - x0);
        for (size_t k = 0; k < w.n_obstacles; k++) {
            const obstacle_t *o = &w.obstacles[k];
            assert_true(o->x >= o->r && o->x <= 800 - o->r && o->y >= o->r && o->y <= 800 - o->r);
            for (size_t i = 0; i < w.n; i++)
                if (hypotf(w.cur.x[i] - o->x, w.cur.y[i] - o->y) < o->r)
                    fail_msg("tick %d: agent %u at (%.2f, %.2f) inside moving obstacle %zu at (%.2f, %.2f) r %.0f", t,
                             w.cur.id[i], w.cur.x[i], w.cur.y[i], k, o->x, o->y, o->r);
        }
    }
    assert_true(moved > 1000.0f); /* it did move, and bounced */
    world_free(&w);
}

static void respawn_should_bring_leaving_agents_back_inside(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 300, 200, 300, 8);
    set_param(&w, "border", BORDER_RESPAWN);
    set_param(&w, "max_speed", 500);
    place(&w, 0, 299, 100, 400, 0);
    world_step(&w);
    size_t i = index_of(&w, 0);
    assert_true(w.cur.x[i] >= 0 && w.cur.x[i] < 300 && fabsf(w.cur.x[i] - 299) > 1e-3f);
    for (int t = 0; t < 600; t++) {
        world_step(&w);
        assert_int_equal(w.n, 300);
        for (size_t k = 0; k < w.n; k++)
            assert_true(w.cur.x[k] >= 0 && w.cur.x[k] < 300 && w.cur.y[k] >= 0 && w.cur.y[k] < 200);
    }
    world_free(&w);
}

static void arrive_should_stop_a_leader_at_its_target_without_overshooting(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 1000, 1000, 1, 1);
    set_param(&w, "arrive_radius", 120);
    place(&w, 0, 100, 500, 150, 0);
    assert_int_equal(world_set_target(&w, 1, 600, 500), SIM_OK);
    float beyond = 0;
    for (int t = 0; t < 10 * 60; t++) {
        world_step(&w);
        beyond = fmaxf(beyond, w.cur.x[0] - 600);
    }
    float d = hypotf(w.cur.x[0] - 600, w.cur.y[0] - 500), v = hypotf(w.cur.vx[0], w.cur.vy[0]);
    print_message("arrive: overshoot %.2f u, final distance %.2f u, final speed %.2f u/s\n", beyond, d, v);
    assert_true(beyond < 5.0f); /* stated bound: 5 u past the target */
    assert_true(d < 2.0f && v < 5.0f);
    world_free(&w);
}

static void set_model_should_switch_the_model_and_move_obstacle_should_move_it(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 1000, 1000, 10, 1);
    sim_result_t res;
    sim_cmd_t cmd = {.kind = CMD_SET_MODEL, .model = MODEL_UNICYCLE};
    sim_apply(&w, &cmd, &res);
    assert_int_equal(res.status, SIM_OK);
    assert_int_equal(w.params.model, MODEL_UNICYCLE);
    uint32_t id;
    assert_int_equal(world_add_obstacle(&w, 100, 100, 10, &id), SIM_OK);
    cmd = (sim_cmd_t){.kind = CMD_MOVE_OBSTACLE, .obstacle_id = id, .x = 300, .y = 400};
    sim_apply(&w, &cmd, &res);
    assert_int_equal(res.status, SIM_OK);
    assert_float_equal(w.obstacles[0].x, 300, 0);
    assert_float_equal(w.obstacles[0].y, 400, 0);
    cmd.obstacle_id = id + 1;
    sim_apply(&w, &cmd, &res);
    assert_int_equal(res.status, SIM_E_NOT_FOUND);
    world_free(&w);
}

static void delayed_feedback_of_zero_ticks_should_equal_the_undelayed_step_bit_for_bit(void **state)
{
    (void)state;
    world_t plain, delayed;
    make_world(&plain, 800, 800, 500, 12);
    make_world(&delayed, 800, 800, 500, 12);
    set_param(&delayed, "delay_ticks", 7); /* on, then off again: no trace may remain */
    set_param(&delayed, "delay_ticks", 0);
    for (int t = 0; t < 300; t++) world_step(&plain), world_step(&delayed);
    assert_memory_equal(plain.cur.x, delayed.cur.x, plain.n * sizeof(float));
    assert_memory_equal(plain.cur.vy, delayed.cur.vy, plain.n * sizeof(float));
    world_free(&plain);
    world_free(&delayed);
}

/* First tick at which agent 0, at rest, reacts to agent 1 flying at it. */
static int first_reaction(int delay, int mode)
{
    world_t w;
    make_world(&w, 1000, 1000, 2, 1);
    set_param(&w, "delay_ticks", delay);
    set_param(&w, "delay_mode", mode);
    place(&w, 0, 500, 500, 0, 0);
    place(&w, 1, 620, 530, -150, 0); /* passes 30 u to the side */
    int reacted = -1;
    for (int t = 1; t <= 120 && reacted < 0; t++) {
        world_step(&w);
        size_t i = index_of(&w, 0);
        if (w.cur.vx[i] != 0.0f || w.cur.vy[i] != 0.0f) reacted = t;
    }
    world_free(&w);
    return reacted;
}

static void delayed_feedback_should_make_agents_react_to_where_neighbours_were(void **state)
{
    (void)state;
    int now = first_reaction(0, DELAY_BOTH);
    int late = first_reaction(10, DELAY_BOTH);
    int late_positions = first_reaction(10, DELAY_POSITIONS);
    int velocities_only = first_reaction(10, DELAY_VELOCITIES);
    print_message("first reaction: tick %d undelayed, %d with 10 ticks of delay (%d positions only, %d velocities only)\n",
                  now, late, late_positions, velocities_only);
    assert_true(now > 0);
    assert_int_equal(late, now + 10);
    assert_int_equal(late_positions, now + 10);
    assert_int_equal(velocities_only, now); /* it is seen where it is; only its velocity is old */
}

/* Last tick at which anyone senses a neighbour, while agent 1 flies away
 * from agent 0 (at rest) at max_speed, with every rule off so that nobody
 * steers; -1 if never. */
static int last_tick_sensed(int delay)
{
    world_t w;
    make_world(&w, 1000, 1000, 2, 1);
    set_param(&w, "rule_sep", 0);
    set_param(&w, "rule_ali", 0);
    set_param(&w, "rule_coh", 0);
    set_param(&w, "fov_sep", 360);
    set_param(&w, "fov_ali", 360);
    set_param(&w, "fov_coh", 360);
    set_param(&w, "delay_ticks", delay);
    set_param(&w, "delay_mode", DELAY_POSITIONS);
    place(&w, 0, 540, 500, 0, 0);
    place(&w, 1, 550, 500, 150, 0); /* 2.5 u a tick, out of the 50 u zones after 16 ticks */
    assert_int_equal(world_agents_placed(&w), SIM_OK);
    int last = -1;
    for (int t = 1; t <= 120; t++) {
        world_step(&w);
        if (w.mean_neighbours > 0.0) last = t;
    }
    world_free(&w);
    return last;
}

static void a_delayed_neighbour_should_be_sensed_where_it_was_however_far_it_has_flown_since(void **state)
{
    (void)state;
    /* With 30 ticks of delay agent 0 sees agent 1 where it was half a
     * second ago: 30 ticks longer than without delay, although by then
     * agent 1 is 75 u further on, beyond the 3x3 block of 50 u cells in
     * which the grid looks for neighbours by their present places. */
    int now = last_tick_sensed(0), late = last_tick_sensed(30);
    print_message("last tick sensed: %d undelayed, %d with 30 ticks of delay\n", now, late);
    assert_true(now > 0);
    assert_int_equal(late, now + 30);
}

static void density_dependent_radii_should_shrink_in_a_crowd_smoothly_and_not_alone(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 2000, 2000, 301, 13);
    set_param(&w, "density_radii", 1);
    set_param(&w, "personal_space", 0); /* the crowd stays packed: contact would open it out */
    cluster_agents(&w, 900, 900, 120, 30, 5); /* 300 agents packed in 120 x 120 u */
    place(&w, 300, 100, 100, 50, 0);          /* and one far away, alone */
    world_step(&w);
    /* After one tick a crowded radius has moved only s = smoothing·dt of the way. */
    float k = w.params.radius_smoothing * w.dt;
    for (uint32_t id = 0; id < 300; id++) {
        assert_true(w.radius_coh[id] < 50.0f);
        assert_true(w.radius_coh[id] >= 50.0f * (1.0f - k) + k * (50.0f - 2.0f * 300.0f) - 1e-3f);
    }
    for (int t = 0; t < 3 * 60; t++) world_step(&w);
    double mean = 0;
    for (uint32_t id = 0; id < 300; id++) {
        assert_true(w.radius_coh[id] >= w.params.radius_min);
        mean += w.radius_coh[id];
    }
    mean /= 300;
    print_message("density radii: crowded mean cohesion radius %.1f u (max 50, min 10); alone %.1f u\n", mean,
                  w.radius_coh[300]);
    assert_true(mean < 40.0);
    assert_float_equal(w.radius_coh[300], 50.0f, 1e-4);
    world_free(&w);
}

static void a_predator_should_close_in_on_its_prey_and_the_prey_should_flee(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 2000, 2000, 1, 14);
    set_param(&w, "predators", 1);
    assert_int_equal(w.n_predators, 1);
    w.predators[0] = (predator_t){500, 1000, 0, 180};
    place(&w, 0, 800, 1000, 0, 100); /* 300 u to the side, outside the fear radius */
    float start = hypotf(w.cur.x[0] - w.predators[0].x, w.cur.y[0] - w.predators[0].y), closest = start;
    bool fled = false;
    for (int t = 0; t < 4 * 60; t++) {
        world_step(&w);
        float dx = w.cur.x[0] - w.predators[0].x, dy = w.cur.y[0] - w.predators[0].y;
        closest = fminf(closest, hypotf(dx, dy));
        /* Inside the fear radius the prey runs: its velocity points away. */
        if (hypotf(dx, dy) < 0.5f * w.params.fear_radius && w.cur.vx[0] * dx + w.cur.vy[0] * dy > 0) fled = true;
    }
    print_message("predator: from %.0f u to %.1f u of its prey; prey fled: %s\n", start, closest, fled ? "yes" : "no");
    assert_true(closest < 0.2f * start);
    assert_true(fled);
    world_free(&w);
}

static void wander_should_bend_a_lone_agents_path_and_keep_it_moving(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 4000, 4000, 1, 15);
    set_param(&w, "w_wander", 1);
    place(&w, 0, 2000, 2000, 150, 0);
    float turned = 0, last = 0;
    for (int t = 0; t < 5 * 60; t++) {
        world_step(&w);
        float heading = atan2f(w.cur.vy[0], w.cur.vx[0]);
        if (t) turned += fabsf(remainderf(heading - last, 6.28318531f));
        last = heading;
    }
    print_message("wander: turned %.2f rad in 5 s, speed %.1f u/s\n", turned, hypotf(w.cur.vx[0], w.cur.vy[0]));
    assert_true(turned > 1.0f);
    float speed = hypotf(w.cur.vx[0], w.cur.vy[0]);
    assert_true(speed > 0.85f * 150.0f && speed <= 150.0f * 1.0001f); /* turning costs a little speed */
    world_free(&w);
}

static void species_should_flock_only_with_their_own_kind(void **state)
{
    (void)state;
    for (int species = 1; species <= 2; species++) {
        world_t w;
        make_world(&w, 1000, 1000, 2, 16);
        set_param(&w, "species", species);
        /* ids 0 and 1: the same species with one, different ones with two;
         * 30 u apart, in the alignment and cohesion zones, out of separation's */
        place(&w, 0, 500, 500, 100, 0);
        place(&w, 1, 500, 530, 0, 100);
        assert_int_equal((w.cur.flags[1] & AGENT_SPECIES_MASK) >> AGENT_SPECIES_SHIFT, species == 2 ? 1 : 0);
        world_step(&w);
        size_t a = index_of(&w, 0);
        bool steered = w.cur.vx[a] != 100.0f || w.cur.vy[a] != 0.0f;
        assert_int_equal(steered, species == 1); /* an agent of another species is not a neighbour */
        world_free(&w);
    }
}

static void separation_should_keep_agents_off_other_species_too(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 1000, 1000, 2, 16);
    set_param(&w, "species", 2);
    /* ids 0 and 1 are of two species, 10 u apart and flying alike: only
     * separation can turn agent 0, away from agent 1 (below it). */
    place(&w, 0, 500, 500, 100, 0);
    place(&w, 1, 500, 510, 100, 0);
    world_step(&w);
    size_t a = index_of(&w, 0);
    assert_true(w.cur.vy[a] < 0.0f);
    world_free(&w);
}

/* Olfati-Saber's α-lattice is one species' own, but another species' body
 * still repels: inside d (25 u) agent 0 is pushed off agent 1 of the other
 * kind; between d and r (28 u), where its own kind would attract, it is
 * left alone. */
static void olfati_agents_should_be_repelled_but_not_attracted_by_another_species(void **state)
{
    (void)state;
    const float gaps[] = {10.0f, 28.0f};
    for (size_t g = 0; g < 2; g++) {
        for (int species = 1; species <= 2; species++) {
            world_t w;
            make_world(&w, 1000, 1000, 2, 16);
            set_param(&w, "model", MODEL_OLFATI1);
            set_param(&w, "species", species);
            place(&w, 0, 500, 500, 0, 0);
            place(&w, 1, 500, 500 + gaps[g], 0, 0);
            world_step(&w);
            const float vy = w.cur.vy[index_of(&w, 0)];
            if (g == 0)
                assert_true(vy < 0.0f); /* pushed away, whatever the kind */
            else if (species == 1)
                assert_true(vy > 0.0f); /* its own kind draws it in */
            else
                assert_true(vy == 0.0f); /* another kind does not */
            world_free(&w);
        }
    }
}

static void a_species_should_keep_its_own_parameters(void **state)
{
    (void)state;
    world_t w;
    make_world(&w, 800, 800, 400, 17);
    set_param(&w, "species", 2);
    char msg[160];
    assert_int_equal(world_set_species_param(&w, 1, (size_t)params_find("max_speed"), 60, msg, sizeof msg), SIM_OK);
    assert_float_equal(w.params.max_speed, 150.0f, 0);
    assert_float_equal(w.species_params[1].max_speed, 60.0f, 0);
    float fastest[2] = {0, 0};
    for (int t = 0; t < 300; t++) {
        world_step(&w);
        for (size_t i = 0; i < w.n; i++) {
            int s = (w.cur.flags[i] & AGENT_SPECIES_MASK) >> AGENT_SPECIES_SHIFT;
            fastest[s] = fmaxf(fastest[s], hypotf(w.cur.vx[i], w.cur.vy[i]));
        }
    }
    print_message("fastest: species 0 %.1f u/s (limit 150), species 1 %.1f u/s (limit 60)\n", fastest[0], fastest[1]);
    assert_true(fastest[1] <= 60.0f * 1.0001f);
    assert_true(fastest[0] > 100.0f);
    /* A value set for everyone reaches every species again. */
    set_param(&w, "max_speed", 90);
    assert_float_equal(w.species_params[1].max_speed, 90.0f, 0);
    world_free(&w);
}

static void every_model_should_step_identically_on_one_and_two_threads(void **state)
{
    (void)state;
    for (int model = MODEL_REYNOLDS; model <= MODEL_COUZIN; model++) {
        world_t w[2];
        for (int k = 0; k < 2; k++) {
            world_config_t cfg = {.width = 3600, .height = 3600, .dt = 1.0f / 60, .seed = 5, .agents = 20000,
                                  .max_agents = 20000, .max_targets = 2, .threads = k + 1};
            assert_int_equal(world_init(&w[k], &cfg), 0);
            set_param(&w[k], "model", model);
            uint32_t id;
            world_add_moving_obstacle(&w[k], 1000, 1000, 80, 40, 20, &id);
            world_set_target(&w[k], 1, 2000, 2500);
            if (model == MODEL_REYNOLDS) set_param(&w[k], "delay_ticks", 3), set_param(&w[k], "density_radii", 1);
            if (model == MODEL_REYNOLDS) set_param(&w[k], "separation", SEPARATION_POTENTIAL);
            set_param(&w[k], "predators", 3);
            set_param(&w[k], "species", 2);
            set_param(&w[k], "w_wander", 0.5);
            for (int t = 0; t < 20; t++) world_step(&w[k]);
        }
        assert_memory_equal(w[0].cur.x, w[1].cur.x, w[0].n * sizeof(float));
        assert_memory_equal(w[0].cur.vy, w[1].cur.vy, w[0].n * sizeof(float));
        world_free(&w[0]);
        world_free(&w[1]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(olfati_alpha_agents_should_settle_into_a_lattice_at_distance_d),
        cmocka_unit_test(the_gamma_agent_should_drag_the_flock_to_the_reference_velocity),
        cmocka_unit_test(the_gamma_agent_should_bring_the_flock_to_a_client_target),
        cmocka_unit_test(beta_agents_should_keep_a_flock_out_of_an_obstacle_in_its_way),
        cmocka_unit_test(unicycle_agents_should_keep_their_own_constant_speed),
        cmocka_unit_test(unicycle_agents_should_flock_into_a_common_heading),
        cmocka_unit_test(a_blind_separation_zone_should_still_let_cohesion_see_behind),
        cmocka_unit_test(alignment_by_heading_should_also_polarize_the_flock),
        cmocka_unit_test(no_agent_should_enter_moving_obstacles_over_a_long_run),
        cmocka_unit_test(respawn_should_bring_leaving_agents_back_inside),
        cmocka_unit_test(arrive_should_stop_a_leader_at_its_target_without_overshooting),
        cmocka_unit_test(set_model_should_switch_the_model_and_move_obstacle_should_move_it),
        cmocka_unit_test(delayed_feedback_of_zero_ticks_should_equal_the_undelayed_step_bit_for_bit),
        cmocka_unit_test(delayed_feedback_should_make_agents_react_to_where_neighbours_were),
        cmocka_unit_test(a_delayed_neighbour_should_be_sensed_where_it_was_however_far_it_has_flown_since),
        cmocka_unit_test(density_dependent_radii_should_shrink_in_a_crowd_smoothly_and_not_alone),
        cmocka_unit_test(a_predator_should_close_in_on_its_prey_and_the_prey_should_flee),
        cmocka_unit_test(wander_should_bend_a_lone_agents_path_and_keep_it_moving),
        cmocka_unit_test(species_should_flock_only_with_their_own_kind),
        cmocka_unit_test(separation_should_keep_agents_off_other_species_too),
        cmocka_unit_test(olfati_agents_should_be_repelled_but_not_attracted_by_another_species),
        cmocka_unit_test(a_species_should_keep_its_own_parameters),
        cmocka_unit_test(every_model_should_step_identically_on_one_and_two_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
