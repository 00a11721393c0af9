/*
 * A name a user gives that becomes a path (a project's link name, a Jupyter kernel's name):
 * one plain component of a path, the same on every system a store may be shared with, so
 * that it can never name a folder above or beside the one it is put in.
 */
#ifndef CDM_NAME_H
#define CDM_NAME_H

/* NULL when name is one plain component: not empty, not '.' or '..', no path separator, no
 * character Windows refuses, no trailing dot or space, no Windows device name, at most 255
 * bytes; else why not, for a message. */
const char *name_component_problem(const char *name);

#endif
