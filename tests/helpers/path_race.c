/* A hostile card command for suite_verify: one thread opens a path for writing again and again
 * while another rewrites the path buffer between "/dev/null" and a real file, so that what the
 * watch reads and what the kernel opens may differ.  argv[1]: the real file (at most 15 bytes
 * shorter than a page).  Exit 0. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char buf[4096];
static const char *target;
static atomic_int stop_flag;

static void *flip(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop_flag)) {
        strcpy(buf, "/dev/null");
        for (volatile int i = 0; i < 200; i++)
            ;
        strcpy(buf, target);
        for (volatile int i = 0; i < 200; i++)
            ;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 2 || strlen(argv[1]) >= sizeof buf - 16)
        return 2;
    target = argv[1];
    strcpy(buf, "/dev/null");
    pthread_t t;
    pthread_create(&t, NULL, flip, NULL);
    for (int i = 0; i < 10000; i++) {
        int fd = open(buf, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd >= 0) {
            (void)!write(fd, "raced\n", 6);
            close(fd);
        }
    }
    atomic_store(&stop_flag, 1);
    pthread_join(t, NULL);
    return 0;
}
