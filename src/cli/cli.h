/* The front end: what main.c and every cmd_*.c share. Only these files print. */
#ifndef CDM_CLI_H
#define CDM_CLI_H

#include "cdm.h"
#include "json.h"
#include "text.h"
#include "base/util.h"

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

enum cli_exit { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_INTERRUPTED = 130 };

/* The progress line (common.c): the engine's progress callback gets the struct cli. */
struct cli_progress {
    struct timespec start, last;
    uint64_t first, last_done; /* bytes at the phase's start (a resumed download's) */
    bool shown, line_open;
    bool finished; /* this phase's final line is out: later calls at 100% print nothing */
};

struct cli {
    const char *root;
    const char *config;
    bool json;
    bool quiet;
    bool verbose;
    cdm_ctx *ctx;       /* opened by cli_ctx */
    char *command_line; /* "cdm install x.zip", shown to a cdm waiting for the store's lock */
    const struct cli_command *command;
    /* The command table (main.c), NULL-terminated, in the order a user meets the commands:
     * help and complete, below it, reach it only through here. */
    const struct cli_command *const *commands;
    struct cli_progress progress;
};

/*
 * Options, declared once per command as rows of a table (git's parse-options rows). The
 * parser, `cdm help`, the overview and `cdm complete` are all generated from the rows, and
 * a man page generator can be: a command's whole interface is data.
 */
enum cli_option_kind {
    CLI_FLAG,  /* --force */
    CLI_VALUE, /* --name NAME or --name=NAME */
    CLI_INT,   /* --to GEN: a whole number in [min, max] */
};

/* What `cdm complete` offers for an option's value or a positional argument. */
enum cli_complete {
    CLI_COMPLETE_NONE,        /* free text: nothing to offer */
    CLI_COMPLETE_FILES,       /* file names: left to the shell (an empty answer) */
    CLI_COMPLETE_DIRS,        /* folders: left to the shell as file names, for now */
    CLI_COMPLETE_INSTALLS,    /* the install ids in the store's index */
    CLI_COMPLETE_GENERATIONS, /* the generation numbers of the line's project (or the
                               * nearest), but the current one */
    CLI_COMPLETE_SHELLS,      /* the shells activation writes for */
    CLI_COMPLETE_COMMANDS,    /* cdm's commands */
    CLI_COMPLETE_CHOICES,     /* the '|'-separated words of the value or argument name */
    CLI_COMPLETE_TOOLKITS,    /* the CUDA toolkits found, as X.Y, and "none" */
};

struct cli_option {
    const char *name;       /* the long name without "--": "cuda"; NULL ends a table */
    char short_name;        /* 'q' for -q; 0 for none */
    const char *value_name; /* "N", "HEX"; NULL for a flag */
    enum cli_option_kind kind;
    enum cli_complete complete;
    const char *help;    /* one line, lower case, no full stop; wrapped when printed */
    long long min, max;  /* CLI_INT: the range accepted */
    const char *expects; /* CLI_INT: what the value should be, for the error message */
    bool not_in_usage;   /* listed with the options, left out of the usage line */
    bool required;       /* the command cannot run without it: a usage error when absent */
};

#define CLI_OPT_FLAG(name, help)                                                                   \
    {                                                                                              \
        name, 0, NULL, CLI_FLAG, CLI_COMPLETE_NONE, help, 0, 0, NULL, false, false                 \
    }
#define CLI_OPT_VALUE(name, value_name, complete, help)                                            \
    {                                                                                              \
        name, 0, value_name, CLI_VALUE, complete, help, 0, 0, NULL, false, false                   \
    }
#define CLI_OPT_INT(name, value_name, complete, min, max, expects, help)                           \
    {                                                                                              \
        name, 0, value_name, CLI_INT, complete, help, min, max, expects, false, false              \
    }
#define CLI_OPT_END                                                                                \
    {                                                                                              \
        NULL, 0, NULL, CLI_FLAG, CLI_COMPLETE_NONE, NULL, 0, 0, NULL, false, false                 \
    }
/* --cuda N: five commands choose a build variant the same way. */
#define CLI_OPT_CUDA                                                                               \
    CLI_OPT_INT("cuda", "N", CLI_COMPLETE_NONE, 1, 99, "a CUDA major version such as 12",          \
                "the CUDA major of the build variant, when several match")

enum cli_arg_kind {
    CLI_ARG_REQUIRED, /* <NAME> */
    CLI_ARG_OPTIONAL, /* [NAME] */
    CLI_ARG_REST,     /* -- [NAME...]: every word after "--", options included */
};

/* A positional argument, in the order the command takes them. */
struct cli_arg {
    const char *name; /* "PROJECT", "ARCHIVE|VERSION"; NULL ends a table */
    enum cli_arg_kind kind;
    enum cli_complete complete;
};

#define CLI_ARG_END                                                                                \
    {                                                                                              \
        NULL, CLI_ARG_REQUIRED, CLI_COMPLETE_NONE                                                  \
    }
/* --shell SHELL: activate and deactivate. */
#define CLI_OPT_SHELL                                                                              \
    CLI_OPT_VALUE("shell", "SHELL", CLI_COMPLETE_SHELLS,                                           \
                  "pwsh powershell cmd bash zsh fish sh (default: $CDM_SHELL, the parent "         \
                  "process on Windows, else $SHELL)")

#define CLI_MAX_OPTIONS 12
#define CLI_MAX_ARGS    4

/* A command line parsed against a command's rows: options by their row's index. */
struct cli_args {
    bool given[CLI_MAX_OPTIONS];
    const char *value[CLI_MAX_OPTIONS]; /* CLI_VALUE, CLI_INT: as written; NULL when absent */
    long long number[CLI_MAX_OPTIONS];  /* CLI_INT: the value; 0 when absent */
    const char *pos[CLI_MAX_ARGS];      /* positionals; NULL when absent */
    char **rest;                        /* CLI_ARG_REST: the words after "--" */
    int nrest;
};

/*
 * What a command needs opened before it runs, as git's RUN_SETUP | NEED_WORK_TREE or
 * apk-tools' .open_flags: the dispatcher (main.c) opens it once, in this mode, and hands the
 * context to the command. The engine's calls still open what they need themselves (and
 * settle the interrupted work they touch); a row that names the store makes that open the
 * first thing the command does, and one that names only the context leaves the store to
 * the engine call, which opens it in its own order (after a download, a look at the
 * project, a check of its arguments).
 */
enum cli_needs {
    CLI_NEEDS_NOTHING,     /* no context (NULL): help, deactivate, the hooks' text */
    CLI_NEEDS_CONTEXT,     /* the configuration read, the store root settled */
    CLI_NEEDS_STORE_READ,  /* and the store's index, for reading */
    CLI_NEEDS_STATE,       /* and the user's state for writing, under its lock */
    CLI_NEEDS_STORE_WRITE, /* and the store for writing: its lock, then the state's */
};

struct cli_command {
    const char *name;
    enum cli_needs needs;
    /* Optional: the arguments checked before anything is opened (a usage error needs no
     * configuration and creates no store); EXIT_OK or a usage error already printed. */
    int (*check)(struct cli *cli, const struct cli_args *args);
    /* ctx: opened as needs says; NULL for CLI_NEEDS_NOTHING. */
    int (*run)(struct cli *cli, cdm_ctx *ctx, const struct cli_args *args);
    const char *summary;              /* one line, lower case: the overview lists it */
    const struct cli_arg *args;       /* NULL: none */
    const struct cli_option *options; /* NULL: none */
    const char *description;          /* for `cdm help CMD`: one paragraph a line, wrapped
                                       * when printed; a line indented by a space is an
                                       * example, printed as written */
};

/* The options every command takes, taken out of argv before the command's own (help.c). */
extern const struct cli_option cli_global_options[];
enum cli_global {
    CLI_GLOBAL_ROOT,
    CLI_GLOBAL_CONFIG,
    CLI_GLOBAL_JSON,
    CLI_GLOBAL_QUIET,
    CLI_GLOBAL_VERBOSE,
    CLI_GLOBAL_VERSION,
    CLI_GLOBAL_HELP,
};
/* The row of commands (struct cli's table) named name, NULL when none is (help.c). */
const struct cli_command *cli_find_command(const struct cli_command *const *commands,
                                           const char *name);

/* options.c: the parser. Parse argv (after the command name) against cmd's rows into
 * *out. Returns EXIT_OK or a usage error already printed. */
int cli_parse(struct cli *cli, const struct cli_command *cmd, int argc, char **argv,
              struct cli_args *out);
/* Take the rows of options (the global ones) out of argv, wherever they stand before
 * "--"; the rest stays in order. Returns EXIT_OK or a usage error already printed. */
int cli_take_options(struct cli *cli, const struct cli_option *options, int *argc, char **argv,
                     struct cli_args *out);
/* The row arg names ("--name", "--name=VALUE" or "-s"), NULL when none does. */
const struct cli_option *cli_match_option(const struct cli_option *options, const char *arg);

/* help.c: text generated from the rows; commands is the table (struct cli's). */
void cli_print_overview(FILE *out, const struct cli_command *const *commands);
void cli_print_command_help(FILE *out, const struct cli_command *c);
void cli_print_usage(FILE *out, const struct cli_command *c);
/* The man page cdm(1) in scdoc(5) markup: the same rows in another layout. */
void cli_print_man(FILE *out, const struct cli_command *const *commands);
/* Print a usage error for the current command and return EXIT_USAGE. */
int cli_usage_error(struct cli *cli, const char *fmt, ...) CDM_PRINTF(2, 3);

/* main.c: the whole program, from argv in UTF-8. */
int cli_main(int argc, char **argv);
/* main_posix.c / main_win32.c: the real entry point. */
/* term_posix.c / term_win32.c: the terminal, the clock and interrupts, below every command. */
bool cli_stderr_is_terminal(void);
bool cli_stdout_is_terminal(void);
/* Ctrl-C and SIGTERM (Windows: Ctrl-C, Ctrl-Break, closing the console) from now on ask
 * ctx's operation to stop (cdm_interrupt) instead of killing cdm, so that it removes its
 * own unfinished files; a second one kills as usual. For long writers (install). */
void cli_catch_interrupts(cdm_ctx *ctx);
/* The time now, for progress rates (timespec_get is missing from Windows' msvcrt). */
void cli_now(struct timespec *now);

/* common.c: what every command uses. */
/* Open the core's context once; prints the error and returns NULL on failure. */
cdm_ctx *cli_ctx(struct cli *cli);
/* The context and the store as c's row needs them (NULL in *ctx for CLI_NEEDS_NOTHING);
 * prints the error and returns the exit code on failure. */
int cli_open(struct cli *cli, const struct cli_command *c, cdm_ctx **ctx);
/* Print the context's error ("cdm: ...") and return the exit code it calls for. */
int cli_fail(struct cli *cli);
/* A message on stderr unless --quiet. */
void cli_info(struct cli *cli, const char *fmt, ...) CDM_PRINTF(2, 3);

void cli_json_install(struct json *j, const struct cdm_install_info *in);
void cli_format_time(long long t, char *out, size_t size);
/* "a,b,c" (NULL: none) split in place into at most max words, empty ones dropped; how many. */
size_t cli_split_commas(char *list, const char **words, size_t max);

/* cmd_activate.c: shared by activate, deactivate and hook. */
/* The code page cmd decodes a program's output and its batch files with: the console's
 * as the shell had it when cdm started (chcp; remembered by main_win32.c first thing,
 * before cdm changes it), else the system's OEM code page (what cmd uses without a
 * console). Windows only (term_win32.c). */
void cli_remember_shell_code_page(void);
unsigned cli_shell_code_page(void);
/* text (UTF-8) as cmd must read it: in cli_shell_code_page's code page on Windows, as it
 * is elsewhere. NULL when a character of it has no place in that code page: *bad then
 * points at that character in text, and *code_page names the code page. malloc'd. */
char *cli_text_for_cmd(const char *text, unsigned *code_page, const char **bad);

/* --shell, else $CDM_SHELL, else the parent process (Windows), else $SHELL. */
int cli_choose_shell(struct cli *cli, const char *given, const cdm_shell **out);
/* Render plan for sh on stdout; fails (printing why) when sh cannot express a value. */
int cli_print_plan(struct cli *cli, const cdm_shell *sh, const struct cdm_env_plan *plan);

/* cli_link.c: a project's link, as which, link, unlink and rollback report it. */
void cli_json_which(struct json *j, const struct cdm_which_info *w);
void cli_warn_which(struct cli *cli, const struct cdm_which_info *w);
void cli_print_which(struct cli *cli, const struct cdm_which_info *w);
/* done: "linked", "unlinked", "rolled back" */
void cli_print_change(struct cli *cli, const struct cdm_link_result *r, const char *done);
/* The one line a choice made by 'auto' is told in (cmd_resolve.c). */
void cli_print_choice_line(struct cli *cli, const struct cdm_choice *ch);

/* One per command, each in its cmd_*.c. */
extern const struct cli_command cli_cmd_install, cli_cmd_available, cli_cmd_fetch, cli_cmd_list,
    cli_cmd_remove, cli_cmd_link, cli_cmd_unlink, cli_cmd_which, cli_cmd_history, cli_cmd_rollback,
    cli_cmd_activate, cli_cmd_deactivate, cli_cmd_hook, cli_cmd_doctor, cli_cmd_verify, cli_cmd_gc,
    cli_cmd_complete, cli_cmd_help, cli_cmd_attach, cli_cmd_detach, cli_cmd_exec, cli_cmd_kernel,
    cli_cmd_modulefiles, cli_cmd_lock;
extern const struct cli_command cli_cmd_toolkits;
extern const struct cli_command cli_cmd_scan;
extern const struct cli_command cli_cmd_resolve;
extern const struct cli_command cli_cmd_store;
extern const struct cli_command cli_cmd_default;
extern const struct cli_command cli_cmd_deploy;
extern const struct cli_command cli_cmd_sbom;
extern const struct cli_command cli_cmd_bundle;
extern const struct cli_command cli_cmd_push;

#endif
