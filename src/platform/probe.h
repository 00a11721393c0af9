/*
 * What the main cuDNN library at a path answers, for the doctor: it loads, its version, its
 * CUDA runtime, and a handle made and destroyed. On POSIX it is asked in a child process
 * (fork), so that a crash, an abort or a hang inside the library (cuDNN aborts its process
 * when a sub-library it needs cannot be found) ends the child, not cdm, and comes back as
 * the step it stopped at and how; on Windows in cdm.exe run again as a child (no fork
 * there), which also hands back what the library wrote. probe_common.c asks and reads the
 * answers; probe_posix.c and probe_win32.c decide where.
 */
#ifndef CDM_PROBE_H
#define CDM_PROBE_H

#include <stdbool.h>

enum probe_step { PROBE_LOAD, PROBE_VERSION, PROBE_CUDART, PROBE_CREATE, PROBE_DONE };

struct cudnn_probe {
    bool loaded;
    char why[512]; /* why it did not load */
    bool has_version, has_cudart, has_create;
    long version, cudart;
    int create_status;
    char create_name[64];    /* cudnnGetErrorString of the status, "" when the library has none */
    bool destroyed;          /* cudnnDestroy of the handle made returned 0 */
    enum probe_step stopped; /* the step not finished; PROBE_DONE when all were */
    char death[160];         /* how the asking ended at that step */
    char said[400];          /* what the library wrote to stdout and stderr itself (Windows; "" on
                              * POSIX, where it goes to cdm's own stderr) */
};

/* Ask the library at path, waiting at most timeout_ms for the whole (POSIX). */
void cudnn_probe(const char *path, unsigned timeout_ms, struct cudnn_probe *out);

/* The part each platform shares: ask the library at path, telling each answer as one line
 * to emit (probe_common.c), and read such lines back into out. */
void probe_ask(const char *path, void (*emit)(void *arg, const char *line), void *arg);
void probe_parse(const char *lines, struct cudnn_probe *out);
/* The child's death when it gave no answer in time: out->death says so. */
void probe_note_timeout(struct cudnn_probe *out, unsigned timeout_ms);
/* The line is one of probe_ask's answers (not something the library printed). */
bool probe_line_known(const char *line);
/* The step's name, for messages: "loading it", "cudnnGetVersion" ... */
const char *probe_step_name(enum probe_step step);

#endif
