/* A hostile card command for suite_verify: one thread rewrites the path buffer between a named
 * program (argv[1]) and this helper itself while the main thread calls execve on it, so that
 * what the watch checks and what the kernel runs may differ.  Run as this helper ("evil" in
 * argv[1]), it prints EVIL-RAN (built at run time: the text is not in the binary) and exits
 * without any other watched call: the watch must look at what ran when it ends.  Exit 0. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char buf[4096];
static const char *named, *self;

static void *flip(void *arg)
{
    (void)arg;
    for (;;) {
        strcpy(buf, named);
        for (volatile int i = 0; i < 300; i++)
            ;
        strcpy(buf, self);
        for (volatile int i = 0; i < 300; i++)
            ;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "evil")) {
        printf("%s-%s\n", "EVIL", "RAN");
        fflush(stdout);
        return 0;
    }
    if (argc != 3 || strlen(argv[1]) >= 256 || strlen(argv[2]) >= 256)
        return 2;
    named = argv[1];
    self = argv[2];
    strcpy(buf, named);
    pthread_t t;
    pthread_create(&t, NULL, flip, NULL);
    usleep(1000);
    char a0[] = "x", a1[] = "evil";
    char *av[] = {a0, a1, NULL};
    extern char **environ;
    execve(buf, av, environ);
    return 1;
}
