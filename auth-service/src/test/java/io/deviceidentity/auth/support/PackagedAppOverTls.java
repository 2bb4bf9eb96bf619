package io.deviceidentity.auth.support;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import io.deviceidentity.testsupport.tls.LocalCa;
import io.deviceidentity.testsupport.tls.ServedOverTls;

/**
 * {@link PackagedAppOnTestStack} with HTTPS on the main port, as the chart runs it: a server certificate from a CA of
 * the test's own (scripts/local-ca.sh, as {@code make up}), and RestAssured trusting it (test-support
 * {@link ServedOverTls}), so that existing suites run over TLS unchanged. Init arg {@code client-auth=required} adds
 * mutual TLS with EMQX's client certificate from the same CA. A second CA ({@link #other}) signs what must be refused.
 */
public class PackagedAppOverTls extends PackagedAppOnTestStack {

    /** The CA the service's certificate and the accepted client certificate come from. */
    public static volatile LocalCa ca;
    /** A CA the service knows nothing of. */
    public static volatile LocalCa other;

    private String clientAuth = "none";

    @Override
    public void init(Map<String, String> initArgs) {
        clientAuth = initArgs.getOrDefault("client-auth", "none");
    }

    @Override
    public Map<String, String> start() {
        Path root = Path.of("target", "tls-it", clientAuth).toAbsolutePath();
        ca = LocalCa.in(root.resolve("ca")).issue("emqx-client");
        other = LocalCa.in(root.resolve("other")).issue("auth-service").issue("emqx-client");
        Map<String, String> properties = new HashMap<>(super.start());
        properties.putAll(ServedOverTls.settings(ca, "auth-service"));
        properties.put("identity.tls.client-auth", clientAuth);
        properties.put("identity.tls.client-ca-file", ca.caCertificate().toString());
        return properties;
    }

    @Override
    public void stop() {
        super.stop();
        ServedOverTls.forget();
    }
}
