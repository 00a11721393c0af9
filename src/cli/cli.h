/* The front end: what main.c and every cmd_*.c share. Only these files print. */
#ifndef CDM_CLI_H
#define CDM_CLI_H

#include "cdm.h"
#include "json.h"

#include <stdbool.h>

enum cli_exit { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

struct cli {
    const char *root;
    const char *config;
    bool json;
    bool quiet;
    bool verbose;
    cdm_ctx *ctx; /* opened by cli_ctx */
    const struct cli_command *command;
};

struct cli_command {
    const char *name;
    int (*run)(struct cli *cli, int argc, char **argv);
    const char *summary;
    const char *usage; /* the arguments after the name */
    const char *help;  /* options and details, one per line */
};

/* main.c: the whole program, from argv in UTF-8. */
int cli_main(int argc, char **argv);
/* cli_posix.c / cli_win32.c: the real entry point and the terminal. */
bool cli_stderr_is_terminal(void);
/* The time now, for progress rates (timespec_get is missing from Windows' msvcrt). */
struct timespec;
void cli_now(struct timespec *now);

/* The command table (main.c). */
extern const struct cli_command cli_commands[];

/* Open the core's context once; prints the error and returns NULL on failure. */
cdm_ctx *cli_ctx(struct cli *cli);
/* Print the context's error ("cdm: ...") and return the exit code it calls for. */
int cli_fail(struct cli *cli);
/* Print a usage error for the current command and return EXIT_USAGE. */
int cli_usage_error(struct cli *cli, const char *fmt, ...);
/* A message on stderr unless --quiet. */
void cli_info(struct cli *cli, const char *fmt, ...);

/* Options of one command. value is set for options taking one; flag for the others. */
struct cli_option {
    const char *name; /* "--cuda" */
    const char **value;
    bool *flag;
};
/* Parse argv (after the command name) into options and positionals; at most max_pos
 * positionals, at least min_pos. Returns EXIT_OK or a usage error already printed. */
int cli_parse(struct cli *cli, int argc, char **argv, const struct cli_option *options,
              const char **positionals, int min_pos, int max_pos);
/* cli_parse, then cli_ctx: what most commands do first. Returns EXIT_OK with *ctx set, or
 * the exit code of the usage error or the failure already printed. */
int cli_start(struct cli *cli, int argc, char **argv, const struct cli_option *options,
              const char **positionals, int min_pos, int max_pos, cdm_ctx **ctx);
/* Parse a --cuda value (empty: 0). */
int cli_parse_cuda(struct cli *cli, const char *text, int *cuda);

void cli_json_install(struct json *j, const struct cdm_install_info *in);
void cli_format_time(long long t, char *out, size_t size);

int cmd_install(struct cli *cli, int argc, char **argv);
int cmd_list(struct cli *cli, int argc, char **argv);
int cmd_remove(struct cli *cli, int argc, char **argv);
int cmd_gc(struct cli *cli, int argc, char **argv);
int cmd_help(struct cli *cli, int argc, char **argv);
int cmd_activate(struct cli *cli, int argc, char **argv);
int cmd_deactivate(struct cli *cli, int argc, char **argv);
int cmd_hook(struct cli *cli, int argc, char **argv);
int cmd_complete(struct cli *cli, int argc, char **argv);

/* cmd_activate.c: shared by activate, deactivate and hook. */
struct shell;
struct env_plan;
/* --shell, else $CDM_SHELL, else the parent process (Windows), else $SHELL. */
int cli_choose_shell(struct cli *cli, const char *given, const struct shell **out);
/* Render plan for sh on stdout; fails (printing why) when sh cannot express a value. */
int cli_print_plan(struct cli *cli, const struct shell *sh, const struct env_plan *plan);

/* cli_link.c: a project's link, as which, link, unlink and rollback report it. */
void cli_json_which(struct json *j, const struct cdm_which_info *w);
void cli_warn_which(struct cli *cli, const struct cdm_which_info *w);
void cli_print_which(struct cli *cli, const struct cdm_which_info *w);
/* done: "linked", "unlinked", "rolled back" */
void cli_print_change(struct cli *cli, const struct cdm_link_result *r, const char *done);

int cmd_link(struct cli *cli, int argc, char **argv);
int cmd_unlink(struct cli *cli, int argc, char **argv);
int cmd_which(struct cli *cli, int argc, char **argv);
int cmd_history(struct cli *cli, int argc, char **argv);
int cmd_rollback(struct cli *cli, int argc, char **argv);
int cmd_doctor(struct cli *cli, int argc, char **argv);
int cmd_verify(struct cli *cli, int argc, char **argv);

#endif
