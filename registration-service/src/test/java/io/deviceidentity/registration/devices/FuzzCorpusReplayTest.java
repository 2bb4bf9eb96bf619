package io.deviceidentity.registration.devices;

import static io.deviceidentity.registration.support.Devices.api;
import static io.deviceidentity.registration.support.Devices.uniquePrefix;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import io.deviceidentity.registration.support.Database;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/**
 * The fuzz target's committed inputs ({@code RegistrationRequestFuzzTestInputs/registrationBody/}, grown by
 * {@code make fuzz}) sent as {@code PUT} bodies to the running service on the real stack: no input is a 5xx, every
 * refused input leaves no row, and every stored one is exactly one row.
 */
@QuarkusTest
class FuzzCorpusReplayTest {

    static List<Path> inputs(Class<?> fuzzTest, String method) throws IOException, URISyntaxException {
        String dir = fuzzTest.getSimpleName() + "Inputs/" + method;
        Path root = Path.of(fuzzTest.getResource(dir).toURI());
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile).sorted().toList();
        }
    }

    @Test
    void noFuzzInputIsA5xxOrWritesARowWhenRefused() throws Exception {
        List<Path> inputs = inputs(RegistrationRequestFuzzTest.class, "registrationBody");
        assertFalse(inputs.isEmpty());
        String prefix = uniquePrefix("fuzz");
        int stored = 0;
        for (int i = 0; i < inputs.size(); i++) {
            Path input = inputs.get(i);
            String id = prefix + i;
            Response answer = api().body(Files.readAllBytes(input)).put("/v1/devices/{id}", id);
            int status = answer.statusCode();
            assertTrue(status < 500, input.getFileName() + " answered " + status + ": " + answer.asString());
            if (status >= 400) {
                assertTrue(Database.row(id).isEmpty(), input.getFileName() + " was refused but wrote a row");
            } else {
                assertTrue(Database.row(id).isPresent(), input.getFileName() + " answered " + status + " without a row");
                stored++;
            }
        }
        assertEquals(stored, Database.countWithPrefix(prefix));
    }
}
