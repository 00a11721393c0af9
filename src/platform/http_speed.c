/* The low-speed and overall limits of a transfer (http.h), the same for every client. */
#include "http.h"
#include "base/util.h"

#include <stdio.h>

bool http_speed_check(struct http_speed *s, const struct http_request *req, double now,
                      uint64_t bytes, enum http_failure *failure, char *why, size_t size)
{
    if (s->start == 0) {
        s->start = s->window = now;
        s->window_bytes = bytes;
    }
    if (req->max_time && now - s->start > (double)req->max_time) {
        *failure = HTTP_TOO_LONG;
        snprintf(why, size, "still going after %u s ([fetch] max_time)", req->max_time);
        return true;
    }
    if (!req->low_speed || now - s->window < (double)req->low_speed_time)
        return false;
    double rate = (double)(bytes - s->window_bytes) / (now - s->window);
    if (rate < (double)req->low_speed) {
        *failure = HTTP_SLOW;
        snprintf(why, size,
                 "%.0f bytes a second over the last %u s, less than [fetch] low_speed %u", rate,
                 req->low_speed_time, req->low_speed);
        return true;
    }
    s->window = now;
    s->window_bytes = bytes;
    return false;
}
