package io.deviceidentity.auth.support;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import io.deviceidentity.testsupport.tls.LocalCa;
import io.restassured.RestAssured;

/**
 * {@link PackagedAppOnTestStack} with HTTPS on the main port, as the chart runs it: a server certificate from a CA of
 * the test's own (scripts/local-ca.sh, as {@code make up}), re-read every second so that a test can renew it, and
 * RestAssured trusting that CA (Quarkus points RestAssured at {@code https://} when the artifact says it listens
 * there), so that existing suites run over TLS unchanged. Init arg {@code client-auth=required} adds mutual TLS
 * with EMQX's client certificate from the same CA. A second CA ({@link #OTHER}) signs what must be refused.
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
        ca = LocalCa.in(root.resolve("ca")).issue("auth-service").issue("emqx-client");
        other = LocalCa.in(root.resolve("other")).issue("auth-service").issue("emqx-client");
        RestAssured.trustStore(ca.trustStore());
        Map<String, String> properties = new HashMap<>(super.start());
        properties.put("identity.tls.enabled", "true");
        properties.put("identity.tls.cert-file", ca.certificate("auth-service").toString());
        properties.put("identity.tls.key-file", ca.key("auth-service").toString());
        properties.put("identity.tls.reload-period", "1s");
        properties.put("identity.tls.client-auth", clientAuth);
        properties.put("identity.tls.client-ca-file", ca.caCertificate().toString());
        return properties;
    }

    @Override
    public void stop() {
        RestAssured.reset();
    }
}
