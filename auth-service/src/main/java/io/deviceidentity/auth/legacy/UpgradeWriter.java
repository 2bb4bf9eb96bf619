package io.deviceidentity.auth.legacy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.jboss.logging.Logger;

import io.agroal.api.AgroalDataSource;
import io.deviceidentity.auth.AuthConfig;
import io.deviceidentity.auth.fastpath.FastPath;
import io.deviceidentity.auth.fastpath.SecondAttempt;
import io.deviceidentity.auth.writebehind.WriteBehind;
import io.deviceidentity.credentials.DeviceCredential;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.agroal.DataSource;

/**
 * Stores legacy rows' new bcrypt hashes after the answer has gone out, as the fast path's
 * {@link io.deviceidentity.auth.fastpath.VerifierWriter} stores verifiers: a {@link WriteBehind} of
 * {@code upgrade-queue} (100), written one at a time in the order they were queued, on the one-connection {@code verifiers} datasource, so a write never delays an answer nor takes a connection from the
 * reads; a write that fails is tried once more ({@link SecondAttempt}). The only statement is
 * {@code upgrade_legacy_password} (V6), or {@code strengthen_bcrypt_password} (V7) for a weak bcrypt row: a
 * compare-and-set the schema owner grants, which replaces the hash only while the row is still of its kind (legacy;
 * bcrypt below the new cost), active and holds the very hash that was verified, so of two replicas upgrading one
 * device at the same moment exactly one wins and the other is counted {@code stale}, and a PUT, an import or a
 * revocation in between is never overwritten.
 *
 * <p>After an upgrade the device's verifier is written over its new bcrypt string, as for any bcrypt allow: its next
 * login takes the fast path. A full queue drops the upgrade (counted {@code deferred}): the row stays legacy and a
 * later login upgrades it.
 */
@ApplicationScoped
public class UpgradeWriter {

    private static final Logger LOG = Logger.getLogger(UpgradeWriter.class);

    /**
     * One verified row to replace ({@code kind}) and its new hash. {@code password} is secret: toString leaves it
     * and the hashes out.
     */
    public record Upgrade(UpgradeKind kind, DeviceCredential device, String username, byte[] password,
            String bcryptHash) {

        @Override
        public String toString() {
            return "Upgrade[clientId=" + device.clientId() + "]";
        }
    }

    /** The outcomes of one kind of upgrade. */
    private record Outcomes(Counter upgraded, Counter stale, Counter failed, Counter dropped) {
    }

    private final AgroalDataSource dataSource;
    private final FastPath fastPath;
    private final WriteBehind<Upgrade> queue;
    private final Map<UpgradeKind, Outcomes> outcomes = new EnumMap<>(UpgradeKind.class);

    @Inject
    public UpgradeWriter(@DataSource("verifiers") AgroalDataSource dataSource, FastPath fastPath, AuthConfig config,
            MeterRegistry registry) {
        this.dataSource = dataSource;
        this.queue = WriteBehind.draining("legacy-upgrade-writer", config.legacy().upgradeQueue(), 1, this::writeEach);
        this.fastPath = fastPath;
        for (UpgradeKind kind : UpgradeKind.values()) {
            // stale: another replica (or a PUT, an import, a revocation) changed the row since it was read.
            outcomes.put(kind, new Outcomes(kind.counter(registry, "upgraded"), kind.counter(registry, "stale"),
                    kind.counter(registry, "failed"), kind.counter(registry, LegacyUpgrades.DEFERRED)));
        }
    }

    /** Never blocks: a full queue drops the upgrade (the row stays as it is until a later login). */
    public void offer(Upgrade upgrade) {
        if (!queue.offer(upgrade)) {
            outcomes.get(upgrade.kind()).dropped().increment();
            notUpgraded(upgrade.kind(), upgrade.device(), upgrade.username(), upgrade.password());
        }
    }

    /**
     * A verified row whose re-hash did not happen (bcrypt refused it, the queue was full, the write failed): a weak
     * bcrypt row gets the verifier over its present hash, as any bcrypt allow does, so that the fast path still
     * carries it; a legacy row gets none (LegacyUpgrades).
     */
    public void notUpgraded(UpgradeKind kind, DeviceCredential device, String username, byte[] password) {
        if (kind == UpgradeKind.WEAK_BCRYPT) {
            fastPath.remember(device.clientId(), username, password, device);
        }
    }

    /** Writes one upgrade now, on the caller's thread: the writer thread's step, and the tests' (two replicas). */
    boolean write(Upgrade upgrade) {
        return store(upgrade) == Stored.UPGRADED;
    }

    private enum Stored { UPGRADED, STALE, FAILED }

    private Stored store(Upgrade upgrade) {
        DeviceCredential device = upgrade.device();
        Outcomes counted = outcomes.get(upgrade.kind());
        try {
            if (!SecondAttempt.run(() -> replace(upgrade))) {
                counted.stale().increment();
                return Stored.STALE;
            }
        } catch (SQLException | RuntimeException e) {
            counted.failed().increment();
            // The SQLSTATE only: no parameter, so no hash reaches the log.
            LOG.warnf("could not replace a credential (%s) by its bcrypt re-hash, twice (%s): a later login tries again",
                    upgrade.kind(), e instanceof SQLException sql ? sql.getSQLState() : e.getClass().getSimpleName());
            notUpgraded(upgrade.kind(), device, upgrade.username(), upgrade.password());
            return Stored.FAILED;
        }
        counted.upgraded().increment();
        fastPath.remember(device.clientId(), upgrade.username(), upgrade.password(),
                device.withBcrypt(upgrade.bcryptHash()));
        return Stored.UPGRADED;
    }

    /** The compare-and-set: true when this call replaced the hash. */
    private boolean replace(Upgrade upgrade) throws SQLException {
        DeviceCredential device = upgrade.device();
        try (Connection connection = dataSource.getConnection();
                PreparedStatement call = connection.prepareStatement(upgrade.kind().statement())) {
            call.setString(1, device.clientId());
            call.setString(2, device.passwordHash());
            call.setString(3, upgrade.bcryptHash());
            try (ResultSet result = call.executeQuery()) {
                return result.next() && result.getBoolean(1);
            }
        }
    }

    /** Each outcome is counted by {@link #store}; a failed upgrade is not retried (a later login is). */
    private boolean writeEach(List<Upgrade> batch) {
        boolean failed = false;
        for (Upgrade upgrade : batch) {
            failed |= store(upgrade) == Stored.FAILED;
        }
        return !failed;
    }

    /** An upgrade queued before a shutdown is written before it, as verifiers are. */
    @PreDestroy
    void stop() {
        queue.close();
    }
}
