package io.deviceidentity.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

/** What {@code identity.tls.*} becomes in Quarkus's own keys (the running services are tested by the TLS ITs). */
class ServerTlsSettingsTest {

    private static Map<String, String> settings(Map<String, String> identity) {
        return ServerTlsSettings.properties(key -> Optional.ofNullable(identity.get(key)));
    }

    @Test
    void offSetsNothingSoThePlainListenerStays() {
        assertEquals(Map.of(), settings(Map.of()));
        assertEquals(Map.of(), settings(Map.of("identity.tls.enabled", "false", "identity.tls.cert-file", "/c")));
    }

    @Test
    void onMakesTheMainPortHttpsOnlyFromTheReloadedPemPair() {
        Map<String, String> quarkus = settings(Map.of("identity.tls.enabled", "true",
                "identity.tls.cert-file", "/tls/tls.crt", "identity.tls.key-file", "/tls/tls.key",
                "identity.tls.reload-period", "30s"));

        assertEquals("/tls/tls.crt", quarkus.get("quarkus.tls.identity.key-store.pem.server.cert"));
        assertEquals("/tls/tls.key", quarkus.get("quarkus.tls.identity.key-store.pem.server.key"));
        assertFalse(quarkus.containsKey("quarkus.tls.identity.reload-period"),
                "Quarkus would swap the certificate every period, changed or not: CertificateReload does it on change");
        assertEquals("identity", quarkus.get("quarkus.http.tls-configuration-name"));
        assertEquals("disabled", quarkus.get("quarkus.http.insecure-requests"));
        assertEquals("${quarkus.http.port}", quarkus.get("quarkus.http.ssl-port"));
        assertFalse(quarkus.containsKey("quarkus.tls.identity.trust-store.pem.certs"));
    }

    @Test
    void tls12AndTls13AreAcceptedTls12WithForwardSecretAeadSuitesOnly() {
        Map<String, String> quarkus = settings(Map.of("identity.tls.enabled", "true",
                "identity.tls.cert-file", "/c", "identity.tls.key-file", "/k"));

        assertEquals("TLSv1.3,TLSv1.2", quarkus.get("quarkus.tls.identity.protocols"));
        for (String suite : quarkus.get("quarkus.tls.identity.cipher-suites").split(",")) {
            assertTrue(suite.matches("TLS_(AES|CHACHA20)_.*|TLS_ECDHE_(ECDSA|RSA)_WITH_(AES_\\d+_GCM|CHACHA20_POLY1305)_SHA\\d+"),
                    suite);
        }
    }

    @Test
    void aClientCaBecomesTheTrustStore() {
        Map<String, String> quarkus = settings(Map.of("identity.tls.enabled", "true",
                "identity.tls.cert-file", "/c", "identity.tls.key-file", "/k", "identity.tls.client-ca-file", "/ca"));

        assertEquals("/ca", quarkus.get("quarkus.tls.identity.trust-store.pem.certs"));
    }

    @Test
    void onWithoutACertificateOrKeyRefusesNamingTheVariable() {
        IllegalArgumentException noCert = assertThrows(IllegalArgumentException.class,
                () -> settings(Map.of("identity.tls.enabled", "true", "identity.tls.key-file", "/k")));
        assertTrue(noCert.getMessage().contains("IDENTITY_TLS_CERT_FILE"), noCert.getMessage());
        IllegalArgumentException noKey = assertThrows(IllegalArgumentException.class,
                () -> settings(Map.of("identity.tls.enabled", "true", "identity.tls.cert-file", "/c")));
        assertTrue(noKey.getMessage().contains("IDENTITY_TLS_KEY_FILE"), noKey.getMessage());
    }
}
