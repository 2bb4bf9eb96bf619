package io.deviceidentity.auth.legacy;

import jakarta.enterprise.context.ApplicationScoped;

import io.deviceidentity.auth.AuthConfig;
import io.deviceidentity.credentials.Bcrypt;
import io.deviceidentity.credentials.CheckCost;
import io.deviceidentity.credentials.DeviceCredential;
import io.deviceidentity.overload.BcryptExecutor;
import io.deviceidentity.overload.Deadline;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Replaces a legacy credential (a hash imported as it was, docs/migration.md) by bcrypt after the device proved its
 * password: the only moment the password is at hand. The upgrade costs one bcrypt, which must not come out of a
 * storm's capacity, so it is started only while the bcrypt executor is idle (a thread free, nothing waiting) and then
 * runs on it like any hash; otherwise it is counted {@code deferred} and the device's next login tries again. Every
 * outcome is counted in {@value #METRIC} ({@code identity_authn_legacy_upgrades_total{result}}: {@code upgraded},
 * {@code deferred}, {@code stale}, {@code failed}).
 *
 * <p>A legacy allow writes no fast-path verifier: a verifier over a legacy row would let the device keep that row
 * forever (every later login would take the fast path and never reach the upgrade), and the fast path is meant to
 * stand in for bcrypt, not for a weaker hash. The verifier comes with the upgrade ({@link UpgradeWriter}), bound to
 * the new bcrypt string.
 */
@ApplicationScoped
public class LegacyUpgrades {

    public static final String METRIC = "identity.authn.legacy.upgrades";
    static final String DEFERRED = "deferred";

    private final BcryptExecutor bcrypt;
    private final UpgradeWriter writer;
    private final int cost;
    private final Counter deferred;

    public LegacyUpgrades(BcryptExecutor bcrypt, UpgradeWriter writer, AuthConfig config, MeterRegistry registry) {
        this.bcrypt = bcrypt;
        this.writer = writer;
        this.cost = config.legacy().upgradeCost();
        this.deferred = counter(registry, DEFERRED);
    }

    static Counter counter(MeterRegistry registry, String result) {
        return Counter.builder(METRIC).tag("result", result)
                .description("legacy credentials' upgrades to bcrypt after a successful login, by result")
                .register(registry);
    }

    /**
     * After {@code password} matched the legacy row {@code device}: starts the upgrade if bcrypt is idle, else
     * counts it deferred. Never blocks and never fails the answer.
     */
    public void upgrade(DeviceCredential device, String username, String password, byte[] passwordBytes,
            Deadline deadline) {
        if (!bcrypt.idle()) {
            deferred.increment();
            return;
        }
        byte[] kept = passwordBytes.clone();
        bcrypt.submit(deadline, CheckCost.bcrypt(cost), () -> Bcrypt.hash(password, cost))
                .whenComplete((hash, refused) -> {
                    if (refused != null) {
                        // Another request took the thread first, or the deadline passed: a later login upgrades.
                        deferred.increment();
                    } else {
                        writer.offer(new UpgradeWriter.Upgrade(device, username, kept, hash));
                    }
                });
    }
}
