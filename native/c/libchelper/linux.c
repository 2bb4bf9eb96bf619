/*
 * The small Linux helpers the image calls through libchelper (com.oracle.svm.core.LibCHelper,
 * CodeSynchronizationOperations, posix.linux.LinuxLibCHelper): each is a thin wrapper the builder's Java side
 * cannot express itself (a libc global, a syscall without a glibc wrapper on older systems, a /proc parse).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

/* The process environment as libc keeps it (System.getenv reads it). */
char **getEnviron(void) {
    return environ;
}

/* Runtime-compiled code needs no instruction-cache flush on x86; other architectures do. */
void codeSynchronization_clearCache(long codeStart, long codeSize) {
    __builtin___clear_cache((char *) codeStart, (char *) (codeStart + codeSize));
}

/* The kernel's id of the calling thread (what /proc/self/task/<tid> names). */
int getThreadId(void) {
    return (int) syscall(SYS_gettid);
}

/*
 * User CPU time of a thread in nanoseconds, or -1: Linux has no clock for user time alone, so the utime field of
 * /proc/self/task/<tid>/stat (clock ticks) is read, as HotSpot's slow_thread_cpu_time does. The thread name
 * (field 2) may hold spaces and parentheses: parsing starts after its last ')'.
 */
long getThreadUserTimeSlow(int tid) {
    char path[64], buf[2048];
    snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return -1;
    }
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    unsigned long utime;
    /* After ")": state(3) ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime(14). */
    if (p == NULL || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu", &utime) != 1) {
        return -1;
    }
    long ticks = sysconf(_SC_CLK_TCK);
    return (long) (utime * (1000000000L / ticks));
}

/*
 * mremap with its optional fifth argument always given (glibc declares it variadic, which the C interface cannot
 * call): the image maps its heap this way; (void *) -1 and errno on failure, as the caller expects.
 */
void *mremapP(void *oldAddress, size_t oldSize, size_t newSize, int flags, void *newAddress) {
    return mremap(oldAddress, oldSize, newSize, flags, newAddress);
}
