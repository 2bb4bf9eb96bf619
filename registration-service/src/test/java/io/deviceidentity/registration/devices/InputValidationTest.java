package io.deviceidentity.registration.devices;

import static io.deviceidentity.registration.support.Devices.api;
import static io.deviceidentity.registration.support.Devices.passwordBody;
import static io.deviceidentity.registration.support.Devices.uniqueId;
import static io.deviceidentity.registration.support.Devices.uniquePrefix;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.deviceidentity.credentials.Bcrypt;
import io.deviceidentity.registration.support.Database;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/** Bad input is a 4xx with a JSON reason, writes nothing, and is never a 5xx. */
@QuarkusTest
class InputValidationTest {

    private static final String PATH = "/v1/devices/{id}";

    @ParameterizedTest(name = "client id \"{0}\"")
    @ValueSource(strings = {"has/slash", "has+plus", "has#hash", "has space", "-leading-dash", "ünïcode", "a\tb",
            "quote\"d"})
    void clientIdOutsideTheAllowedCharacterSetIs400AndWritesNothing(String clientId) {
        api().body(passwordBody("valid-password-padded-")).put(PATH, clientId)
                .then().statusCode(400).contentType(ContentType.JSON).body("reason", equalTo("invalid_client_id"));
        api().get(PATH, clientId).then().statusCode(400).body("reason", equalTo("invalid_client_id"));
        api().delete(PATH, clientId).then().statusCode(400).body("reason", equalTo("invalid_client_id"));
        assertTrue(Database.row(clientId).isEmpty());
    }

    @Test
    void clientIdOf128CharactersIsAcceptedAnd129IsRefused() {
        String prefix = uniquePrefix("length");
        String longest = prefix + "x".repeat(128 - prefix.length());
        String tooLong = longest + "x";
        api().body(passwordBody("valid-password-padded-")).put(PATH, longest).then().statusCode(201);
        api().body(passwordBody("valid-password-padded-")).put(PATH, tooLong)
                .then().statusCode(400).body("reason", equalTo("invalid_client_id"));
        assertEquals(1, Database.countWithPrefix(prefix));
    }

    @Test
    void passwordOf72Utf8BytesIsAcceptedAndVerifies() {
        String id = uniqueId("pw72");
        String password = "€".repeat(24); // 3 bytes each
        assertEquals(72, password.getBytes(StandardCharsets.UTF_8).length);
        api().body(passwordBody(password)).put(PATH, id).then().statusCode(201);
        assertTrue(Bcrypt.matches(password, Database.row(id).orElseThrow().passwordHash()));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            73 ASCII bytes              | {"password":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"} | invalid_password
            73 bytes with multi-byte    | {"password":"€€€€€€€€€€€€€€€€€€€€€€€€a"}  | invalid_password
            empty password              | {"password":""}                       | invalid_password
            unpaired surrogate          | {"password":"ab\\ud800cd"}             | invalid_password
            missing password            | {"username":"u"}                      | missing_field
            null password               | {"password":null}                     | missing_field
            numeric password            | {"password":12345678}                 | invalid_field
            not JSON                    | password=secret                       | malformed_json
            truncated JSON              | {"password":"abc"                     | malformed_json
            JSON array                  | ["password"]                          | malformed_json
            two JSON values             | {"password":"a"} {"password":"b"}     | malformed_json
            unknown field               | {"password":"p","passwrod":"p"}       | unknown_field
            empty username              | {"password":"p","username":""}        | invalid_field
            username with slash         | {"password":"p","username":"a/b"}     | invalid_field
            username with wildcard      | {"password":"p","username":"a#"}      | invalid_field
            username with NUL           | {"password":"p","username":"a\\u0000"} | invalid_field
            superuser as string         | {"password":"p","superuser":"true"}   | invalid_field
            acl not a list              | {"password":"p","acl":{"permission":"allow"}} | invalid_acl
            acl rule not an object      | {"password":"p","acl":["allow all"]}  | invalid_acl
            acl bad permission          | {"password":"p","acl":[{"permission":"maybe","action":"publish","topic":"t"}]} | invalid_acl
            acl bad action              | {"password":"p","acl":[{"permission":"allow","action":"connect","topic":"t"}]} | invalid_acl
            acl empty topic             | {"password":"p","acl":[{"permission":"allow","action":"all","topic":""}]} | invalid_acl
            acl qos out of range        | {"password":"p","acl":[{"permission":"allow","action":"all","topic":"t","qos":[3]}]} | invalid_acl
            acl retain not boolean      | {"password":"p","acl":[{"permission":"allow","action":"all","topic":"t","retain":"yes"}]} | invalid_acl
            acl unknown rule field      | {"password":"p","acl":[{"permission":"allow","action":"all","topic":"t","retian":true}]} | invalid_acl
            acl topic with NUL          | {"password":"p","acl":[{"permission":"allow","action":"all","topic":"t\\u0000"}]} | invalid_acl
            """)
    void badBodyIs400WithItsReasonAndWritesNothing(String description, String body, String reason) {
        String id = uniqueId("body");
        api().body(body).put(PATH, id)
                .then().statusCode(400).contentType(ContentType.JSON).body("reason", equalTo(reason));
        assertTrue(Database.row(id).isEmpty(), description + " wrote a row");
    }

    @Test
    void emptyBodyIs400AndWritesNothing() {
        String id = uniqueId("empty");
        api().put(PATH, id).then().statusCode(400).body("reason", equalTo("malformed_json"));
        assertTrue(Database.row(id).isEmpty());
    }

    @Test
    void bodyOverTheSizeBoundIs413AndWritesNothing() {
        String id = uniqueId("huge");
        String body = "{\"password\":\"p\",\"username\":\"" + "u".repeat(17 * 1024) + "\"}";
        api().body(body).put(PATH, id).then().statusCode(413);
        assertTrue(Database.row(id).isEmpty());
    }

    @Test
    void tooManyAclRulesIs400AndWritesNothing() {
        String id = uniqueId("rules");
        String rule = "{\"permission\":\"deny\",\"action\":\"all\",\"topic\":\"t\"}";
        String body = "{\"password\":\"p\",\"acl\":[" + String.join(",", java.util.Collections.nCopies(101, rule))
                + "]}";
        api().body(body).put(PATH, id).then().statusCode(400).body("reason", equalTo("invalid_acl"));
        assertTrue(Database.row(id).isEmpty());
    }
}
