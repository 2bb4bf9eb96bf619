/*
 * libsvm_container.a: the image's view of its cgroup (com.oracle.svm.core.container.ContainerLibrary, Container):
 * Runtime.availableProcessors() and the heap sizing follow the CPU quota and memory limit of the cgroup the process
 * runs in, as HotSpot's do. GraalVM's own library is HotSpot's cgroup code compiled as C++; this one reads cgroup v2
 * (the unified hierarchy every current distribution and Kubernetes node uses) and nothing else: on a cgroup v1 host
 * the image reports itself not containerized and uses the host's CPUs and memory.
 *
 * A limit counts wherever it is set on the way from the process's cgroup up to the root of the mounted hierarchy
 * (a pod's limit is often on a parent), the lowest one wins. "Containerized" means such a CPU or memory limit exists.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpus.h"

/* ContainerLibrary.VERSION of the builder this was written for (svm 25.0.2). */
#define SVM_CONTAINER_VERSION 240100
enum { NOT_CONTAINERIZED = 0, CONTAINERIZED = 1, TOO_OLD = 2, TOO_NEW = 3 };

static const char *root = "/sys/fs/cgroup";
static const char *self_cgroup = "/proc/self/cgroup";
/* Paths are the root, the cgroup and a file name: room for both plus the name, so no path is cut short. */
#define PATH_BUF (3 * PATH_MAX)
static char cgroup[PATH_MAX + 8]; /* the process's cgroup, relative to root ("" for the root itself) */

/* Where the hierarchy and the process's membership are read from: a test points both at files of its own. */
void svm_container_set_paths(const char *cgroup_root, const char *proc_self_cgroup) {
    root = cgroup_root;
    self_cgroup = proc_self_cgroup;
}

static int read_line(const char *dir, const char *file, char *buf, size_t size) {
    char path[PATH_BUF];
    snprintf(path, sizeof(path), "%s%s/%s", root, dir, file);
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return 0;
    }
    char *line = fgets(buf, (int) size, f);
    fclose(f);
    return line != NULL;
}

/* Calls visit for the process's cgroup and each parent up to the root; stops early when visit returns nonzero. */
static void walk_up(int (*visit)(const char *dir, void *arg), void *arg) {
    char dir[PATH_BUF];
    snprintf(dir, sizeof(dir), "%s", cgroup);
    for (;;) {
        if (visit(dir, arg)) {
            return;
        }
        char *slash = strrchr(dir, '/');
        if (slash == NULL) {
            return;
        }
        *slash = '\0';
    }
}

/* cpu.max is "max 100000" or "<quota> <period>": the CPUs the quota buys, rounded up, lowest on the path. */
static int visit_cpu(const char *dir, void *arg) {
    char line[128], quota[32];
    long period;
    long *cpus = arg;
    if (read_line(dir, "cpu.max", line, sizeof(line)) && sscanf(line, "%31s %ld", quota, &period) == 2
            && strcmp(quota, "max") != 0 && period > 0) {
        long limit = (atol(quota) + period - 1) / period;
        if (*cpus < 0 || limit < *cpus) {
            *cpus = limit;
        }
    }
    return 0;
}

struct limit { const char *file; long long value; };

/* A memory file holding "max" or a byte count: the lowest count on the path, -1 for none. */
static int visit_limit(const char *dir, void *arg) {
    struct limit *limit = arg;
    char line[64];
    if (read_line(dir, limit->file, line, sizeof(line)) && strncmp(line, "max", 3) != 0) {
        long long value = atoll(line);
        if (limit->value < 0 || value < limit->value) {
            limit->value = value;
        }
    }
    return 0;
}

static long long lowest(const char *file) {
    struct limit limit = {file, -1};
    walk_up(visit_limit, &limit);
    return limit.value;
}

/* A value of the process's own cgroup (usage figures are not inherited): -1 when the file is missing. */
static long long own_value(const char *file) {
    char line[64];
    return read_line(cgroup, file, line, sizeof(line)) ? atoll(line) : -1;
}

/* A "key value" line of memory.stat, -1 when missing. */
static long long stat_value(const char *key) {
    char path[PATH_BUF], name[64];
    long long value;
    snprintf(path, sizeof(path), "%s%s/memory.stat", root, cgroup);
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return -1;
    }
    while (fscanf(f, "%63s %lld", name, &value) == 2) {
        if (strcmp(name, key) == 0) {
            fclose(f);
            return value;
        }
    }
    fclose(f);
    return -1;
}

static long cpu_limit(void) {
    long cpus = -1;
    walk_up(visit_cpu, &cpus);
    return cpus;
}

int svm_container_initialize(int version) {
    if (version < SVM_CONTAINER_VERSION) {
        return TOO_NEW;
    }
    if (version > SVM_CONTAINER_VERSION) {
        return TOO_OLD;
    }
    /* cgroup v2 only: its single line "0::<path>" in /proc/self/cgroup, and cgroup.controllers at the root. */
    char line[PATH_MAX + 8], controllers[16];
    cgroup[0] = '\0';
    FILE *f = fopen(self_cgroup, "r");
    int unified = 0;
    if (f != NULL) {
        while (fgets(line, sizeof(line), f) != NULL) {
            if (strncmp(line, "0::", 3) == 0) {
                line[strcspn(line, "\n")] = '\0';
                snprintf(cgroup, sizeof(cgroup), "%s", strcmp(line + 3, "/") == 0 ? "" : line + 3);
                unified = 1;
            }
        }
        fclose(f);
    }
    if (!unified || !read_line("", "cgroup.controllers", controllers, sizeof(controllers))) {
        return NOT_CONTAINERIZED;
    }
    /* In a container with its own cgroup namespace the path reads "/" or is not below the mount: use the root. */
    char probe[PATH_BUF];
    snprintf(probe, sizeof(probe), "%s%s", root, cgroup);
    if (access(probe, F_OK) != 0) {
        cgroup[0] = '\0';
    }
    return cpu_limit() > 0 || lowest("memory.max") >= 0 ? CONTAINERIZED : NOT_CONTAINERIZED;
}

unsigned long svm_container_physical_memory(void) {
    long long host = (long long) sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);
    long long limit = lowest("memory.max");
    return (unsigned long) (limit >= 0 && limit < host ? limit : host);
}

long svm_container_memory_limit_in_bytes(void) {
    return lowest("memory.max");
}

long svm_container_memory_and_swap_limit_in_bytes(void) {
    long long memory = lowest("memory.max"), swap = lowest("memory.swap.max");
    return memory < 0 || swap < 0 ? -1 : memory + swap;
}

long svm_container_memory_soft_limit_in_bytes(void) {
    long long low = own_value("memory.low");
    return low > 0 ? low : -1;
}

long svm_container_memory_usage_in_bytes(void) {
    return own_value("memory.current");
}

long svm_container_memory_max_usage_in_bytes(void) {
    return own_value("memory.peak");
}

long svm_container_rss_usage_in_bytes(void) {
    return stat_value("anon");
}

long svm_container_cache_usage_in_bytes(void) {
    return stat_value("file");
}

/* The CPUs the process may use: its affinity, capped by the cgroup's CPU quota. */
int svm_container_active_processor_count(void) {
    int cpus = affinity_cpu_count();
    long limit = cpu_limit();
    return limit > 0 && limit < cpus ? (int) limit : cpus;
}
