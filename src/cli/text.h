/*
 * Untrusted text on its way out. Names come from archives, configuration files, pin files
 * and the file system, and any of them may hold control characters or bytes that are not
 * UTF-8. Everything the front end writes for people goes through cli_eprintf/cli_printf
 * (and the JSON writer through text_utf8), so no escape sequence, bell or forged line
 * reaches a terminal, and JSON stays valid UTF-8.
 */
#ifndef CDM_CLI_TEXT_H
#define CDM_CLI_TEXT_H

#include "base/util.h"

#include <stdio.h>

/* Append s to out with C0 controls (but a tab), DEL and C1 controls (U+0080-U+009F) shown
 * as \xHH or \u00HH, and each byte that is not part of valid UTF-8 as \xHH. */
void text_escape(struct strbuf *out, const char *s);

/* Append s to out as valid UTF-8: each byte that is not part of a valid sequence becomes
 * U+FFFD. Returns false when one had to be replaced. */
bool text_utf8(struct strbuf *out, const char *s);

/* printf for messages (stderr) and for text meant to be read (stdout; not for shell code
 * that is evaluated): the text is escaped as text_escape says, but a final line break. */
void cli_eprintf(const char *fmt, ...) CDM_PRINTF(1, 2);
void cli_printf(const char *fmt, ...) CDM_PRINTF(1, 2);
void cli_vfprintf(FILE *out, const char *fmt, va_list ap);

#endif
