package io.deviceidentity.auth.legacy;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * What a successful login's re-hash replaces: a legacy row (a hash imported as another broker stored it) or a bcrypt
 * row below {@code identity.auth.legacy.upgrade-cost}. Both are the same work (one bcrypt of the password in hand,
 * started only while bcrypt is idle, stored by {@link UpgradeWriter}'s compare-and-set); each has its own database
 * function, which allows exactly that replacement, and its own metric.
 */
public enum UpgradeKind {
    LEGACY(LegacyUpgrades.METRIC, "SELECT upgrade_legacy_password(?, ?, ?)",
            "legacy credentials' upgrades to bcrypt after a successful login, by result"),
    WEAK_BCRYPT(LegacyUpgrades.REHASH_METRIC, "SELECT strengthen_bcrypt_password(?, ?, ?)",
            "bcrypt credentials below the upgrade cost re-hashed at it after a successful login, by result");

    private final String metric;
    private final String statement;
    private final String description;

    UpgradeKind(String metric, String statement, String description) {
        this.metric = metric;
        this.statement = statement;
        this.description = description;
    }

    /** The compare-and-set (V6, V7): client id, the verified hash, the new bcrypt hash; true when it replaced. */
    String statement() {
        return statement;
    }

    Counter counter(MeterRegistry registry, String result) {
        return Counter.builder(metric).tag("result", result).description(description).register(registry);
    }
}
