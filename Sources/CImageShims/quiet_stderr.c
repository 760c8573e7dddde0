#include "quiet_stderr.h"

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int depth;
static int saved = -1;         // the real stderr while redirected
static int close_at_end;       // stderr was closed: /dev/null landed on fd 2 and is closed again

void gps_quiet_stderr_begin(void) {
    pthread_mutex_lock(&lock);
    if (depth++ == 0) {
        int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (null == STDERR_FILENO) {
            close_at_end = 1;
        } else if (null >= 0) {
            saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
            if (saved >= 0 && dup2(null, STDERR_FILENO) < 0) {
                close(saved);
                saved = -1;
            }
            close(null);
        }
    }
    pthread_mutex_unlock(&lock);
}

void gps_quiet_stderr_end(void) {
    pthread_mutex_lock(&lock);
    if (depth > 0 && --depth == 0) {
        if (saved >= 0) {
            dup2(saved, STDERR_FILENO);
            close(saved);
            saved = -1;
        }
        if (close_at_end) close(STDERR_FILENO);
        close_at_end = 0;
    }
    pthread_mutex_unlock(&lock);
}
