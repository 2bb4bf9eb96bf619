/*
 * Tests of reporterchelper.c, run by native/c/test.sh (and so by `make native-analysis`): the peak RSS is the
 * process's own, in bytes (it grows when the process touches more memory), and the terminal width is -1 when
 * standard output is not a terminal, as in CI and in a build log.
 */
#include <jni.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

jlong Java_com_oracle_svm_hosted_ProgressReporterCHelper_getPeakRSS0(JNIEnv *env, jclass cls);
jint Java_com_oracle_svm_hosted_ProgressReporterCHelper_getTerminalWindowColumns0(JNIEnv *env, jclass cls);

static int passed = 0;
static int failures = 0;

static void check(int condition, const char *what) {
    printf("%s: %s\n", condition ? "ok" : "FAILED", what);
    passed += condition;
    failures += !condition;
}

int main(void) {
    jlong before = Java_com_oracle_svm_hosted_ProgressReporterCHelper_getPeakRSS0(NULL, NULL);
    check(before > 1024 * 1024, "peak RSS is reported in bytes (more than 1 MiB for any process)");

    size_t size = 64 * 1024 * 1024;
    volatile char *block = malloc(size);
    for (size_t i = 0; i < size; i += 4096) {
        block[i] = 1; /* volatile: the compiler may not drop the stores, every page is touched */
    }
    jlong after = Java_com_oracle_svm_hosted_ProgressReporterCHelper_getPeakRSS0(NULL, NULL);
    check(after - before >= (jlong) size / 2, "peak RSS grows by the memory the process touched");
    free((void *) block);

    if (!isatty(STDOUT_FILENO)) {
        check(Java_com_oracle_svm_hosted_ProgressReporterCHelper_getTerminalWindowColumns0(NULL, NULL) == -1,
              "no terminal width when standard output is not a terminal");
    }
    printf("%d passed, %d failed\n", passed, failures);
    return failures == 0 ? 0 : 1;
}
