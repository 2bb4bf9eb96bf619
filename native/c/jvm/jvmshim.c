/*
 * libjvm.so, the shim beside the executable: the JDK's shared libraries (libjava.so, libnet.so, libzip.so,
 * libmanagement_ext.so, linked in place of the static libraries GraalVM's own JDK has) were built against HotSpot's
 * libjvm.so and need the JVM_* and jio_* functions they call from it, under the symbol version SUNWprivate_1.1
 * (jvmshim.map). Only the ones the image reaches through those libraries do real work here: the image substitutes
 * the rest of the JDK's natives (threads, reflection, class loading, signals) in Java, so any other JVM_* function
 * the libraries reference is a stub (made by build.sh from the libraries' own symbol tables) that stops the process
 * with its name, never a silent wrong answer.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <jni.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define API __attribute__((visibility("default")))

/* What a stub calls: the message names the function, so a missing piece is found at once. */
void jvmshim_unsupported(const char *name) {
    fprintf(stderr, "libjvm shim: %s is not provided to the JDK libraries of this native image "
                    "(native/c/jvm/jvmshim.c)\n", name);
    abort();
}

API jlong JVM_CurrentTimeMillis(JNIEnv *env, jclass ignored) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (jlong) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* libnet's timeouts (NET_Timeout and friends) measure with it. */
API jlong JVM_NanoTime(JNIEnv *env, jclass ignored) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (jlong) ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* Runtime.halt and the end of System.exit: flush what C buffered, then end the process at once, as HotSpot does. */
API void JVM_BeforeHalt(void) {
}

API void JVM_Halt(jint code) {
    fflush(NULL);
    _exit(code);
}

/* libnet looks up optional libc functions with it. */
API void *JVM_FindLibraryEntry(void *handle, const char *name) {
    return dlsym(handle, name);
}

/* libzip's locks: re-entrant, as HotSpot's raw monitors are. */
API void *JVM_RawMonitorCreate(void) {
    pthread_mutex_t *mutex = malloc(sizeof(*mutex));
    pthread_mutexattr_t attr;
    if (mutex == NULL) {
        return NULL;
    }
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(mutex, &attr);
    pthread_mutexattr_destroy(&attr);
    return mutex;
}

API void JVM_RawMonitorDestroy(void *monitor) {
    pthread_mutex_destroy(monitor);
    free(monitor);
}

API jint JVM_RawMonitorEnter(void *monitor) {
    return pthread_mutex_lock(monitor) == 0 ? 0 : -1;
}

API void JVM_RawMonitorExit(void *monitor) {
    pthread_mutex_unlock(monitor);
}

/* HotSpot's os::native_path leaves a POSIX path as it is. */
API char *JVM_NativePath(char *path) {
    return path;
}

/* No JMM interface: the image answers the management beans itself. */
API void *JVM_GetManagement(jint version) {
    return NULL;
}

/*
 * jdk.internal.platform (the JDK's cgroup metrics, behind OperatingSystemMXBean) asks whether to read the cgroup
 * files; yes, as HotSpot's default -XX:+UseContainerSupport: the reading itself is Java code.
 */
API jboolean JVM_IsUseContainerSupport(void) {
    return JNI_TRUE;
}

API jboolean JVM_IsSupportedJNIVersion(jint version) {
    return version == JNI_VERSION_1_1 || version == JNI_VERSION_1_2 || version == JNI_VERSION_1_4
        || version == JNI_VERSION_1_6 || version == JNI_VERSION_1_8 || version == JNI_VERSION_9
        || version == JNI_VERSION_10 || version == JNI_VERSION_19 || version == JNI_VERSION_20
        || version == JNI_VERSION_21 || version == JNI_VERSION_24;
}

/* HotSpot's contract: -1 when the output did not fit (the buffer is still terminated). */
API int jio_vsnprintf(char *str, size_t count, const char *fmt, va_list args) {
    if ((intptr_t) count <= 0) {
        return -1;
    }
    int result = vsnprintf(str, count, fmt, args);
    return result >= 0 && (size_t) result >= count ? -1 : result;
}

API int jio_vfprintf(FILE *f, const char *fmt, va_list args) {
    return vfprintf(f, fmt, args);
}
