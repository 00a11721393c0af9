/* thread.h with POSIX threads. */
#include "thread.h"

#include "base/util.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

struct thread {
    pthread_t id;
    int (*fn)(void *);
    void *arg;
    int result;
};

static void *thread_main(void *arg)
{
    struct thread *t = arg;
    t->result = t->fn(t->arg);
    return NULL;
}

struct thread *thread_start(int (*fn)(void *arg), void *arg)
{
    struct thread *t = xmalloc(sizeof(*t));
    t->fn = fn;
    t->arg = arg;
    t->result = 0;
    if (pthread_create(&t->id, NULL, thread_main, t) != 0) {
        free(t);
        return NULL;
    }
    return t;
}

int thread_join(struct thread *t)
{
    pthread_join(t->id, NULL);
    int result = t->result;
    free(t);
    return result;
}

struct monitor {
    pthread_mutex_t lock;
    pthread_cond_t cond;
};

struct monitor *monitor_new(void)
{
    struct monitor *m = xmalloc(sizeof(*m));
    /* both only fail for want of memory, which xmalloc treats as fatal too */
    if (pthread_mutex_init(&m->lock, NULL) != 0 || pthread_cond_init(&m->cond, NULL) != 0)
        abort();
    return m;
}

void monitor_free(struct monitor *m)
{
    if (!m)
        return;
    pthread_cond_destroy(&m->cond);
    pthread_mutex_destroy(&m->lock);
    free(m);
}

void monitor_enter(struct monitor *m)
{
    pthread_mutex_lock(&m->lock);
}

void monitor_leave(struct monitor *m)
{
    pthread_mutex_unlock(&m->lock);
}

void monitor_wait(struct monitor *m)
{
    pthread_cond_wait(&m->cond, &m->lock);
}

void monitor_wake(struct monitor *m)
{
    pthread_cond_broadcast(&m->cond);
}

unsigned thread_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}
