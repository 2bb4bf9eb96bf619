package io.deviceidentity.auth.mtls;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;

import org.junit.jupiter.api.Test;

import io.deviceidentity.auth.support.PackagedAppOverTls;
import io.deviceidentity.testsupport.tls.TlsClient;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.restassured.RestAssured;

/**
 * The packaged auth-service with {@code IDENTITY_TLS_CLIENT_AUTH=required}: only a client presenting a certificate
 * from {@code IDENTITY_TLS_CLIENT_CA_FILE} gets an answer; one without a certificate, or with a certificate from
 * another CA, is refused at the handshake (the refusal shows on the first read under TLS 1.3).
 */
@QuarkusIntegrationTest
@WithTestResource(value = PackagedAppOverTls.class, initArgs = @ResourceArg(name = "client-auth", value = "required"))
class MutualTlsIT {

    @Test
    void aClientCertificateFromTheClientCaIsServed() throws IOException, InterruptedException {
        TlsClient.Served served = TlsClient.getRetryingClosedConnections(
                PackagedAppOverTls.ca.trustingClientWithCertificate(PackagedAppOverTls.ca, "emqx-client"),
                RestAssured.port, "/mqtt/authn", java.time.Duration.ofSeconds(30));

        assertTrue(served.statusLine().startsWith("HTTP/1.1 "), served.statusLine());
    }

    @Test
    void aClientWithoutACertificateIsRefused() {
        assertThrows(IOException.class,
                () -> TlsClient.get(PackagedAppOverTls.ca.trustingClient(), RestAssured.port, "/mqtt/authn"));
    }

    @Test
    void aClientCertificateFromAnotherCaIsRefused() {
        assertThrows(IOException.class, () -> TlsClient.get(
                PackagedAppOverTls.ca.trustingClientWithCertificate(PackagedAppOverTls.other, "emqx-client"),
                RestAssured.port, "/mqtt/authn"));
    }
}
