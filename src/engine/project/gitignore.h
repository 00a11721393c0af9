/*
 * Whether git would ignore a project's link, read from the .gitignore files themselves
 * rather than by running git (which may be absent, and a prompt-time tool should not
 * spawn): enough of gitignore(5) for the lines people write for one name.
 */
#ifndef CDM_GITIGNORE_H
#define CDM_GITIGNORE_H

#include <stdbool.h>

/* The git work tree holding dir (the nearest folder upwards with a .git folder or file),
 * malloc'd; NULL when dir is in none. */
char *git_worktree_of(const char *dir);

/*
 * Whether the entry name in folder dir, inside work tree top, is ignored by top's
 * .git/info/exclude and the .gitignore files from top down to dir: blank lines and '#',
 * '!' negation, the last match winning, a pattern with a '/' anchored to its file's
 * folder, '*', '?', '[...]' and '**'. An entry in an ignored folder is ignored. A pattern
 * ending in '/' matches folders only: git sees a symbolic link as a file, so such a line
 * does not ignore the link. Not read: core.excludesFile and the global ignore file.
 */
bool gitignore_ignores(const char *top, const char *dir, const char *name);

/* A glob of gitignore(5) against text: '*' and '?' stop at '/', '**' does not. */
bool gitignore_match(const char *pattern, const char *text);

#endif
