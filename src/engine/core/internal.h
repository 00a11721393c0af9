/* What the core's files share and the front end never sees. */
#ifndef CDM_INTERNAL_H
#define CDM_INTERNAL_H

#include "cdm.h"
#include "base/error.h"
#include "base/util.h"
#include "config.h"

#include <signal.h>
#include <sqlite3.h>
#include <stddef.h>

struct fs_lock_handle;

struct cdm_ctx {
    struct error_state err; /* first: base/error.c reaches it through the context pointer */
    struct cdm_options options;
    struct cdm_config config;
    char *root;
    char *state_path; /* the user's state database (CDM_STATE, else the platform's place) */
    sqlite3 *db;      /* the store's index: installs and their files */
    sqlite3 *state;   /* the user's state: projects' generations, attachments */
    struct fs_lock_handle *lock;
    struct fs_lock_handle *state_lock;
    bool recovered;       /* leftovers of interrupted work were dealt with in this process */
    bool state_recovered; /* those of the state were */
    volatile sig_atomic_t interrupted; /* cdm_interrupt: set from a signal handler */
};

_Static_assert(offsetof(struct cdm_ctx, err) == 0, "base/error.c needs the error state first");

#endif
