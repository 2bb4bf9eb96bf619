/*
 * libreporterchelper.so: the two JNI methods the GraalVM builder's build-output reporter
 * (com.oracle.svm.hosted.ProgressReporterCHelper) calls. GraalVM ships this library inside its own JDK, under
 * lib/svm/builder/lib/; the builder from Maven Central has only the Java side, so the project builds it here.
 * Written from the Java declarations in svm-<version>-sources.jar: both return -1 when the value is unknown, and
 * the reporter then falls back to its defaults.
 */
#include <jni.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

/* Peak resident set size of the builder process, in bytes (Linux reports ru_maxrss in KiB). */
JNIEXPORT jlong JNICALL Java_com_oracle_svm_hosted_ProgressReporterCHelper_getPeakRSS0(JNIEnv *env, jclass cls) {
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) != 0) {
        return -1;
    }
    return (jlong) usage.ru_maxrss * 1024;
}

/* Columns of the terminal the build output goes to; -1 when stdout is not a terminal (a log file, CI). */
JNIEXPORT jint JNICALL Java_com_oracle_svm_hosted_ProgressReporterCHelper_getTerminalWindowColumns0(JNIEnv *env, jclass cls) {
    struct winsize size;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) != 0 || size.ws_col == 0) {
        return -1;
    }
    return size.ws_col;
}
