/*
 * The CPUs this process may run on (its affinity mask), as HotSpot counts them before any container limit: shared
 * by libjvm (JVM_ActiveProcessorCount) and libsvm_container (which caps it by the cgroup's quota), two archives
 * that must not depend on each other's link order.
 */
#ifndef NATIVE_C_CPUS_H
#define NATIVE_C_CPUS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity; includers define it before their first system header */
#endif

#include <sched.h>
#include <unistd.h>

static inline int affinity_cpu_count(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) {
        return CPU_COUNT(&set);
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int) online : 1;
}

#endif
