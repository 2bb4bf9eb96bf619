/*
 * Fixed-argument wrappers of libc's variadic functions: the image's C interface calls a C function with a fixed
 * signature, and a variadic one must be called as such (on x86-64 the caller sets %al). The name spells the
 * argument types, as the image's declarations do (posix.headers.Fcntl, posix.thread.PosixVMThreads).
 */
#include <fcntl.h>
#include <stdio.h>

int openSII(const char *pathname, int flags, int mode) {
    return open(pathname, flags, mode);
}

int openatISII(int dirfd, const char *pathname, int flags, int mode) {
    return openat(dirfd, pathname, flags, mode);
}

/* The image's last words when a thread cannot be set up: "Fatal error: %s (code %d)". */
int fprintfSD(FILE *stream, const char *format, const char *arg0, int arg1) {
    return fprintf(stream, format, arg0, arg1);
}
