package io.deviceidentity.auth.mtls;

import java.util.Optional;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * Mutual TLS from EMQX: whether auth-service demands a client certificate at the handshake, and the CA it must chain
 * to. Only with {@code identity.tls.enabled=true} (identity-core TlsConfig); the CA file becomes the TLS registry's
 * trust store (identity-core ServerTlsSettings), so that a certificate reload keeps it.
 */
@ConfigMapping(prefix = "identity.tls")
public interface MutualTlsConfig {

    /**
     * {@code required}: a TLS client without a certificate signed by {@link #clientCaFile()} is refused at the
     * handshake, before any HTTP is read. {@code none}: server authentication only.
     */
    @WithDefault("none")
    ClientAuthentication clientAuth();

    /** PEM CA (bundle) that client certificates must chain to; required with {@code client-auth=required}. */
    Optional<String> clientCaFile();

    enum ClientAuthentication {
        NONE, REQUIRED
    }
}
