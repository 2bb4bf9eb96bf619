package io.deviceidentity.registration.imports;

import java.util.concurrent.Semaphore;

/** The permits of concurrently running imports. */
final class ImportSlots {

    private ImportSlots() {
    }

    static Semaphore of(int concurrency) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("identity.registration.import.concurrency must be at least 1");
        }
        return new Semaphore(concurrency);
    }
}
