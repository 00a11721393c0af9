/* What a unit test needs to know about the platform it runs on (testenv_*.c). */
#ifndef CDM_TESTENV_H
#define CDM_TESTENV_H

/* Why project links (symbolic links, junctions) cannot be made here, or NULL when they
 * can: Wine 8 has no junctions. */
const char *testenv_links_unavailable(void);

#endif
