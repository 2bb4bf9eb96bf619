package io.deviceidentity.auth.authn;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The benchmark measures what it names: assembled from the default configuration, the retry is refused 503 overload
 * with the service's body, and the refusal never reaches a collaborator it must not (each is absent: it would throw).
 */
class RefusalPathBenchmarkTest {

    private final RefusalPathBenchmark benchmark = new RefusalPathBenchmark();

    @AfterEach
    void stop() {
        benchmark.stop();
    }

    @Test
    void aRetryOfADeviceThatNeedsBcryptIsAnsweredOverloadWithoutTheDatabase() throws Exception {
        benchmark.assemble();

        for (int i = 0; i < 1000; i++) {
            String body = new String(benchmark.retryRefusedBeforeItsDatabaseRead(), StandardCharsets.UTF_8);
            assertTrue(body.startsWith("{\"reason\":\"overload\""), body);
        }
    }
}
