package io.deviceidentity.registration.devices;

import static io.deviceidentity.registration.support.Devices.api;
import static io.deviceidentity.registration.support.Devices.uniqueId;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.deviceidentity.registration.support.Database;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * ACL topic filters follow MQTT ({@code #} only as the whole last level, {@code +} only as a whole level, no empty
 * filter, no NUL; {@code ${clientid}} and {@code ${username}} allowed), duplicate keys are refused, and every 400
 * names the field it is about. Against the real stack: nothing refused is written.
 */
@QuarkusTest
class AclTopicFilterTest {

    private static final String PATH = "/v1/devices/{id}";

    private static String bodyWithTopics(String... topics) {
        StringBuilder acl = new StringBuilder();
        for (String topic : topics) {
            acl.append(acl.isEmpty() ? "" : ",")
                    .append("{\"permission\":\"allow\",\"action\":\"all\",\"topic\":\"").append(topic).append("\"}");
        }
        return "{\"password\":\"valid-password-padded-\",\"acl\":[" + acl + "]}";
    }

    @ParameterizedTest(name = "topic \"{0}\" is stored")
    @ValueSource(strings = {"devices/${clientid}/#", "users/${username}/+/state", "#", "+/status", "a//b",
            "$SYS/broker/#", "eq a/#/b"})
    void usableFiltersAreStored(String topic) {
        String id = uniqueId("acl-ok");
        // ${username} needs a registered username (AclPlaceholderRulesTest).
        String body = bodyWithTopics(topic).replace("{\"password\"", "{\"username\":\"meter-1\",\"password\"");
        api().body(body).put(PATH, id).then().statusCode(201);
        assertEquals(topic, Database.row(id).orElseThrow().acl().get(0).topic());
    }

    @ParameterizedTest(name = "topic \"{0}\" in the third rule is 400")
    @ValueSource(strings = {"a/#/b", "a#", "#/x", "a/+b", "b+", "", "t\\u0000", "${foo}/x", "eq "})
    void unusableFiltersAre400NamingTheRuleAndWriteNothing(String topic) {
        String id = uniqueId("acl-bad");
        api().body(bodyWithTopics("ok/1", "ok/2", topic)).put(PATH, id)
                .then().statusCode(400).contentType(ContentType.JSON)
                .body("reason", equalTo("invalid_acl"))
                .body("message", containsString("'acl[2].topic'"));
        assertTrue(Database.row(id).isEmpty(), topic + " wrote a row");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            bad permission      | {"password":"p","acl":[{"permission":"maybe","action":"publish","topic":"t"}]}       | invalid_acl   | acl[0].permission
            missing action      | {"password":"p","acl":[{"permission":"allow","topic":"t"}]}                         | invalid_acl   | acl[0].action
            topic not a string  | {"password":"p","acl":[{"permission":"allow","action":"all","topic":7}]}             | invalid_acl   | acl[0].topic
            qos out of range    | {"password":"p","acl":[{"permission":"allow","action":"all","topic":"t","qos":[3]}]} | invalid_acl   | acl[0].qos
            retain a string     | {"password":"p","acl":[{"permission":"allow","action":"all","topic":"t","retain":"yes"}]} | invalid_acl | acl[0].retain
            misspelt rule field | {"password":"p","acl":[{"permission":"allow","action":"all","topic":"t","retian":true}]} | invalid_acl | acl[0].retian
            rule not an object  | {"password":"p","acl":[{"permission":"allow","action":"all","topic":"t"},"allow all"]} | invalid_acl | acl[1]
            acl not a list      | {"password":"p","acl":{"permission":"allow"}}                                        | invalid_acl   | acl
            unknown field       | {"password":"p","passwrod":"p"}                                                      | unknown_field | passwrod
            username with slash | {"password":"p","username":"a/b"}                                                    | invalid_field | username
            superuser a string  | {"password":"p","superuser":"true"}                                                  | invalid_field | superuser
            password twice      | {"password":"valid-password","password":"other-password"}                            | duplicate_field | password
            acl given twice     | {"password":"valid-password","acl":[],"acl":[]}                                      | duplicate_field | acl
            rule key twice      | {"password":"valid-password","acl":[{"permission":"allow","action":"all","topic":"a","topic":"#"}]} | duplicate_field | acl[0].topic
            """)
    void every400NamesItsFieldAndWritesNothing(String description, String body, String reason, String field) {
        String id = uniqueId("named");
        api().body(body).put(PATH, id)
                .then().statusCode(400).contentType(ContentType.JSON)
                .body("reason", equalTo(reason))
                .body("message", containsString("'" + field + "'"));
        assertTrue(Database.row(id).isEmpty(), description + " wrote a row");
    }

    @Test
    void passwordProblemsNameThePassword() {
        api().body("{\"password\":\"\"}").put(PATH, uniqueId("pw"))
                .then().statusCode(400).body("reason", equalTo("invalid_password"))
                .body("message", containsString("password"));
    }
}
