package io.deviceidentity.auth.authn;

import static io.deviceidentity.auth.support.Emqx.authn;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.directConnection;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

/** Bad input gets a clear 4xx (or a denial), never a 500, and changes nothing. */
@QuarkusTest
class AuthnBadInputTest {

    @ParameterizedTest
    @ValueSource(strings = {
            "{", "not json", "[]", "\"just a string\"", "42", "null", "{\"clientid\":\"a\",\"password\":\"b\"} trailing",
            "{\"clientid\":\"a\",\"password\":\"b\",}" })
    void malformedJsonIsA400WithAJsonReason(String body) {
        given().contentType("application/json").body(body).post("/mqtt/authn").then()
                .statusCode(400)
                .contentType(startsWith("application/json"))
                .body("reason", equalTo("malformed_json"));
    }

    @Test
    void emptyBodyIsA400() {
        given().contentType("application/json").post("/mqtt/authn").then()
                .statusCode(400)
                .body("reason", equalTo("malformed_json"));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "{\"clientid\":123,\"username\":\"\",\"password\":\"x\"}",
            "{\"clientid\":\"a\",\"username\":\"\",\"password\":42}",
            "{\"clientid\":\"a\",\"username\":\"\",\"password\":[\"x\"]}",
            "{\"clientid\":{\"$ne\":null},\"username\":\"\",\"password\":\"x\"}",
            "{\"clientid\":\"a\",\"password\":\"x\",\"username\":false}",
            "{\"clientid\":true,\"username\":\"\",\"password\":\"x\"}",
            "{\"clientid\":\"a\",\"username\":\"\",\"password\":\"x\",\"peerhost\":7}",
            "{\"clientid\":\"a\",\"username\":\"\",\"password\":\"x\",\"cert_common_name\":{}}" })
    void wrongTypesAreA400(String body) {
        given().contentType("application/json").body(body).post("/mqtt/authn").then()
                .statusCode(400)
                .body("reason", equalTo("invalid_field"));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "{\"password\":\"x\",\"username\":\"\"}", "{\"clientid\":\"a\",\"username\":\"\"}", "{}",
            "{\"clientid\":null,\"username\":\"\",\"password\":\"x\"}",
            // username is required too: EMQX always sends it ("" when the device gave none), and a template
            // without it would silently deny every device registered with a username.
            "{\"clientid\":\"a\",\"password\":\"x\"}",
            "{\"clientid\":\"a\",\"username\":null,\"password\":\"x\"}" })
    void missingFieldsAreA400(String body) {
        given().contentType("application/json").body(body).post("/mqtt/authn").then()
                .statusCode(400)
                .body("reason", equalTo("missing_field"));
    }

    @Test
    void peerhostAndCertCommonNameMayBeLeftOutOfTheTemplate() {
        String id = uniqueId("optional");
        String password = device(id).store();

        given().contentType("application/json")
                .body("{\"clientid\":\"" + id + "\",\"username\":\"\",\"password\":\"" + password + "\"}")
                .post("/mqtt/authn").then()
                .statusCode(200)
                .body("result", equalTo("allow"));
    }

    @Test
    void bodyOf64KibIsRefusedAsTooLarge() {
        String padding = "x".repeat(64 * 1024);
        given().contentType("application/json")
                .body("{\"clientid\":\"a\",\"username\":\"\",\"password\":\"b\",\"peerhost\":\"" + padding + "\"}")
                .post("/mqtt/authn").then()
                .statusCode(413);
    }

    @Test
    void bytesThatAreNotUtf8AreA400() {
        byte[] head = "{\"clientid\":\"a\",\"password\":\"".getBytes(StandardCharsets.US_ASCII);
        byte[] tail = "\"}".getBytes(StandardCharsets.US_ASCII);
        byte[] body = new byte[head.length + 3 + tail.length];
        System.arraycopy(head, 0, body, 0, head.length);
        body[head.length] = (byte) 0xC3;
        body[head.length + 1] = (byte) 0x28;
        body[head.length + 2] = (byte) 0xFF;
        System.arraycopy(tail, 0, body, head.length + 3, tail.length);

        given().contentType("application/json").body(body).post("/mqtt/authn").then()
                .statusCode(400)
                .body("reason", equalTo("malformed_json"));
    }

    @Test
    void password73BytesLongIsDenied() {
        String id = uniqueId("p73");
        device(id).password("a".repeat(72)).store();

        authn(id, "a".repeat(73)).then().statusCode(200).body("result", equalTo("deny"));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "x' OR '1'='1", "x'; DROP TABLE device_credentials; --", "%", "_", "\\", "a\u0000b", "' UNION SELECT 1 --",
            "a\nINFO forged log line" })
    void sqlMetacharactersInClientIdAreDeniedAndChangeNothing(String clientId) throws Exception {
        int before = deviceCount();

        authn(clientId, "x' OR '1'='1").then()
                .statusCode(200)
                .body("result", equalTo("deny"));

        assertEquals(before, deviceCount());
    }

    @Test
    void unknownPathIsA404NotA500() {
        given().contentType("application/json").body("{}").post("/mqtt/nothing").then().statusCode(404);
    }

    @Test
    void getOnTheAuthnEndpointIsA405NamingTheMethodsItAnswersAsOptionsDoes() {
        given().get("/mqtt/authn").then().statusCode(not(equalTo(500))).statusCode(405)
                .header("Allow", equalTo("OPTIONS, POST")).body("reason", equalTo("method_not_allowed"));
        // The router's own OPTIONS answer lists the same methods (in its own order).
        given().options("/mqtt/authn").then().header("Allow", allOf(containsString("OPTIONS"), containsString("POST")));
        given().get("/mqtt/authz").then().statusCode(405).header("Allow", equalTo("OPTIONS, POST"));
    }


    private static int deviceCount() throws Exception {
        try (Connection connection = directConnection(); Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT count(*) FROM device_credentials")) {
            row.next();
            return row.getInt(1);
        }
    }
}
