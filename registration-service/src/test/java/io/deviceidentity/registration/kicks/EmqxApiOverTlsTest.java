package io.deviceidentity.registration.kicks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deviceidentity.registration.support.FakeEmqx;
import io.deviceidentity.testsupport.tls.LocalCa;

/**
 * The kick hop over HTTPS (docs/security.md "Encryption hop by hop"): EMQX's API answers on TLS with a certificate of
 * the local CA (scripts/local-ca.sh, as {@code make up}'s), and the kick is sent only to a server that proves it.
 */
class EmqxApiOverTlsTest {

    /** Room for a cold JVM's first handshake on a busy machine; no test here waits for it to pass. */
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private LocalCa ca;
    private FakeEmqx emqx;

    @BeforeEach
    void start() {
        ca = LocalCa.in(dir.resolve("ca")).issue("emqx");
        emqx = new FakeEmqx("kick-key", "kick-secret", ca.serving("emqx"));
    }

    @AfterEach
    void stop() {
        emqx.close();
    }

    private EmqxClientsApi api(Path caFile) {
        return new EmqxClientsApi(emqx.url(), "kick-key", "kick-secret", TIMEOUT, Optional.of(caFile));
    }

    @Test
    void aServerWhoseCertificateChainsToTheCaFileIsKicked() {
        emqx.connect("dev-1");
        assertEquals(KickResult.KICKED, api(ca.caCertificate()).kick("dev-1").join());
        assertEquals(List.of(new FakeEmqx.Call("DELETE", "/api/v5/clients/dev-1", "dev-1", 204)), emqx.calls());
    }

    @Test
    void aServerOfAnotherCaIsATlsFailureAndNeverSeesTheKeyNorTheKick() {
        LocalCa other = LocalCa.in(dir.resolve("other"));
        emqx.connect("dev-2");
        assertEquals(KickResult.failed("tls"), api(other.caCertificate()).kick("dev-2").join());
        assertTrue(emqx.calls().isEmpty(), "the handshake failed before any request was sent");
        assertTrue(emqx.isConnected("dev-2"));
    }

    @Test
    void withoutACaFileTheJvmTrustStoreDoesNotTrustAPrivateCa() {
        EmqxClientsApi jvmTrust = new EmqxClientsApi(emqx.url(), "kick-key", "kick-secret", TIMEOUT, Optional.empty());
        emqx.connect("dev-3");
        assertEquals(KickResult.failed("tls"), jvmTrust.kick("dev-3").join());
        assertTrue(emqx.isConnected("dev-3"));
    }

    @Test
    void aRenewedCaFileIsTrustedAtTheNextKickWithoutARestart() throws IOException {
        LocalCa other = LocalCa.in(dir.resolve("other"));
        Path mounted = dir.resolve("mounted-ca.crt");
        Files.copy(other.caCertificate(), mounted);
        EmqxClientsApi api = api(mounted);
        emqx.connect("dev-4");
        assertEquals(KickResult.failed("tls"), api.kick("dev-4").join());

        // cert-manager re-issued the Secret's ca.crt: the kubelet swaps the mounted file's content.
        Files.copy(ca.caCertificate(), mounted, StandardCopyOption.REPLACE_EXISTING);
        assertEquals(KickResult.KICKED, api.kick("dev-4").join());
    }

    @Test
    void aCaFileWithAPlainHttpUrlIsRefusedAtStartBecauseTheKeyWouldCrossInClear() {
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> new EmqxClientsApi("http://127.0.0.1:" + emqx.port(), "kick-key", "kick-secret", TIMEOUT,
                        Optional.of(ca.caCertificate())));
        assertTrue(refused.getMessage().contains("emqx-api-ca-file"), refused.getMessage());
        assertFalse(refused.getMessage().contains("kick-secret"));
    }

    @Test
    void aMissingOrEmptyCaFileIsRefusedAtStartNotAtTheFirstKick() throws IOException {
        assertThrows(IllegalStateException.class, () -> api(dir.resolve("absent.crt")));
        Path empty = Files.writeString(dir.resolve("empty.crt"), "");
        assertThrows(IllegalStateException.class, () -> api(empty));
    }

    @Test
    void aSecretPutIntoTheUrlIsNeverShownInTheLogOrAStartRefusal() {
        assertEquals("https://emqx.mqtt.svc:18084/base", EmqxClientsApi.shown("https://key:hunter2@emqx.mqtt.svc:18084/base?x=hunter2"));
        assertEquals("https://emqx:18084", EmqxClientsApi.shown("https://emqx:18084"));
        // A value the URL parser refuses is neither shown nor quoted in the start-up failure: its own message would.
        String malformed = "https://key:hunter 2@emqx:18084";
        assertEquals(EmqxClientsApi.NOT_A_URL, EmqxClientsApi.shown(malformed));
        IllegalStateException notAUrl = assertThrows(IllegalStateException.class,
                () -> new EmqxClientsApi(malformed, "key", "secret", java.time.Duration.ofSeconds(1)));
        assertFalse(notAUrl.getMessage().contains("hunter"), notAUrl.getMessage());
        assertNull(notAUrl.getCause());
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> new EmqxClientsApi("http://key:hunter2@127.0.0.1:" + emqx.port(), "kick-key", "kick-secret",
                        TIMEOUT, Optional.of(ca.caCertificate())));
        assertFalse(refused.getMessage().contains("hunter2"), refused.getMessage());
        IllegalStateException scheme = assertThrows(IllegalStateException.class,
                () -> new EmqxClientsApi("ftp://key:hunter2@127.0.0.1:1", "kick-key", "kick-secret", TIMEOUT,
                        Optional.empty()));
        assertFalse(scheme.getMessage().contains("hunter2"), scheme.getMessage());
    }

    @Test
    void aUrlThatIsNeitherHttpNorHttpsIsRefusedAtStart() {
        assertThrows(IllegalStateException.class,
                () -> new EmqxClientsApi("ftp://127.0.0.1:1", "kick-key", "kick-secret", TIMEOUT, Optional.empty()));
    }
}
