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

/*
 * The four kinds of work a kill can interrupt, each with its own journal and its own
 * recovery (store/recover.c), as bits: what a command touches, and what this process has
 * settled already. A command runs only the recoveries of what it touches, so a link is
 * not held up (nor its store's lock taken) by an install another cdm left half done; a
 * command that reads or changes an install's files or the installs table settles the
 * installs first, and so on.
 */
enum recover_protocol {
    RECOVER_LINKS = 1 << 0,    /* link changes: pending generations (the user's state) */
    RECOVER_ATTACH = 1 << 1,   /* attaches and detaches under way (the user's state) */
    RECOVER_DEPLOYS = 1 << 2,  /* deploys into a CUDA toolkit (the store's index) */
    RECOVER_INSTALLS = 1 << 3, /* installs and removes, and .staging/ (the store) */
};
#define RECOVER_STATE (RECOVER_LINKS | RECOVER_ATTACH)
#define RECOVER_STORE (RECOVER_DEPLOYS | RECOVER_INSTALLS)
#define RECOVER_ALL   (RECOVER_STATE | RECOVER_STORE)

struct cdm_ctx {
    struct error_state err; /* first: base/error.c reaches it through the context pointer */
    struct cdm_options options;
    struct cdm_config config;
    char *root;
    char *state_path; /* the user's state database (CDM_STATE, else the platform's place) */
    sqlite3 *db;      /* the store's index: installs and their files */
    sqlite3 *state;   /* the user's state: projects' generations, attachments */
    struct cdm_ctx **upstreams; /* [store] upstream's contexts, each opened on first use */
    struct fs_lock_handle *lock;
    struct fs_lock_handle *state_lock;
    unsigned recovered; /* the recover_protocol bits whose leftovers this process dealt
                         * with */
    volatile sig_atomic_t interrupted; /* cdm_interrupt: set from a signal handler */
};

_Static_assert(offsetof(struct cdm_ctx, err) == 0, "base/error.c needs the error state first");

#endif
