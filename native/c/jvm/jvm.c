/*
 * libjvm.a: the two functions the image itself calls in "jvm" (com.oracle.svm.core.jdk.Jvm). GraalVM's own libjvm.a
 * also carries the JVM_* functions of statically linked JDK libraries; here the JDK's libraries stay dynamic and
 * find those in the libjvm.so shim (jvmshim.c) instead.
 */
#define _GNU_SOURCE
#include "cpus.h"

/* Called before the first native library loads; nothing to set up for the shared JDK libraries. */
void initialize(void) {
}

/* The CPUs this process may run on, as HotSpot counts them without container limits (libjava.so calls it too). */
__attribute__((visibility("default"))) int JVM_ActiveProcessorCount(void) {
    return affinity_cpu_count();
}
