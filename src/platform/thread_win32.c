/* thread.h with Windows threads, a slim reader/writer lock and a condition variable. */
#include <windows.h>
#include <process.h>

#include "thread.h"

#include "base/util.h"

#include <stdlib.h>

struct thread {
    HANDLE handle;
    int (*fn)(void *);
    void *arg;
    int result;
};

/* _beginthreadex rather than CreateThread: the C runtime sets up its per-thread state. */
static unsigned __stdcall thread_main(void *arg)
{
    struct thread *t = arg;
    t->result = t->fn(t->arg);
    return 0;
}

struct thread *thread_start(int (*fn)(void *arg), void *arg)
{
    struct thread *t = xmalloc(sizeof(*t));
    t->fn = fn;
    t->arg = arg;
    t->result = 0;
    uintptr_t h = _beginthreadex(NULL, 0, thread_main, t, 0, NULL);
    if (!h) {
        free(t);
        return NULL;
    }
    t->handle = (HANDLE)h;
    return t;
}

int thread_join(struct thread *t)
{
    WaitForSingleObject(t->handle, INFINITE);
    CloseHandle(t->handle);
    int result = t->result;
    free(t);
    return result;
}

struct monitor {
    SRWLOCK lock;
    CONDITION_VARIABLE cond;
};

struct monitor *monitor_new(void)
{
    struct monitor *m = xmalloc(sizeof(*m));
    InitializeSRWLock(&m->lock);
    InitializeConditionVariable(&m->cond);
    return m;
}

void monitor_free(struct monitor *m)
{
    free(m); /* neither needs destroying */
}

void monitor_enter(struct monitor *m)
{
    AcquireSRWLockExclusive(&m->lock);
}

void monitor_leave(struct monitor *m)
{
    ReleaseSRWLockExclusive(&m->lock);
}

void monitor_wait(struct monitor *m)
{
    SleepConditionVariableSRW(&m->cond, &m->lock, INFINITE, 0);
}

void monitor_wake(struct monitor *m)
{
    WakeAllConditionVariable(&m->cond);
}

unsigned thread_cpu_count(void)
{
    SYSTEM_INFO info;
    GetSystemInfo(&info);
    return info.dwNumberOfProcessors ? (unsigned)info.dwNumberOfProcessors : 1;
}
