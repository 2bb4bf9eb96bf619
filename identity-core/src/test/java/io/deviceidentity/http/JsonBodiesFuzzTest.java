package io.deviceidentity.http;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.Set;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Any bytes are either one JSON object or a 400 with one of the documented reasons and a short message; nothing
 * else escapes (no Jackson exception, no stack-overflow on deep nesting, no unbounded message). Regression inputs
 * in {@code src/test/resources/io/deviceidentity/http/JsonBodiesFuzzTestInputs/object/}; {@code make fuzz} mutates.
 */
class JsonBodiesFuzzTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    static final Set<String> REASONS = Set.of("malformed_json", "duplicate_field");

    @FuzzTest(maxDuration = "30s")
    void object(byte[] body) {
        try {
            assertNotNull(JsonBodies.object(JSON, body));
        } catch (InvalidRequestException refused) {
            FuzzAssertions.wellFormedRefusal(refused, REASONS);
        }
    }
}
