package io.deviceidentity.auth.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.math.BigInteger;
import java.security.cert.CertificateExpiredException;
import java.time.Duration;
import java.util.Optional;

import javax.net.ssl.SSLException;

import org.junit.jupiter.api.Test;

import io.deviceidentity.auth.support.PackagedAppOverTls;
import io.deviceidentity.testsupport.tls.TlsClient;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.restassured.RestAssured;

/**
 * The packaged auth-service with {@code IDENTITY_TLS_ENABLED=true}: its main port serves verifying clients that
 * trust its CA, and nothing else: a client trusting another CA, a plaintext client, a verifying client once the
 * certificate has expired. A re-issued certificate is served without a restart (reload period 1 s in this test; the
 * polls wait up to two minutes for it, so a busy machine only makes them slower).
 */
@QuarkusIntegrationTest
@WithTestResource(PackagedAppOverTls.class)
class ServedOverTlsIT {

    private static final Duration PATIENCE = Duration.ofMinutes(2);

    @Test
    void aClientTrustingTheLocalCaIsServed() throws Exception {
        TlsClient.Served served = firstHandshake();

        assertTrue(served.statusLine().startsWith("HTTP/1.1 "), served.statusLine());
        assertEquals(PackagedAppOverTls.ca.leaf("auth-service").getSerialNumber(),
                served.serverCertificate().getSerialNumber());
    }

    @Test
    void tls13AndTls12AreBothServedTls12WithForwardSecretAeadSuitesOnly() throws Exception {
        firstHandshake();
        for (String version : new String[] {"TLSv1.3", "TLSv1.2"}) {
            TlsClient.Served served = TlsClient.get(PackagedAppOverTls.ca.trustingClient(), port(), "/mqtt/authn",
                    offer -> offer.setProtocols(new String[] {version}));
            assertEquals(version, served.protocol());
            assertTrue(served.statusLine().startsWith("HTTP/1.1 "), served.statusLine());
        }
        // TLS 1.2 with a CBC suite (no AEAD) is refused at the handshake.
        assertThrows(SSLException.class, () -> TlsClient.get(PackagedAppOverTls.ca.trustingClient(), port(),
                "/mqtt/authn", offer -> {
                    offer.setProtocols(new String[] {"TLSv1.2"});
                    offer.setCipherSuites(new String[] {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256"});
                }));
    }

    @Test
    void aClientTrustingAnotherCaIsRefused() {
        assertThrows(SSLException.class,
                () -> TlsClient.get(PackagedAppOverTls.other.trustingClient(), port(), "/mqtt/authn"));
    }

    @Test
    void aPlaintextClientGetsNoAnswerFromTheTlsPort() throws IOException {
        assertEquals(Optional.empty(), TlsClient.plainGet(port(), "/mqtt/authn"));
    }

    @Test
    void aRenewedCertificateIsServedWithoutRestartAndAnExpiredOneIsRefused() throws Exception {
        BigInteger before = firstHandshake().serverCertificate().getSerialNumber();

        PackagedAppOverTls.ca.issue("auth-service");
        BigInteger renewed = PackagedAppOverTls.ca.leaf("auth-service").getSerialNumber();
        assertTrue(!renewed.equals(before), "local-ca.sh issued the same serial twice");
        await("the renewed certificate (serial " + renewed + ") to be served", () -> renewed.equals(servedSerial()));

        PackagedAppOverTls.ca.expired("auth-service");
        await("the expired certificate to be refused by a verifying client", this::refusedAsExpired);

        // Leave a valid certificate behind: the other suites of this resource share the running artifact.
        PackagedAppOverTls.ca.issue("auth-service");
        BigInteger restored = PackagedAppOverTls.ca.leaf("auth-service").getSerialNumber();
        await("a valid certificate to be served again", () -> restored.equals(servedSerial()));
    }

    /** The first handshake of a test: retried while a reload closes it ({@link TlsClient#getRetryingClosedConnections}). */
    private TlsClient.Served firstHandshake() throws IOException, InterruptedException {
        return TlsClient.getRetryingClosedConnections(PackagedAppOverTls.ca.trustingClient(), port(), "/mqtt/authn",
                Duration.ofSeconds(30));
    }

    private java.security.cert.X509Certificate served() throws IOException {
        return TlsClient.get(PackagedAppOverTls.ca.trustingClient(), port(), "/mqtt/authn").serverCertificate();
    }

    private BigInteger servedSerial() {
        try {
            return served().getSerialNumber();
        } catch (IOException e) {
            return null;
        }
    }

    private boolean refusedAsExpired() {
        try {
            served();
            return false;
        } catch (IOException e) {
            for (Throwable cause = e; cause != null; cause = cause.getCause()) {
                if (cause instanceof CertificateExpiredException) {
                    return true;
                }
            }
            return false;
        }
    }

    private static void await(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("waited " + PATIENCE + " for " + what);
            }
            Thread.sleep(200);
        }
    }

    private static int port() {
        return RestAssured.port;
    }
}
