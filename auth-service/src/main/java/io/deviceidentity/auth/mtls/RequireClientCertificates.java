package io.deviceidentity.auth.mtls;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.deviceidentity.tls.TlsConfig;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.vertx.http.HttpServerOptionsCustomizer;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServerOptions;

/**
 * Makes the HTTPS listener demand a client certificate when {@code identity.tls.client-auth=required}. Quarkus's own
 * switch for this ({@code quarkus.http.ssl.client-auth}) is fixed at build time; this customizer runs when the
 * server starts, so one artifact serves either way. Vert.x keeps the listener's client-auth setting when a
 * certificate reload replaces the SSL options (TCPServerBase.updateSSLOptions keeps its SSLHelper), and the trust
 * store is part of the reloaded TLS configuration, so mutual TLS survives a rotation (MutualTlsIT checks it).
 */
@ApplicationScoped
public class RequireClientCertificates implements HttpServerOptionsCustomizer {

    private final TlsConfig tls;
    private final MutualTlsConfig mutualTls;

    RequireClientCertificates(TlsConfig tls, MutualTlsConfig mutualTls) {
        this.tls = tls;
        this.mutualTls = mutualTls;
    }

    /** Refuses to start with mutual TLS asked for but impossible: never a silently plain or unchecked listener. */
    void refuseInconsistentSettings(@Observes StartupEvent event) {
        required();
    }

    @Override
    public void customizeHttpsServer(HttpServerOptions options) {
        if (required()) {
            options.setClientAuth(ClientAuth.REQUIRED);
        }
    }

    private boolean required() {
        if (mutualTls.clientAuth() != MutualTlsConfig.ClientAuthentication.REQUIRED) {
            return false;
        }
        if (!tls.enabled()) {
            throw new IllegalStateException("IDENTITY_TLS_CLIENT_AUTH=required needs IDENTITY_TLS_ENABLED=true");
        }
        if (mutualTls.clientCaFile().isEmpty()) {
            throw new IllegalStateException(
                    "IDENTITY_TLS_CLIENT_AUTH=required needs IDENTITY_TLS_CLIENT_CA_FILE (the PEM CA of EMQX's client certificate)");
        }
        return true;
    }
}
