package io.deviceidentity.registration.support;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import io.deviceidentity.testsupport.tls.LocalCa;
import io.deviceidentity.testsupport.tls.ServedOverTls;

/**
 * {@link PackagedAppOnTestStack} with HTTPS on the main port, as the chart runs it: a certificate from a CA of the
 * test's own (scripts/local-ca.sh), RestAssured trusting it, so that a suite written for the API runs over TLS.
 */
public class PackagedAppOverTls extends PackagedAppOnTestStack {

    @Override
    public Map<String, String> start() {
        LocalCa ca = LocalCa.in(Path.of("target", "tls-it", "ca").toAbsolutePath());
        Map<String, String> properties = new HashMap<>(super.start());
        properties.putAll(ServedOverTls.settings(ca, "registration-service"));
        return properties;
    }

    @Override
    public void stop() {
        super.stop();
        ServedOverTls.forget();
    }
}
