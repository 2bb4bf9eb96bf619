package io.deviceidentity.registration.passwords;

import java.util.concurrent.CompletableFuture;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.deviceidentity.credentials.Bcrypt;
import io.deviceidentity.credentials.CheckCost;
import io.deviceidentity.overload.BcryptWork;
import io.deviceidentity.overload.Deadline;
import io.deviceidentity.overload.Lane;
import io.deviceidentity.registration.RegistrationConfig;
import io.quarkus.runtime.Startup;

/**
 * Hashes a device password on this service's own bounded bcrypt lane, before any database connection is
 * taken: a hash takes tens of milliseconds of CPU, and a connection held meanwhile is one the pool cannot lend
 * (the incident's first trap). The lane refuses work that cannot finish before the request's deadline.
 * Created at start ({@link Startup}), so that a cost out of range, or one whose hash cannot fit in the deadline,
 * stops the service with a message instead of leaving it never ready (its warm-up hashes through here).
 */
@Startup
@ApplicationScoped
public class PasswordHasher {

    private static final Logger LOG = Logger.getLogger(PasswordHasher.class);
    /** The range Bouncy Castle's bcrypt accepts. */
    private static final int MIN_COST = 4;
    private static final int MAX_COST = 31;

    private final Lane bcrypt;
    private final int cost;
    /** What one hash at {@link #cost} is charged on the bcrypt lane. */
    private final double units;

    public PasswordHasher(@BcryptWork Lane bcrypt, RegistrationConfig config) {
        this.bcrypt = bcrypt;
        this.cost = config.bcryptCost();
        if (cost < MIN_COST || cost > MAX_COST) {
            throw new IllegalArgumentException(
                    "identity.registration.bcrypt-cost must be " + MIN_COST + ".." + MAX_COST + ", got " + cost);
        }
        this.units = CheckCost.bcrypt(cost);
        bcrypt.requireFits(units, "one hash at identity.registration.bcrypt-cost " + cost);
        LOG.infof("new credential hashes use bcrypt cost %d", cost);
    }

    /**
     * The bcrypt hash of a password that {@link io.deviceidentity.credentials.PasswordPolicy} accepts. Fails with
     * a {@link io.deviceidentity.overload.ServiceUnavailableException} when the work is refused or its deadline
     * passes.
     */
    public CompletableFuture<String> hash(Deadline deadline, String password) {
        return bcrypt.submit(deadline, units, () -> compute(password));
    }

    /**
     * The CPU work itself, on a bcrypt thread. Overridable so that a test can hold a hash mid-way and look at the
     * service meanwhile (src/test: PausableHasher); nothing in production overrides it.
     */
    protected String compute(String password) {
        return Bcrypt.hash(password, cost);
    }
}
