package io.deviceidentity.auth.fastpath;

import static io.deviceidentity.auth.support.StoredRows.awaitVerifier;
import static io.deviceidentity.auth.support.StoredRows.passwordHash;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.agroal.api.exceptionsorter.PostgreSQLExceptionSorter;
import io.agroal.api.security.NamePrincipal;
import io.agroal.api.security.SimplePassword;
import io.deviceidentity.auth.support.ServiceRole;
import io.deviceidentity.metrics.MetricNames;
import io.deviceidentity.testsupport.TestDatabase;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The verifier writer on a pool of one real connection, as the service runs it, whose connection breaks between two
 * batches: what a restart of PostgreSQL or PgBouncer does to the service's {@code verifiers} datasource.
 * A {@code QuarkusTest} only so that the schema is migrated; the writer under test is the test's own, on its own
 * pool (straight to PostgreSQL, as the service's role, so that the test can end that one connection).
 */
@QuarkusTest
class VerifierWriterTest {

    private static final String APPLICATION_NAME = "verifier-writer-test";

    @Test
    void aBatchWhoseConnectionWasBrokenIsWrittenOnANewOne() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        try (AgroalDataSource pool = poolOfOne()) {
            VerifierWriter writer = new VerifierWriter(pool, 10, 100, Duration.ofMinutes(1), System::nanoTime, registry);
            String before = uniqueId("writer-before");
            device(before).store();
            writer.offer(write(before));
            awaitVerifier(before, TestKeys.CURRENT.id());
            assertEquals(1, endWriterConnections(), "the writer's one pooled connection");

            String after = uniqueId("writer-after");
            device(after).store();
            VerifierWriter.Write write = write(after);
            writer.offer(write);

            assertArrayEquals(write.mac(), awaitVerifier(after, TestKeys.CURRENT.id()).mac());
            assertEquals(2.0, count(registry, "written"));
            assertEquals(0.0, count(registry, "failed"));
        }
    }

    private VerifierWriter.Write write(String clientId) {
        String hash = passwordHash(clientId);
        byte[] mac = Verifiers.mac(TestKeys.CURRENT, clientId, "", "any".getBytes(StandardCharsets.UTF_8), hash);
        return new VerifierWriter.Write(clientId, hash, TestKeys.CURRENT.id(), mac);
    }

    /** No validation before use, as a connection used within the last second is handed out by the service's pool. */
    private AgroalDataSource poolOfOne() throws SQLException {
        return AgroalDataSource.from(new AgroalDataSourceConfigurationSupplier()
                .connectionPoolConfiguration(pool -> pool
                        .maxSize(1)
                        .acquisitionTimeout(Duration.ofSeconds(10))
                        .exceptionSorter(new PostgreSQLExceptionSorter())
                        .connectionFactoryConfiguration(factory -> factory
                                .jdbcUrl(TestDatabase.postgresUrl() + "&ApplicationName=" + APPLICATION_NAME)
                                .principal(new NamePrincipal(ServiceRole.user()))
                                .credential(new SimplePassword(ServiceRole.password())))));
    }

    /** Ends, server side, the backends the writer's pool holds; a role may end its own. Returns how many. */
    private int endWriterConnections() throws SQLException {
        try (Connection connection = ServiceRole.directConnection();
                PreparedStatement terminate = connection.prepareStatement("SELECT count(*) FILTER (WHERE"
                        + " pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = ?")) {
            terminate.setString(1, APPLICATION_NAME);
            try (ResultSet ended = terminate.executeQuery()) {
                assertTrue(ended.next());
                return ended.getInt(1);
            }
        }
    }

    private static double count(MeterRegistry registry, String result) {
        return registry.get(MetricNames.FASTPATH_WRITES).tag(MetricNames.TAG_RESULT, result).counter().count();
    }
}
