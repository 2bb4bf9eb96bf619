package io.deviceidentity.testsupport.tls;

import java.util.HashMap;
import java.util.Map;

import io.restassured.RestAssured;

/**
 * The settings a packaged service gets to serve HTTPS as the chart runs it ({@code identity.tls.*}), with a
 * certificate {@code ca} signs for it, re-read every second so that a test can renew it; and RestAssured trusting
 * that CA, so that a suite written for the main port runs over TLS unchanged (Quarkus points RestAssured at
 * {@code https://} when the artifact says it listens there). {@link #forget()} when the service stops.
 */
public final class ServedOverTls {

    private ServedOverTls() {
    }

    public static Map<String, String> settings(LocalCa ca, String service) {
        ca.issue(service);
        RestAssured.trustStore(ca.trustStore());
        Map<String, String> settings = new HashMap<>();
        settings.put("identity.tls.enabled", "true");
        settings.put("identity.tls.cert-file", ca.certificate(service).toString());
        settings.put("identity.tls.key-file", ca.key(service).toString());
        settings.put("identity.tls.reload-period", "1s");
        return settings;
    }

    public static void forget() {
        RestAssured.reset();
    }
}
