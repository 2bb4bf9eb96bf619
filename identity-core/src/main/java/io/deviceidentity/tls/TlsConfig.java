package io.deviceidentity.tls;

import java.time.Duration;
import java.util.Optional;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * HTTPS on the service's main port. The keys are read twice: here, typed, so that a service documents and validates
 * them, and by {@link ServerTlsSettings} while the configuration is built, which turns them into Quarkus's own TLS
 * registry and HTTP keys (a conditional Quarkus properties cannot express).
 */
@ConfigMapping(prefix = "identity.tls")
public interface TlsConfig {

    /**
     * {@code true}: the main port (AUTH_PORT / REGISTRATION_PORT) speaks HTTPS only; a plain HTTP client gets no
     * answer. {@code false}: plain HTTP, for a mesh that encrypts the hop itself (the chart turns it on by default).
     */
    @WithDefault("false")
    boolean enabled();

    /** PEM server certificate (leaf first, then its chain); required while enabled. */
    Optional<String> certFile();

    /** PEM private key of {@link #certFile()}; required while enabled. */
    Optional<String> keyFile();

    /**
     * How often the certificate and key files are read again; a changed pair is served to new connections without a
     * restart (cert-manager renews the Secret in place). An unchanged pair is never swapped ({@link CertificateReload}).
     */
    @WithDefault("1m")
    Duration reloadPeriod();
}
