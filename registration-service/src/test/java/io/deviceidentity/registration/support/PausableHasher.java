package io.deviceidentity.registration.support;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import jakarta.annotation.Priority;
import jakarta.inject.Singleton;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Inject;

import io.deviceidentity.overload.BcryptWork;
import io.deviceidentity.overload.Lane;
import io.deviceidentity.registration.RegistrationConfig;
import io.deviceidentity.registration.passwords.PasswordHasher;

/**
 * The real hasher, with a pause the tests can arm: the next hash stops on its bcrypt thread, mid-computation from
 * the request's point of view, until released, then computes the real bcrypt. Not a mock: everything else (the
 * executor, its deadline checks, the pool, PgBouncer, PostgreSQL) is the production path; the pause only lets a
 * test look at the service at the exact moment a hash is in progress. Unarmed, it changes nothing. A singleton
 * (no client proxy), because the production bean has no no-argument constructor to proxy.
 */
@Alternative
@Priority(1)
@Singleton
public class PausableHasher extends PasswordHasher {

    private final AtomicReference<Pause> armed = new AtomicReference<>();

    @Inject
    public PausableHasher(@BcryptWork Lane executor, RegistrationConfig config) {
        super(executor, config);
    }

    /** Pauses the next hash that starts. */
    public Pause pauseNextHash() {
        Pause pause = new Pause();
        if (!armed.compareAndSet(null, pause)) {
            throw new IllegalStateException("a pause is armed already");
        }
        return pause;
    }

    @Override
    protected String compute(String password) {
        Pause pause = armed.getAndSet(null);
        if (pause != null) {
            pause.started.countDown();
            try {
                if (!pause.released.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("a paused hash was never released");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        return super.compute(password);
    }

    public static final class Pause {
        private final CountDownLatch started = new CountDownLatch(1);
        private final CountDownLatch released = new CountDownLatch(1);

        public boolean awaitHashInProgress(long seconds) throws InterruptedException {
            return started.await(seconds, TimeUnit.SECONDS);
        }

        public void release() {
            released.countDown();
        }
    }
}
