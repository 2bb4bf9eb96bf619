package io.deviceidentity.registration.kicks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;

import io.deviceidentity.registration.support.FakeEmqx;
import io.deviceidentity.testsupport.tls.LocalCa;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.junit.QuarkusTestProfile;

/**
 * The application with an EMQX API configured as the chart configures it: a FakeEmqx over HTTPS, with a certificate of
 * a local CA that the service is given as {@code identity.kicks.emqx-api-ca-file}, started before it (one per
 * application start), the worker polling often and retrying after short waits so that the tests need not wait long on the real clock.
 */
public class EmqxApiConfigured implements QuarkusTestProfile {

    static volatile FakeEmqx emqx;

    @Override
    public List<TestResourceEntry> testResources() {
        return List.of(new TestResourceEntry(Broker.class));
    }

    public static class Broker implements QuarkusTestResourceLifecycleManager {
        @Override
        public Map<String, String> start() {
            LocalCa ca;
            try {
                ca = LocalCa.in(Files.createTempDirectory("emqx-api-ca-")).issue("emqx");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            emqx = new FakeEmqx("registration-kicks", "kick-secret-0123456789", ca.serving("emqx"));
            return Map.of("identity.kicks.emqx-api-url", emqx.url(),
                    "identity.kicks.emqx-api-ca-file", ca.caCertificate().toString(),
                    "identity.kicks.emqx-api-key", "registration-kicks",
                    "identity.kicks.emqx-api-secret", "kick-secret-0123456789",
                    "identity.kicks.poll-interval", "200ms",
                    "identity.kicks.retry-initial", "100ms",
                    "identity.kicks.retry-max", "200ms");
        }

        @Override
        public void stop() {
            emqx.close();
        }
    }
}
