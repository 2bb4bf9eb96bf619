/*
 * The C half of jdk.internal.misc.Signal in the image (com.oracle.svm.core.posix.headers.CSunMiscSignal,
 * PosixSignalHandlerSupport): the handler the image installs for a Java-handled signal (SIGTERM, SIGINT, SIGHUP)
 * only counts the signal and posts a semaphore, both async-signal-safe; the image's "Signal Dispatcher" thread
 * waits on the semaphore, takes a pending signal and runs the Java handlers (shutdown hooks on SIGTERM).
 *
 * The mechanism is process-wide, and one isolate at a time may own it: open() claims it, close() gives it back.
 */
#include <errno.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>

static atomic_int owned;
static sem_t semaphore;
static atomic_long pending[NSIG];

/* 0: claimed and ready; 1: another isolate owns it; -1 (errno set): the semaphore could not be created. */
int cSunMiscSignal_open(void) {
    int expected = 0;
    if (!atomic_compare_exchange_strong(&owned, &expected, 1)) {
        return 1;
    }
    for (int i = 0; i < NSIG; i++) {
        atomic_store(&pending[i], 0);
    }
    if (sem_init(&semaphore, 0, 0) != 0) {
        atomic_store(&owned, 0);
        return -1;
    }
    return 0;
}

int cSunMiscSignal_close(void) {
    int result = sem_destroy(&semaphore);
    atomic_store(&owned, 0);
    return result;
}

/* 0 once woken (by a signal or by signalSemaphore); a wait interrupted by a signal also counts as woken. */
int cSunMiscSignal_awaitSemaphore(void) {
    if (sem_wait(&semaphore) != 0 && errno != EINTR) {
        return -1;
    }
    return 0;
}

int cSunMiscSignal_signalSemaphore(void) {
    return sem_post(&semaphore);
}

int cSunMiscSignal_signalRangeCheck(int signal) {
    return signal > 0 && signal < NSIG;
}

/* The lowest signal with a count above zero, taken off its count; -1 when none is pending. */
int cSunMiscSignal_checkPendingSignal(void) {
    for (int sig = 1; sig < NSIG; sig++) {
        long count = atomic_load(&pending[sig]);
        while (count > 0) {
            if (atomic_compare_exchange_weak(&pending[sig], &count, count - 1)) {
                return sig;
            }
        }
    }
    return -1;
}

/* The handler itself: errno is kept, as a handler that interrupts arbitrary code must. */
static void dispatch(int sig) {
    int saved = errno;
    if (sig > 0 && sig < NSIG) {
        atomic_fetch_add(&pending[sig], 1);
        sem_post(&semaphore);
    }
    errno = saved;
}

void (*cSunMiscSignal_signalHandlerFunctionPointer(void))(int) {
    return dispatch;
}
