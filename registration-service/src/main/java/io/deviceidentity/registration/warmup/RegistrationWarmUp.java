package io.deviceidentity.registration.warmup;

import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;

import io.deviceidentity.credentials.CredentialFinder;
import io.deviceidentity.overload.DatabaseWork;
import io.deviceidentity.overload.Deadline;
import io.deviceidentity.overload.Lane;
import io.deviceidentity.overload.OverloadConfig;
import io.deviceidentity.readiness.WarmUp;
import io.deviceidentity.readiness.WarmUpPlan;
import io.deviceidentity.readiness.WarmUpStep;
import io.deviceidentity.registration.passwords.PasswordHasher;

/**
 * What registration-service runs before it reports ready ({@link WarmUp}), through the entry points its requests
 * use: a validated connection in its pool; the {@code GET} read of devices that do not exist on the database lane,
 * a few times, so the lane's step-time estimate is made of warm steps; and {@value #HASHES} hashes at the
 * registration cost on its bcrypt lane, the JIT-sensitive part of a {@code PUT}. Nothing is written. (The
 * {@code "schema"} datasource needs nothing: Flyway has used it by the time this runs.)
 */
@ApplicationScoped
public class RegistrationWarmUp implements WarmUpPlan {

    static final int READS = 5;
    static final int HASHES = 3;

    private final CredentialFinder credentials;
    private final Lane database;
    private final PasswordHasher hasher;
    private final DataSource pool;
    private final OverloadConfig overload;

    public RegistrationWarmUp(CredentialFinder credentials, @DatabaseWork Lane database, PasswordHasher hasher,
            DataSource pool, OverloadConfig overload) {
        this.credentials = credentials;
        this.database = database;
        this.hasher = hasher;
        this.pool = pool;
        this.overload = overload;
    }

    @Override
    public List<WarmUpStep> steps() {
        return List.of(
                WarmUp.pooledConnection("pool", pool),
                WarmUpStep.of("read", this::readUnknownDevices),
                WarmUpStep.of("bcrypt", this::hash));
    }

    private void readUnknownDevices() throws Exception {
        for (int i = 0; i < READS; i++) {
            String id = "warm-up-" + UUID.randomUUID();
            WarmUp.await(database.run(deadline(), () -> credentials.find(id, false)));
        }
    }

    private void hash() throws Exception {
        for (int i = 0; i < HASHES; i++) {
            WarmUp.await(hasher.hash(deadline(), "warm-up-not-a-credential"));
        }
    }

    private Deadline deadline() {
        return Deadline.after(System.nanoTime(), overload.deadline());
    }
}
