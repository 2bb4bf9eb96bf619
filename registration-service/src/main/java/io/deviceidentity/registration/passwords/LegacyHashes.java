package io.deviceidentity.registration.passwords;

import java.util.EnumMap;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;

import io.deviceidentity.credentials.legacy.PasswordScheme;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Counts rows an import wrote with a hash of a legacy scheme, by scheme ({@value #METRIC},
 * {@code identity_registration_legacy_hashes_written_total{scheme}}): the weak ones ({@code plain}, {@code md5},
 * unsalted {@code sha*}) can only appear here after an import with {@code allow_weak_schemes=true}. How much of the
 * fleet is still on each scheme now (after auth-service's upgrades) is the report's {@code schemes}
 * ({@code GET /v1/device-reports/weak-hashes}).
 */
@ApplicationScoped
public class LegacyHashes {

    public static final String METRIC = "identity.registration.legacy.hashes.written";

    private final Map<PasswordScheme, Counter> written = new EnumMap<>(PasswordScheme.class);

    public LegacyHashes(MeterRegistry registry) {
        for (PasswordScheme scheme : PasswordScheme.values()) {
            if (scheme.legacy()) {
                written.put(scheme, Counter.builder(METRIC).tag("scheme", scheme.column())
                        .description("rows imported with a hash of a legacy scheme, verified as it is until the"
                                + " device's first login upgrades it to bcrypt")
                        .register(registry));
            }
        }
    }

    public void written(PasswordScheme scheme) {
        Counter counter = written.get(scheme);
        if (counter != null) {
            counter.increment();
        }
    }
}
