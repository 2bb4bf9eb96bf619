/*
 * The C layer's behaviour, each check against the contract the image relies on (native/c/test.sh builds the layer
 * with build.sh, links this program against it the way the image is linked, and runs it with LD_BIND_NOW=1 so that
 * every symbol the JDK libraries need from the libjvm.so shim must bind at start).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <fcntl.h>
#include <jni.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "amd64cpufeatures.h"
#include "svm_locale.h"

/* libchelper */
int getThreadId(void);
long getThreadUserTimeSlow(int tid);
void *mremapP(void *oldAddress, size_t oldSize, size_t newSize, int flags, void *newAddress);
char *SVM_FindJavaTZmd(const char *tzMappings, int length);
int cSunMiscSignal_open(void);
int cSunMiscSignal_close(void);
int cSunMiscSignal_awaitSemaphore(void);
int cSunMiscSignal_signalRangeCheck(int signal);
int cSunMiscSignal_checkPendingSignal(void);
void (*cSunMiscSignal_signalHandlerFunctionPointer(void))(int);
int openSII(const char *pathname, int flags, int mode);
int fprintfSD(FILE *stream, const char *format, const char *arg0, int arg1);
/* libsvm_container */
void svm_container_set_paths(const char *cgroup_root, const char *proc_self_cgroup);
int svm_container_initialize(int version);
unsigned long svm_container_physical_memory(void);
long svm_container_memory_limit_in_bytes(void);
long svm_container_memory_usage_in_bytes(void);
long svm_container_rss_usage_in_bytes(void);
long svm_container_cache_usage_in_bytes(void);
int svm_container_active_processor_count(void);
/* the JDK libraries through the linker scripts, and the shim */
jint JNI_OnLoad_zip(JavaVM *vm, void *reserved);
jint JNI_OnLoad_extnet(JavaVM *vm, void *reserved);
int jio_snprintf(char *str, size_t count, const char *fmt, ...);
void *JVM_RawMonitorCreate(void);
void JVM_RawMonitorDestroy(void *monitor);
jint JVM_RawMonitorEnter(void *monitor);
void JVM_RawMonitorExit(void *monitor);
jlong JVM_NanoTime(JNIEnv *env, jclass ignored);
void JVM_IHashCode(void);

static int failures;

#define CHECK(cond, ...)                                   \
    do {                                                   \
        if (!(cond)) {                                     \
            printf("FAIL %s:%d: ", __func__, __LINE__);    \
            printf(__VA_ARGS__);                           \
            printf("\n");                                  \
            failures++;                                    \
        }                                                  \
    } while (0)

/*
 * HotSpot's own reading of this CPU (java -Xlog:os+cpu, given by test.sh) is the reference: every feature of the
 * struct, in the header's order (one char each), must be set exactly when HotSpot lists it. HotSpot's names are the
 * field names in lower case, but for the few below.
 */
static const char *hotspot_name(const char *field, char *buf, size_t size) {
    static const char *renamed[][2] = {{"AMD_3DNOW_PREFETCH", "3dnowpref"}, {"SSE4_1", "sse4.1"}, {"SSE4_2", "sse4.2"},
                                       {"FLUSH", "clflush"}, {"FLUSHOPT", "clflushopt"},
                                       {"TSCINV_BIT", "tscinvbit"}};
    for (size_t i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++) {
        if (strcmp(field, renamed[i][0]) == 0) {
            return renamed[i][1];
        }
    }
    size_t i = 0;
    for (; field[i] != '\0' && i < size - 1; i++) {
        buf[i] = (char) tolower((unsigned char) field[i]);
    }
    buf[i] = '\0';
    return buf;
}

static void cpu_features_agree_with_hotspot(const char *hotspot) {
    CPUFeatures f;
    determineCPUFeatures(&f);
    char list[4096], line[256], field[64], lower[64];
    snprintf(list, sizeof(list), ", %s, ", hotspot);
    FILE *header = fopen("include/amd64cpufeatures.h", "r");
    size_t offset = 0;
    while (header != NULL && fgets(line, sizeof(line), header) != NULL) {
        if (sscanf(line, " char f%63[A-Za-z0-9_];", field) != 1) {
            continue;
        }
        char ours = ((char *) &f)[offset++];
        if (strcmp(field, "TSCINV") == 0) {
            continue; /* derived by HotSpot from vendor and family, never required by -march (cpufeatures.c) */
        }
        char word[80];
        snprintf(word, sizeof(word), ", %s, ", hotspot_name(field, lower, sizeof(lower)));
        int theirs = strstr(list, word) != NULL;
        CHECK(ours == theirs, "%s: CPUID read here %d, HotSpot %d", field, ours, theirs);
    }
    if (header != NULL) {
        fclose(header);
    }
    CHECK(offset == sizeof(CPUFeatures), "the header's fields (%zu) are the struct's bytes", offset);
}

/* The builder's mask: the build-time struct bitwise negated, padded to 64 bits with 0xff (CPUFeatureAccessImpl). */
static void negated_mask(const CPUFeatures *required, unsigned char *mask, size_t size) {
    memset(mask, 0xff, size);
    for (size_t i = 0; i < sizeof(*required); i++) {
        mask[i] = (unsigned char) ~((const unsigned char *) required)[i];
    }
}

static void cpu_check_accepts_the_host_and_refuses_a_missing_feature(void) {
    CPUFeatures host, required;
    unsigned char mask[(sizeof(CPUFeatures) + 7) / 8 * 8];
    determineCPUFeatures(&host);
    negated_mask(&host, mask, sizeof(mask));
    CHECK(checkCPUFeatures(mask) == 0, "every feature of the host itself required: accepted");
    memset(mask, 0xff, sizeof(mask));
    CHECK(checkCPUFeatures(mask) == 0, "no feature required: accepted");

    memset(&required, 0, sizeof(required));
    required.fSSE2 = 1;
    negated_mask(&required, mask, sizeof(mask));
    CHECK(checkCPUFeatures(mask) == 0, "SSE2 (every x86-64 has it) required: accepted");

    size_t missing = 0;
    while (missing < sizeof(host) && ((unsigned char *) &host)[missing] != 0) {
        missing++;
    }
    CHECK(missing < sizeof(host), "the host has every feature the struct knows");
    if (missing < sizeof(host)) {
        memset(&required, 0, sizeof(required));
        ((unsigned char *) &required)[missing] = 1;
        negated_mask(&required, mask, sizeof(mask));
        CHECK(checkCPUFeatures(mask) != 0, "a feature the host lacks (struct offset %zu) required: refused", missing);
    }
}

static void signal_mechanism_counts_and_hands_over_signals(void) {
    CHECK(cSunMiscSignal_open() == 0, "first open claims the mechanism");
    CHECK(cSunMiscSignal_open() == 1, "a second open is refused: another isolate owns it");
    CHECK(cSunMiscSignal_signalRangeCheck(SIGTERM) && !cSunMiscSignal_signalRangeCheck(0)
          && !cSunMiscSignal_signalRangeCheck(NSIG), "range check");
    CHECK(cSunMiscSignal_checkPendingSignal() == -1, "nothing pending at first");
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_handler = cSunMiscSignal_signalHandlerFunctionPointer();
    action.sa_flags = SA_RESTART;
    sigaction(SIGUSR1, &action, NULL);
    sigaction(SIGUSR2, &action, NULL);
    raise(SIGUSR2);
    raise(SIGUSR1);
    raise(SIGUSR1);
    CHECK(cSunMiscSignal_awaitSemaphore() == 0, "the handler posted the semaphore");
    CHECK(cSunMiscSignal_checkPendingSignal() == SIGUSR1, "lowest pending first");
    CHECK(cSunMiscSignal_checkPendingSignal() == SIGUSR1, "each delivery counted");
    CHECK(cSunMiscSignal_checkPendingSignal() == SIGUSR2, "then the next signal");
    CHECK(cSunMiscSignal_checkPendingSignal() == -1, "then none");
    signal(SIGUSR1, SIG_DFL);
    signal(SIGUSR2, SIG_DFL);
    CHECK(cSunMiscSignal_close() == 0, "close");
    CHECK(cSunMiscSignal_open() == 0, "open again after close");
    cSunMiscSignal_close();
}

static void time_zone_follows_tz_first(void) {
    struct { const char *tz, *expected; } cases[] = {
        {":Europe/Berlin", "Europe/Berlin"}, {"Asia/Tokyo", "Asia/Tokyo"},
        {"/usr/share/zoneinfo/America/New_York", "America/New_York"}, {"UTC", "UTC"}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        setenv("TZ", cases[i].tz, 1);
        char *id = SVM_FindJavaTZmd(NULL, 0);
        CHECK(id != NULL && strcmp(id, cases[i].expected) == 0, "TZ=%s gives %s", cases[i].tz, id ? id : "NULL");
        free(id);
    }
    unsetenv("TZ");
}

static void c_locale_reads_as_en_us(void) {
    setenv("LC_ALL", "C", 1);
    CHECK(svm_initialize_locale() == SVM_LOCALE_INITIALIZATION_SUCCEEDED, "initialised");
    svm_locale_props_t *props = svm_get_locale();
    CHECK(props->format_language && strcmp(props->format_language, "en") == 0, "format language en");
    CHECK(props->format_country && strcmp(props->format_country, "US") == 0, "format country US");
    CHECK(props->display_language && strcmp(props->display_language, "en") == 0, "display language en");
    CHECK(props->format_variant == NULL && props->format_script == NULL, "no variant, no script");
    unsetenv("LC_ALL");
}

static void thread_calls_answer_for_the_calling_thread(void) {
    CHECK(getThreadId() == (int) syscall(SYS_gettid), "thread id is the kernel's tid");
    struct timespec ts;
    volatile unsigned long spin = 0;
    /* Mostly user-mode work between the (system-mode) clock reads: the kernel splits a thread's CPU time into user and
     * system time by where its ticks fell, so a loop of clock reads alone can read back 0 ns of user time. */
    do {
        for (int i = 0; i < 1000000; i++) {
            spin += i;
        }
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    } while (ts.tv_sec == 0 && ts.tv_nsec < 60 * 1000 * 1000);
    long user = getThreadUserTimeSlow(getThreadId());
    CHECK(user > 0 && user <= ts.tv_sec * 1000000000L + ts.tv_nsec + 20 * 1000 * 1000,
          "user time after 60 ms of spinning: %ld ns", user);
    CHECK(getThreadUserTimeSlow(INT_MAX) == -1, "unknown thread: -1");
    long page = sysconf(_SC_PAGESIZE);
    char *old = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    old[0] = 42;
    char *moved = mremapP(old, 2 * page, 4 * page, MREMAP_MAYMOVE, NULL);
    CHECK(moved != MAP_FAILED && moved[0] == 42, "mremap keeps the contents");
    munmap(moved, 4 * page);
}

static void variadic_wrappers_pass_every_argument(void) {
    char path[] = "/tmp/clayer-open-XXXXXX";
    int probe = mkstemp(path);
    close(probe);
    unlink(path);
    mode_t old = umask(0);
    int fd = openSII(path, O_CREAT | O_WRONLY | O_EXCL, 0640);
    umask(old);
    struct stat st;
    CHECK(fd >= 0 && fstat(fd, &st) == 0 && (st.st_mode & 0777) == 0640, "open's mode argument arrives");
    FILE *f = fdopen(fd, "w");
    fprintfSD(f, "Fatal error: %s (code %d)\n", "no thread", 13);
    fclose(f);
    char line[64] = {0};
    f = fopen(path, "r");
    CHECK(f != NULL && fgets(line, sizeof(line), f) != NULL && strcmp(line, "Fatal error: no thread (code 13)\n") == 0,
          "fprintf's string and int arguments arrive: %s", line);
    if (f != NULL) {
        fclose(f);
    }
    unlink(path);
}

static void write_file(const char *dir, const char *name, const char *content) {
    char path[PATH_MAX * 2];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    fputs(content, f);
    fclose(f);
}

static void container_reads_cgroup_v2_limits_up_the_hierarchy(void) {
    char root[] = "/tmp/clayer-cgroup-XXXXXX", pod[PATH_MAX * 2], leaf[PATH_MAX * 3], command[PATH_MAX * 4];
    CHECK(mkdtemp(root) != NULL, "temporary cgroup root");
    /* A pod's container: its limits are on the pod's cgroup, the container's own cgroup has none. */
    char self[PATH_MAX * 2];
    snprintf(self, sizeof(self), "%s/self-cgroup", root);
    write_file(root, "self-cgroup", "0::/kubepods/pod1/container1\n");
    svm_container_set_paths(root, self);
    CHECK(svm_container_initialize(240000) == 3 && svm_container_initialize(250000) == 2,
          "a version mismatch is reported as too new / too old");
    CHECK(svm_container_initialize(240100) == 0, "no cgroup v2 files: not containerized");
    snprintf(pod, sizeof(pod), "%s/kubepods/pod1", root);
    snprintf(leaf, sizeof(leaf), "%s/container1", pod);
    snprintf(command, sizeof(command), "mkdir -p '%s'", leaf);
    CHECK(system(command) == 0, "mkdir");
    write_file(root, "cgroup.controllers", "cpu memory\n");
    write_file(pod, "cpu.max", "50000 100000\n");
    write_file(pod, "memory.max", "536870912\n");
    write_file(leaf, "cpu.max", "max 100000\n");
    write_file(leaf, "memory.max", "max\n");
    write_file(leaf, "memory.current", "1234\n");
    write_file(leaf, "memory.stat", "anon 100\nfile 200\nkernel 5\n");
    CHECK(svm_container_initialize(240100) == 1, "a parent's limits make it containerized");
    CHECK(svm_container_active_processor_count() == 1, "half a CPU of quota rounds up to 1: %d",
          svm_container_active_processor_count());
    CHECK(svm_container_memory_limit_in_bytes() == 536870912, "memory limit from the parent");
    CHECK(svm_container_physical_memory() == 536870912UL, "physical memory capped by the limit");
    CHECK(svm_container_memory_usage_in_bytes() == 1234 && svm_container_rss_usage_in_bytes() == 100
          && svm_container_cache_usage_in_bytes() == 200, "usage figures of the own cgroup");

    write_file(pod, "cpu.max", "max 100000\n");
    write_file(pod, "memory.max", "max\n");
    CHECK(svm_container_initialize(240100) == 0, "no limit anywhere: not containerized");
    CHECK(svm_container_memory_limit_in_bytes() == -1, "no memory limit: -1");
    snprintf(command, sizeof(command), "rm -rf '%s'", root);
    CHECK(system(command) == 0, "cleanup");
}

static void jdk_libraries_bind_to_the_shim(void) {
    CHECK(JNI_OnLoad_zip(NULL, NULL) == JNI_VERSION_1_8, "libzip has no JNI_OnLoad: the forwarder answers 1.8");
    CHECK(JNI_OnLoad_extnet(NULL, NULL) == JNI_VERSION_1_8, "libextnet likewise");
    char buf[4];
    CHECK(jio_snprintf(buf, sizeof(buf), "%s", "abcdef") == -1 && strcmp(buf, "abc") == 0,
          "libjava's jio_snprintf through the shim's jio_vsnprintf: -1 and a terminated prefix when cut");
    void *monitor = JVM_RawMonitorCreate();
    CHECK(JVM_RawMonitorEnter(monitor) == 0 && JVM_RawMonitorEnter(monitor) == 0, "raw monitors are re-entrant");
    JVM_RawMonitorExit(monitor);
    JVM_RawMonitorExit(monitor);
    JVM_RawMonitorDestroy(monitor);
    jlong a = JVM_NanoTime(NULL, NULL), b = JVM_NanoTime(NULL, NULL);
    CHECK(b >= a && a > 0, "monotonic nano time");

    int err[2];
    CHECK(pipe(err) == 0, "pipe");
    pid_t child = fork();
    if (child == 0) {
        dup2(err[1], 2);
        JVM_IHashCode();
        _exit(0);
    }
    close(err[1]);
    char message[512] = {0};
    ssize_t n = read(err[0], message, sizeof(message) - 1);
    close(err[0]);
    int status;
    waitpid(child, &status, 0);
    CHECK(n > 0 && strstr(message, "JVM_IHashCode") != NULL && WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
          "a JVM_* function the shim does not provide stops the process with its name: %s", message);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: clayer_test <HotSpot's CPU feature list, as java -Xlog:os+cpu prints it>\n");
        return 2;
    }
    cpu_features_agree_with_hotspot(argv[1]);
    cpu_check_accepts_the_host_and_refuses_a_missing_feature();
    signal_mechanism_counts_and_hands_over_signals();
    time_zone_follows_tz_first();
    c_locale_reads_as_en_us();
    thread_calls_answer_for_the_calling_thread();
    variadic_wrappers_pass_every_argument();
    container_reads_cgroup_v2_limits_up_the_hierarchy();
    jdk_libraries_bind_to_the_shim();
    printf(failures == 0 ? "clayer_test: all checks passed\n" : "clayer_test: %d check(s) failed\n", failures);
    return failures == 0 ? 0 : 1;
}
