/*
 * The doctor's channel from cdm-audit.so (ld_audit.c) on POSIX: a listening socket in a
 * private folder that every traced process connects to, and the checks that decide which
 * connections and lines are believed (trace_channel_posix.c says why these). Used by
 * trace_posix.c only.
 */
#ifndef CDM_TRACE_CHANNEL_H
#define CDM_TRACE_CHANNEL_H

#include "trace.h"

struct trace_channel;

/* Listen at DIR/channel; audit is the real path of the audit library that the processes
 * must have mapped. An error (set in ctx) when the socket cannot be made. */
int trace_channel_open(cdm_ctx *ctx, const char *dir, const char *audit,
                       struct trace_channel **out);
/* The socket's path, for CDM_TRACE_SOCKET. */
const char *trace_channel_path(const struct trace_channel *ch);
/* The command's own process: only it and the processes below it (by their parents, or by
 * its process group when it has one of its own) are believed. Set before the first poll. */
void trace_channel_set_root(struct trace_channel *ch, long pid);
/* Wait at most ms for the processes' connections and messages, and take in what came
 * (into r). The number of events handled: 0 when nothing came. */
size_t trace_channel_poll(struct trace_channel *ch, int ms, struct trace_result *r);
/* Close every connection and the socket, and remove it. */
void trace_channel_close(struct trace_channel *ch);

#endif
