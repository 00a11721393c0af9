/*
 * A program for the trace tests: it loads libraries by name and by path, and starts a
 * copy of itself, as its arguments say, in order:
 *   name:LIB    dlopen(LIB) (the loader searches for it)
 *   path:FILE   dlopen(FILE)
 *   child ...   run this program with the remaining arguments and wait for it
 *   exit:N      exit with status N
 * A library that does not load is an exit with status 3.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strncmp(a, "name:", 5) || !strncmp(a, "path:", 5)) {
            if (!dlopen(a + 5, RTLD_NOW)) {
                fprintf(stderr, "trace_child: %s\n", dlerror());
                return 3;
            }
        } else if (!strcmp(a, "child")) {
            pid_t pid = fork();
            if (pid == 0) {
                argv[i] = argv[0];
                execv("/proc/self/exe", argv + i);
                _exit(127);
            }
            int status = 0;
            waitpid(pid, &status, 0);
            return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
        } else if (!strncmp(a, "exit:", 5)) {
            return atoi(a + 5);
        }
    }
    return 0;
}
