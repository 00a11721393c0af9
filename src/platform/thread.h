/*
 * Threads for the engine's pipelines (an extraction's reader and writer): start and join,
 * and a monitor (one lock, one condition) to hand work between them. POSIX threads in
 * thread_posix.c, Windows threads, slim locks and condition variables in thread_win32.c.
 */
#ifndef CDM_THREAD_H
#define CDM_THREAD_H

struct thread;
/* Run fn(arg) in a new thread; NULL when the system refuses one (the caller then does
 * the work itself or fails). */
struct thread *thread_start(int (*fn)(void *arg), void *arg);
/* Wait for the thread to end; returns what fn returned and frees t. */
int thread_join(struct thread *t);

struct monitor;
struct monitor *monitor_new(void);
void monitor_free(struct monitor *m);
void monitor_enter(struct monitor *m);
void monitor_leave(struct monitor *m);
/* Leave, sleep until woken, enter again (callers loop on their own condition). */
void monitor_wait(struct monitor *m);
/* Wake every thread waiting in m (the caller is inside it). */
void monitor_wake(struct monitor *m);

/* The number of processors this process may use (at least 1). */
unsigned thread_cpu_count(void);

#endif
