#include "sim/workers.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

struct workers {
    int threads;
    pthread_t *ids;
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    atomic_ulong generation; /* bumped for every run; workers wait for a change */
    atomic_bool quit;
    /* the current run */
    workers_fn fn;
    void *ctx;
    int n_tasks;
    atomic_int next_task;
    int busy; /* helpers still in the current run, under lock */
};

typedef struct {
    workers_t *pool;
    int thread;
} worker_arg_t;

static void drain(workers_t *w, int thread)
{
    int task;
    while ((task = atomic_fetch_add(&w->next_task, 1)) < w->n_tasks) w->fn(w->ctx, task, thread);
}

/* How long an idle worker keeps polling for the next run before it sleeps
 * on the condition variable. A step has back-to-back parallel phases with a
 * short serial part between them; waking a sleeping thread there can cost
 * more than the phase itself on a virtual machine, whose idle CPU may be
 * halted. About a tenth of a millisecond: at 60 Hz that is under 1 % of a
 * core spent polling. */
#define SPIN_ROUNDS 20000

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static void *worker_main(void *arg)
{
    worker_arg_t a = *(worker_arg_t *)arg;
    free(arg);
    workers_t *w = a.pool;
    unsigned long seen = 0;
    for (;;) {
        unsigned long g = atomic_load_explicit(&w->generation, memory_order_acquire);
        for (int i = 0; i < SPIN_ROUNDS && g == seen && !atomic_load(&w->quit); i++) {
            cpu_relax();
            g = atomic_load_explicit(&w->generation, memory_order_acquire);
        }
        if (g == seen) {
            pthread_mutex_lock(&w->lock);
            while (!atomic_load(&w->quit) && (g = atomic_load(&w->generation)) == seen)
                pthread_cond_wait(&w->wake, &w->lock);
            pthread_mutex_unlock(&w->lock);
        }
        if (atomic_load(&w->quit)) break;
        seen = g;
        drain(w, a.thread);
        pthread_mutex_lock(&w->lock);
        if (--w->busy == 0) pthread_cond_signal(&w->done);
        pthread_mutex_unlock(&w->lock);
    }
    return NULL;
}

workers_t *workers_create(int threads)
{
    if (threads < 1) return NULL;
    workers_t *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->threads = threads;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->wake, NULL);
    pthread_cond_init(&w->done, NULL);
    atomic_init(&w->next_task, 0);
    atomic_init(&w->generation, 0);
    atomic_init(&w->quit, false);
    if (threads > 1 && !(w->ids = calloc((size_t)threads - 1, sizeof *w->ids))) {
        workers_destroy(w);
        return NULL;
    }
    for (int t = 1; t < threads; t++) {
        worker_arg_t *arg = malloc(sizeof *arg);
        if (arg) *arg = (worker_arg_t){w, t};
        if (!arg || pthread_create(&w->ids[t - 1], NULL, worker_main, arg)) {
            free(arg);
            w->threads = t; /* only these exist: destroy joins just them */
            workers_destroy(w);
            return NULL;
        }
    }
    return w;
}


void workers_run(workers_t *w, workers_fn fn, void *ctx, int n_tasks)
{
    if (w->threads == 1 || n_tasks <= 1) {
        for (int t = 0; t < n_tasks; t++) fn(ctx, t, 0);
        return;
    }
    pthread_mutex_lock(&w->lock);
    w->fn = fn;
    w->ctx = ctx;
    w->n_tasks = n_tasks;
    atomic_store(&w->next_task, 0);
    w->busy = w->threads - 1;
    /* Release: a polling worker that sees the new generation sees the run. */
    atomic_fetch_add_explicit(&w->generation, 1, memory_order_release);
    pthread_cond_broadcast(&w->wake);
    pthread_mutex_unlock(&w->lock);

    drain(w, 0);

    pthread_mutex_lock(&w->lock);
    while (w->busy) pthread_cond_wait(&w->done, &w->lock);
    pthread_mutex_unlock(&w->lock);
}

void workers_destroy(workers_t *w)
{
    if (!w) return;
    pthread_mutex_lock(&w->lock);
    atomic_store(&w->quit, true);
    pthread_cond_broadcast(&w->wake);
    pthread_mutex_unlock(&w->lock);
    for (int t = 1; t < w->threads; t++) pthread_join(w->ids[t - 1], NULL);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->wake);
    pthread_cond_destroy(&w->done);
    free(w->ids);
    free(w);
}
