/* swarmcast-freeze-thread TID SECONDS: stops one thread of another process
 * (and only that one) for SECONDS, then lets it go on.
 *
 * The integration tests use it to freeze the server's simulation thread while
 * its network thread keeps serving, which is what a step that never returns
 * looks like from outside: /healthz must then answer 503. A signal cannot do
 * this (SIGSTOP stops every thread of a process); ptrace's SEIZE + INTERRUPT
 * stops exactly the thread it names.
 *
 * Prints "frozen" once the thread is stopped and "thawed" when it runs again.
 * Exit codes: 0 done, 2 bad arguments, 77 ptrace not permitted here (the test
 * then skips), 1 anything else. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>

static int fail(const char *what)
{
    fprintf(stderr, "swarmcast-freeze-thread: %s: %s\n", what, strerror(errno));
    return errno == EPERM || errno == EACCES ? 77 : 1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: swarmcast-freeze-thread TID SECONDS\n");
        return 2;
    }
    char *end = NULL;
    long tid = strtol(argv[1], &end, 10);
    if (*end || tid <= 0) return 2;
    double seconds = strtod(argv[2], &end);
    if (*end || seconds < 0 || seconds > 600) return 2;

    if (ptrace(PTRACE_SEIZE, (pid_t)tid, NULL, NULL) != 0) return fail("PTRACE_SEIZE");
    if (ptrace(PTRACE_INTERRUPT, (pid_t)tid, NULL, NULL) != 0) return fail("PTRACE_INTERRUPT");
    int status = 0;
    if (waitpid((pid_t)tid, &status, __WALL) != (pid_t)tid) return fail("waitpid");
    printf("frozen\n");
    fflush(stdout);

    struct timespec t = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {
    }
    /* Detaching resumes the thread (a group-stop it caught meanwhile would
     * be passed on; none is expected). */
    if (ptrace(PTRACE_DETACH, (pid_t)tid, NULL, NULL) != 0) return fail("PTRACE_DETACH");
    printf("thawed\n");
    return 0;
}
