package io.deviceidentity.loadtest.db;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;

import io.deviceidentity.credentials.Bcrypt;
import io.deviceidentity.loadtest.devices.PopulationSpec;

/**
 * Registers a device population directly in PostgreSQL (the schema registration-service owns), with real bcrypt
 * hashes from identity-core. With a shared password the hash is computed once and reused: verifying it costs the
 * service exactly as much as a per-device hash, and seeding 10 000 devices takes a second instead of ten minutes.
 * Devices that exist already keep their row.
 */
public final class DeviceSeeder {

    private static final int BATCH = 1_000;

    private final DatabaseAccess access;

    public DeviceSeeder(DatabaseAccess access) {
        if (access.postgresUrl() == null) {
            throw new IllegalArgumentException("seeding needs the PostgreSQL URL (--pg-url)");
        }
        this.access = access;
    }

    /** Inserts devices 1..spec.devices() that are missing; returns how many rows were inserted. */
    public int seed(PopulationSpec spec, int cost, int threads) throws Exception {
        List<String> hashes = hashes(spec, cost, threads);
        int inserted = 0;
        try (Connection connection = DriverManager.getConnection(access.postgresUrl(), access.user(),
                access.password())) {
            connection.setAutoCommit(false);
            try (PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO device_credentials (client_id, password_hash) VALUES (?, ?) "
                            + "ON CONFLICT (client_id) DO NOTHING")) {
                for (int n = 1; n <= spec.devices(); n++) {
                    insert.setString(1, spec.idPrefix() + n);
                    insert.setString(2, hashes.size() == 1 ? hashes.get(0) : hashes.get(n - 1));
                    insert.addBatch();
                    if (n % BATCH == 0 || n == spec.devices()) {
                        for (int count : insert.executeBatch()) {
                            inserted += Math.max(0, count);
                        }
                    }
                }
            }
            connection.commit();
        }
        return inserted;
    }

    private static List<String> hashes(PopulationSpec spec, int cost, int threads) throws Exception {
        if (spec.sharedPassword() != null) {
            return List.of(Bcrypt.hash(spec.sharedPassword(), cost));
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads));
        try {
            List<Future<String>> futures = new ArrayList<>();
            IntStream.rangeClosed(1, spec.devices())
                    .forEach(n -> futures.add(pool.submit(() -> Bcrypt.hash(spec.passwordOf(n), cost))));
            List<String> hashes = new ArrayList<>(futures.size());
            for (Future<String> future : futures) {
                hashes.add(future.get());
            }
            return hashes;
        } finally {
            pool.shutdownNow();
        }
    }

    /** Removes the population's rows (for tests that must start from a known state). */
    public int remove(PopulationSpec spec) throws SQLException {
        try (Connection connection = DriverManager.getConnection(access.postgresUrl(), access.user(),
                access.password());
                PreparedStatement delete = connection.prepareStatement(
                        "DELETE FROM device_credentials WHERE client_id LIKE ?")) {
            delete.setString(1, spec.idPrefix().replace("%", "\\%").replace("_", "\\_") + "%");
            return delete.executeUpdate();
        }
    }
}
