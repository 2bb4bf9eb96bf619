package io.deviceidentity.auth.authn;

import static io.deviceidentity.auth.support.TestDevices.directConnection;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.deviceidentity.auth.authz.AuthzRequestFuzzTest;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/**
 * The authn and authz fuzz targets' committed inputs (grown by {@code make fuzz}) posted to the running service on
 * the real stack: none is a 5xx and none adds or removes a device row.
 */
@QuarkusTest
class FuzzCorpusReplayTest {

    @ParameterizedTest
    @CsvSource({"authn, authnBody", "authz, authzBody"})
    void noFuzzInputIsA5xxOrChangesADevice(String endpoint, String method) throws Exception {
        Class<?> target = endpoint.equals("authn") ? AuthnRequestFuzzTest.class : AuthzRequestFuzzTest.class;
        List<Path> inputs = inputs(target, method);
        assertFalse(inputs.isEmpty());
        int before = deviceCount();
        for (Path input : inputs) {
            Response answer = given().contentType("application/json").body(Files.readAllBytes(input))
                    .post("/mqtt/" + endpoint);
            assertTrue(answer.statusCode() < 500,
                    input.getFileName() + " answered " + answer.statusCode() + ": " + answer.asString());
        }
        assertEquals(before, deviceCount());
    }

    private static List<Path> inputs(Class<?> fuzzTest, String method) throws IOException, URISyntaxException {
        Path root = Path.of(fuzzTest.getResource(fuzzTest.getSimpleName() + "Inputs/" + method).toURI());
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile).sorted().toList();
        }
    }

    private static int deviceCount() throws Exception {
        try (Connection connection = directConnection(); Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT count(*) FROM device_credentials")) {
            row.next();
            return row.getInt(1);
        }
    }
}
