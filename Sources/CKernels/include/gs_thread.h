#ifndef GPUSTYLE_THREAD_H
#define GPUSTYLE_THREAD_H

/// Sets the calling thread's nice value (Linux schedules threads individually, and Swift cannot
/// call syscall(SYS_gettid)). Returns 0, or -1 when the system refused (priority stays as it was).
int gs_set_thread_nice(int nice);
#endif
