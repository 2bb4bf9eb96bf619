package io.deviceidentity.registration.passwords;

import jakarta.enterprise.context.ApplicationScoped;

import io.deviceidentity.registration.RegistrationConfig;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Ready-made bcrypt hashes (an import line, a PUT with {@code password_hash}) whose cost is below
 * {@code identity.registration.bcrypt-cost}: stored as they are, since no password is there to re-hash, but counted
 * in {@value #METRIC} ({@code identity_registration_weak_hashes_written_total{operation="import|put"}}) and listed by
 * {@code GET /v1/device-reports/weak-hashes}, so that an operator can rotate those devices' passwords. A weak hash
 * costs an attacker with a database copy less per guess, and auth-service's fast path is no weaker for it (the
 * verifier does not depend on the cost); a cheaper hash also makes the device's cold check cheaper, never dearer.
 */
@ApplicationScoped
public class WeakHashes {

    /** Counter, tagged {@code operation}: rows written with a hash below the configured cost. */
    public static final String METRIC = "identity.registration.weak.hashes.written";

    private final int cost;
    private final Counter imported;
    private final Counter put;

    public WeakHashes(RegistrationConfig config, MeterRegistry registry) {
        this.cost = config.bcryptCost();
        this.imported = counter(registry, "import");
        this.put = counter(registry, "put");
    }

    private static Counter counter(MeterRegistry registry, String operation) {
        return Counter.builder(METRIC).tag("operation", operation)
                .description("rows written with a ready-made bcrypt hash below identity.registration.bcrypt-cost")
                .register(registry);
    }

    /** The configured cost: hashes below it are weak. */
    public int cost() {
        return cost;
    }

    /** The cost a valid bcrypt string ({@link BcryptHashFormat}) was made with. */
    public static int costOf(String hash) {
        return Integer.parseInt(hash.substring(4, 6));
    }

    /** Whether a ready-made hash is below the configured cost. */
    public boolean isWeak(String hash) {
        return hash != null && costOf(hash) < cost;
    }

    public void importedWeak(long rows) {
        imported.increment(rows);
    }

    /** A PUT stored {@code hash} as it is (counted when it is weak). */
    public void stored(String hash) {
        if (isWeak(hash)) {
            put.increment();
        }
    }

    /** The cost as the database compares it: two digits, as in the hash ({@code 04}, {@code 10}). */
    public String costColumnValue() {
        return String.format("%02d", cost);
    }
}
