package io.deviceidentity.tls;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.eclipse.microprofile.config.spi.ConfigSource;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.PropertiesConfigSource;

/**
 * Turns {@code identity.tls.*} ({@link TlsConfig}) into the Quarkus keys that make the main port HTTPS-only, at run
 * time (every key set here is a run-time key of Quarkus 3.33: the TLS registry's {@code quarkus.tls.*},
 * {@code quarkus.http.ssl-port}, {@code insecure-requests} and {@code tls-configuration-name}), so that one built
 * artifact (JAR or native) serves either way.
 *
 * <p>While enabled: the TLS configuration named {@value #NAME} holds the PEM pair ({@link CertificateReload} reloads
 * it when the files change); the HTTPS
 * port is the main port; {@code insecure-requests=disabled} keeps Quarkus from opening the plain HTTP listener at
 * all. A PEM CA in {@code identity.tls.client-ca-file} becomes the configuration's trust store, the CA client
 * certificates are checked against (auth-service's mutual TLS asks for them); being part of the registry
 * configuration, it survives a certificate reload, which replaces the server's whole SSL options. The accepted
 * versions and suites ({@link #PROTOCOLS}, {@link #CIPHER_SUITES}) are set here too; an operator may override them
 * with {@code QUARKUS_TLS_IDENTITY_PROTOCOLS} / {@code QUARKUS_TLS_IDENTITY_CIPHER_SUITES}.
 *
 * <p>Registered through {@code META-INF/services/io.smallrye.config.ConfigSourceFactory}. Its ordinal is below
 * application.properties (250), so an explicit {@code quarkus.*} setting still wins.
 */
public class ServerTlsSettings implements ConfigSourceFactory {

    /** The TLS registry configuration both services' main port uses (never the default one, which the management
     * interface and outgoing clients would pick up). */
    public static final String NAME = "identity";

    static final int ORDINAL = 200;

    /**
     * TLS 1.3 and 1.2, what EMQX 5.8's HTTP authenticator offers by default ({@code ssl.versions}: the available
     * versions minus tlsv1.1 and tlsv1, {@code emqx_schema:default_tls_vsns/1}); Quarkus alone would accept 1.3 only,
     * which refuses an EMQX (or a proxy, or a provisioning client) pinned to 1.2. Both negotiate 1.3 when they can.
     */
    static final String PROTOCOLS = "TLSv1.3,TLSv1.2";

    /**
     * The TLS 1.3 suites (all AEAD), and for TLS 1.2 only ECDHE with AEAD: forward secrecy, no CBC, no RSA key
     * exchange. EMQX's default ciphers include these for either key type of the certificate (ECDSA, RSA).
     */
    static final String CIPHER_SUITES = String.join(",",
            "TLS_AES_256_GCM_SHA384", "TLS_AES_128_GCM_SHA256", "TLS_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
            "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256");

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        return List.of(new PropertiesConfigSource(properties(key -> value(context, key)), "identity.tls", ORDINAL));
    }

    /** The Quarkus keys for the given {@code identity.tls.*} values; empty while TLS is off. */
    static Map<String, String> properties(java.util.function.Function<String, Optional<String>> config) {
        Map<String, String> properties = new HashMap<>();
        if (!Boolean.parseBoolean(config.apply("identity.tls.enabled").orElse("false").strip())) {
            return properties;
        }
        String cert = config.apply("identity.tls.cert-file").orElseThrow(() -> missing("IDENTITY_TLS_CERT_FILE"));
        String key = config.apply("identity.tls.key-file").orElseThrow(() -> missing("IDENTITY_TLS_KEY_FILE"));
        String prefix = "quarkus.tls." + NAME + ".";
        properties.put(prefix + "key-store.pem.server.cert", cert);
        properties.put(prefix + "key-store.pem.server.key", key);
        properties.put(prefix + "protocols", PROTOCOLS);
        properties.put(prefix + "cipher-suites", CIPHER_SUITES);
        // No quarkus.tls.<name>.reload-period: CertificateReload reloads, and only when the files changed.
        config.apply("identity.tls.client-ca-file")
                .ifPresent(ca -> properties.put(prefix + "trust-store.pem.certs", ca));
        properties.put("quarkus.http.tls-configuration-name", NAME);
        properties.put("quarkus.http.insecure-requests", "disabled");
        // The main port's number does not change with TLS: EMQX, probes and the chart keep their port.
        properties.put("quarkus.http.ssl-port", "${quarkus.http.port}");
        properties.put("quarkus.http.test-ssl-port", "${quarkus.http.test-port:0}");
        return properties;
    }

    private static IllegalArgumentException missing(String env) {
        return new IllegalArgumentException("IDENTITY_TLS_ENABLED=true needs " + env
                + " (PEM file); set it, or IDENTITY_TLS_ENABLED=false to serve plain HTTP (docs/security.md)");
    }

    private static Optional<String> value(ConfigSourceContext context, String key) {
        ConfigValue value = context.getValue(key);
        return value == null || value.getValue() == null || value.getValue().isBlank()
                ? Optional.empty() : Optional.of(value.getValue());
    }
}
