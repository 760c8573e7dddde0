#define _GNU_SOURCE
#include "gs_thread.h"
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

int gs_set_thread_nice(int nice) {
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice);
}
