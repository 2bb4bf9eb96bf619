package io.deviceidentity.loadtest.emqx;

import java.net.URI;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What an {@code https} authn URL is trusted against: the PEM CA in {@code caFile} ({@code --ca-file}, e.g. the local
 * stack's {@code STACK_DIR/tls/ca.crt} or the chart's CA Secret mounted into a Job), or the JVM's own trust store
 * when absent. EMQX's equivalent is the authenticator's {@code ssl.cacertfile}.
 */
public record ClientTls(Optional<Path> caFile) {

    public static final ClientTls JVM_TRUST = new ClientTls(Optional.empty());

    public ClientTls {
        caFile = caFile == null ? Optional.empty() : caFile;
    }

    static boolean isHttps(URI url) {
        return "https".equalsIgnoreCase(url.getScheme());
    }
}
