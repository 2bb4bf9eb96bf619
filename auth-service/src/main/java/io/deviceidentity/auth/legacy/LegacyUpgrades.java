package io.deviceidentity.auth.legacy;

import java.util.EnumMap;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;

import io.deviceidentity.auth.AuthConfig;
import io.deviceidentity.credentials.Bcrypt;
import io.deviceidentity.credentials.CheckCost;
import io.deviceidentity.credentials.DeviceCredential;
import io.deviceidentity.overload.BcryptWork;
import io.deviceidentity.overload.Deadline;
import io.deviceidentity.overload.Lane;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Replaces a legacy credential (a hash imported as it was, docs/migration.md) by bcrypt after the device proved its
 * password: the only moment the password is at hand. The same holds for a bcrypt row below the upgrade cost (an
 * old store's cost-8 hashes): it is re-hashed at the upgrade cost. The upgrade costs one bcrypt, which must not come
 * out of a storm's capacity, so it is started only while the bcrypt lane is idle (a thread free, nothing waiting)
 * and then runs on it like any hash; otherwise it is counted {@code deferred} and a later slow-path login tries
 * again. Every outcome is counted, {@value #METRIC} for legacy rows ({@code identity_authn_legacy_upgrades_total
 * {result}}) and {@value #REHASH_METRIC} for weak bcrypt rows ({@code identity_authn_bcrypt_rehashes_total{result}}):
 * {@code upgraded}, {@code deferred}, {@code stale}, {@code failed}.
 *
 * <p>A legacy allow writes no fast-path verifier: a verifier over a legacy row would let the device keep that row
 * forever (every later login would take the fast path and never reach the upgrade), and the fast path is meant to
 * stand in for bcrypt, not for a weaker hash. The verifier comes with the upgrade ({@link UpgradeWriter}), bound to
 * the new bcrypt string. A weak bcrypt row whose re-hash is started gets its verifier the same way; one whose re-hash
 * is deferred or does not land gets it over its present hash, as any bcrypt allow: it is bcrypt, and the fast path is
 * what carries a storm.
 */
@ApplicationScoped
public class LegacyUpgrades {

    public static final String METRIC = "identity.authn.legacy.upgrades";
    public static final String REHASH_METRIC = "identity.authn.bcrypt.rehashes";
    static final String DEFERRED = "deferred";

    private final Lane bcrypt;
    private final UpgradeWriter writer;
    private final int cost;
    private final Map<UpgradeKind, Counter> deferred = new EnumMap<>(UpgradeKind.class);

    public LegacyUpgrades(@BcryptWork Lane bcrypt, UpgradeWriter writer, AuthConfig config, MeterRegistry registry) {
        this.bcrypt = bcrypt;
        this.writer = writer;
        this.cost = config.legacy().upgradeCost();
        for (UpgradeKind kind : UpgradeKind.values()) {
            deferred.put(kind, kind.counter(registry, DEFERRED));
        }
    }

    /** A bcrypt row hashed below the upgrade cost: re-hashed after its next successful slow-path login. */
    public boolean weak(DeviceCredential device) {
        if (device.legacy()) {
            return false;
        }
        int stored = CheckCost.bcryptCost(device.passwordHash());
        return stored > 0 && stored < cost;
    }

    /**
     * After {@code password} matched {@code device}, a legacy or {@link #weak} row: starts its re-hash if bcrypt is
     * idle, else counts it deferred. Never blocks and never fails the answer; true when the re-hash was started.
     */
    public boolean upgrade(DeviceCredential device, String username, String password, byte[] passwordBytes,
            Deadline deadline) {
        UpgradeKind kind = device.legacy() ? UpgradeKind.LEGACY : UpgradeKind.WEAK_BCRYPT;
        if (!bcrypt.idle()) {
            deferred.get(kind).increment();
            return false;
        }
        byte[] kept = passwordBytes.clone();
        bcrypt.submit(deadline, CheckCost.bcrypt(cost), () -> Bcrypt.hash(password, cost))
                .whenComplete((hash, refused) -> {
                    if (refused != null) {
                        // Another request took the thread first, or the deadline passed: a later login upgrades.
                        deferred.get(kind).increment();
                        writer.notUpgraded(kind, device, username, kept);
                    } else {
                        writer.offer(new UpgradeWriter.Upgrade(kind, device, username, kept, hash));
                    }
                });
        return true;
    }
}
