package io.deviceidentity.qos2probe.registration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;

import io.deviceidentity.testsupport.tls.LocalCa;

/**
 * The probe registers its devices with an HTTPS registration-service whose certificate chains to the CA of
 * {@code --register-ca-file} (the release's CA in the Job), trusting that CA only and checking the host name, with no
 * trust store prepared for the JVM. A real JDK HTTPS server on loopback with a leaf of scripts/local-ca.sh's CA;
 * when the probe cannot verify it, the handshake fails and no request reaches it.
 */
@Timeout(60)
class RegistrationOverHttpsTest {

    private static final String TOKEN = "registration-bearer-token";

    @TempDir
    Path dir;
    private LocalCa ca;
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final List<HttpsServer> servers = new CopyOnWriteArrayList<>();

    @BeforeEach
    void makeTheCa() {
        ca = LocalCa.in(dir.resolve("ca")).issue("registration-service");
    }

    @AfterEach
    void stop() {
        servers.forEach(server -> server.stop(0));
    }

    @Test
    void devicesAreRegisteredAndRevokedOverHttpsTrustingTheGivenCa() throws Exception {
        DeviceRegistrar registrar = new DeviceRegistrar(devicesUrl("127.0.0.1"), TOKEN, Duration.ofSeconds(30),
                ca.caCertificate());
        registrar.register("probe-1", "a-random-password-of-the-run", List.of());
        registrar.revoke("probe-1");
        assertEquals(List.of("PUT /v1/devices/probe-1 Bearer " + TOKEN, "DELETE /v1/devices/probe-1 Bearer " + TOKEN),
                requests);
    }

    @Test
    void aServerOfAnotherCaIsRefusedWithAClearErrorAndNeverSentTheRequest() throws Exception {
        LocalCa other = LocalCa.in(dir.resolve("other"));
        DeviceRegistrar registrar = new DeviceRegistrar(devicesUrl("127.0.0.1"), TOKEN, Duration.ofSeconds(30),
                other.caCertificate());
        IOException refused = assertThrows(IOException.class,
                () -> registrar.register("probe-1", "a-random-password-of-the-run", List.of()));
        assertTrue(refused.getMessage().contains("TLS handshake refused"), refused.getMessage());
        assertTrue(refused.getMessage().contains("--register-ca-file " + other.caCertificate()), refused.getMessage());
        assertFalse(refused.getMessage().contains(TOKEN), "the token is in the message: " + refused.getMessage());
        assertFalse(refused.getMessage().contains("a-random-password"), refused.getMessage());
        assertEquals(List.of(), requests);
    }

    @Test
    void withoutACaFileTheJvmsTrustStoreDoesNotTrustTheReleasesCa() throws Exception {
        DeviceRegistrar registrar = new DeviceRegistrar(devicesUrl("127.0.0.1"), TOKEN, Duration.ofSeconds(30), null);
        IOException refused = assertThrows(IOException.class, () -> registrar.revoke("probe-1"));
        assertTrue(refused.getMessage().contains("the JVM's trust store"), refused.getMessage());
        assertEquals(List.of(), requests);
    }

    @Test
    void aCertificateThatDoesNotNameTheHostIsRefused() throws Exception {
        // local-ca.sh's leaves name localhost and 127.0.0.1; 127.0.0.2 is a loopback address they do not carry.
        DeviceRegistrar registrar = new DeviceRegistrar(devicesUrl("127.0.0.2"), TOKEN, Duration.ofSeconds(30),
                ca.caCertificate());
        assertThrows(IOException.class, () -> registrar.revoke("probe-1"));
        assertEquals(List.of(), requests);
    }

    @Test
    void aFileWithoutACertificateIsRefusedBeforeAnyConnection() throws Exception {
        Path notPem = Files.writeString(dir.resolve("ca.crt"), "not a certificate\n");
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> new DeviceRegistrar(URI.create("https://127.0.0.1:1/v1/devices"), TOKEN, Duration.ofSeconds(1),
                        notPem));
        assertTrue(refused.getMessage().contains(notPem.toString()), refused.getMessage());
    }

    /** An HTTPS registration API on {@code host} presenting the CA's registration-service leaf. */
    private URI devicesUrl(String host) throws IOException {
        HttpsServer server = HttpsServer.create(new InetSocketAddress(host, 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(ca.serving("registration-service")));
        server.createContext("/v1/devices/", exchange -> {
            requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath() + " "
                    + exchange.getRequestHeaders().getFirst("authorization"));
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(exchange.getRequestMethod().equals("PUT") ? 201 : 204, -1);
            exchange.close();
        });
        server.start();
        servers.add(server);
        return URI.create("https://" + host + ":" + server.getAddress().getPort() + "/v1/devices");
    }
}
