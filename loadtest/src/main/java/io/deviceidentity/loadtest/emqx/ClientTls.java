package io.deviceidentity.loadtest.emqx;

import java.net.URI;
import java.nio.file.Path;
import java.util.Optional;

/**
 * How an {@code https} authn URL is spoken: trusted against the PEM CA in {@code caFile} ({@code --ca-file}, e.g. the
 * local stack's {@code STACK_DIR/tls/ca.crt} or the chart's CA Secret mounted into a Job), or the JVM's own trust
 * store when absent; and presenting {@code certificate} ({@code --client-cert}, {@code --client-key}) when the service
 * requires a client certificate. EMQX's equivalents are the authenticator's {@code ssl.cacertfile}, {@code certfile}
 * and {@code keyfile}.
 */
public record ClientTls(Optional<Path> caFile, Optional<ClientCertificate> certificate) {

    public static final ClientTls JVM_TRUST = new ClientTls(Optional.empty(), Optional.empty());

    public ClientTls {
        caFile = caFile == null ? Optional.empty() : caFile;
        certificate = certificate == null ? Optional.empty() : certificate;
    }

    /** Trusting {@code caFile}, presenting no certificate. */
    public ClientTls(Optional<Path> caFile) {
        this(caFile, Optional.empty());
    }

    static boolean isHttps(URI url) {
        return "https".equalsIgnoreCase(url.getScheme());
    }
}
