/* What a unit test needs to know about the platform it runs on (testenv_*.c). */
#ifndef CDM_TESTENV_H
#define CDM_TESTENV_H

/* Why project links (symbolic links, junctions) cannot be made here, or NULL when they
 * can. It tries: a junction made in a scratch folder (stock Wine 8 has none). */
const char *testenv_links_unavailable(void);

/* Why a link replaced by a rename cannot be checked here, or NULL. It tries, in the folder
 * scratch: a file renamed over a file symbolic link, the folder then removed whole (Wine's
 * junction patches keep the replaced link's metadata in a hidden folder that stays). */
const char *testenv_rename_over_link_unavailable(const char *scratch);

/* Set (value NULL: unset) a variable of this process's environment, in UTF-8, where cdm
 * reads it from. */
void testenv_setenv(const char *name, const char *value);

#endif
