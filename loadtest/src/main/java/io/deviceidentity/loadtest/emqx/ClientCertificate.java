package io.deviceidentity.loadtest.emqx;

import java.nio.file.Path;
import java.util.Objects;

import io.vertx.core.Vertx;
import io.vertx.core.net.PemKeyCertOptions;

/**
 * The certificate the load generator presents to an {@code https} auth-service that requires one (mutual TLS, the
 * chart's {@code emqx.clientCertificate}): PEM files as EMQX's authenticator has them in {@code ssl.certfile} and
 * {@code ssl.keyfile}, e.g. tls.crt and tls.key of the Secret cert-manager writes for EMQX's client certificate.
 * Vert.x reads the key as PKCS #8 ({@code BEGIN PRIVATE KEY}, local-ca.sh's) or SEC1 ({@code BEGIN EC PRIVATE KEY},
 * cert-manager's default encoding for an ECDSA key) or PKCS #1 RSA.
 */
public record ClientCertificate(Path certificate, Path key) {

    public ClientCertificate {
        Objects.requireNonNull(certificate, "certificate");
        Objects.requireNonNull(key, "key");
    }

    /** What the transport hands Vert.x's HTTP client ({@code HttpClientOptions.setKeyCertOptions}). */
    PemKeyCertOptions options() {
        return new PemKeyCertOptions().setCertPath(certificate.toString()).setKeyPath(key.toString());
    }

    /**
     * Loads the pair as the transport will, so that an unusable file stops the run before it starts rather than
     * failing every connection. The message names the files, never their content.
     *
     * @throws IllegalArgumentException when Vert.x cannot read the certificate or the key
     */
    public void load(Vertx vertx) {
        try {
            options().getKeyManagerFactory(vertx);
        } catch (Exception e) {
            // Vert.x's own messages name the PEM delimiters it expected; key bytes never go into an exception.
            throw new IllegalArgumentException("--client-cert " + certificate + " / --client-key " + key
                    + " is not a PEM certificate and private key Vert.x can use: " + e.getMessage(), e);
        }
    }
}
