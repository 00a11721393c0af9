/*
 * Reading an INI file, the dialect cdm's configuration is written in (Python configparser's
 * shape, as inih reads it; inih is built for cdm by subprojects/packagefiles/inih):
 *
 *   [section]
 *   name = value        ; a comment
 *       more value      # an indented line continues the value above: one more value
 *   ; a comment line, # too
 *
 * A comment after a value starts at a ';' or '#' that follows a space or a tab (so
 * "a#b" keeps its '#'). "name: value" is the same as "name = value". Lines may be of any
 * length up to INIFILE_MAX_LINE (a Windows long path is 32,767 characters); a UTF-8 byte
 * order mark at the start is skipped.
 */
#ifndef CDM_INIFILE_H
#define CDM_INIFILE_H

#include <stdbool.h>
#include <stdio.h>

#define INIFILE_MAX_LINE (1u << 20)

/* Called for each value, continuation lines one by one; line is the value's line number.
 * 0 goes on; a positive return stops the reading and is returned by inifile_read. */
typedef int (*inifile_fn)(void *arg, const char *section, const char *name, const char *value,
                          int line);

/* Read f to its end. Returns 0, fn's positive return, or -1 with *bad_line set to the first
 * line that is not a section, a value, a continuation, a comment or blank (or is longer
 * than INIFILE_MAX_LINE), or -2 when f cannot be read. */
int inifile_read(FILE *f, inifile_fn fn, void *arg, int *bad_line);

#endif
