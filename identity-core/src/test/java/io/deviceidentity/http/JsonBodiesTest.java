package io.deviceidentity.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.fasterxml.jackson.databind.ObjectMapper;

/** Duplicate keys are refused with the repeated field named, at any depth; distinct keys still parse. */
class JsonBodiesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            {"password":"a","password":"b"}                                  | password
            {"clientid":"a","password":"x","clientid":"b"}                   | clientid
            {"acl":[{"topic":"a","topic":"b"}]}                              | acl[0].topic
            {"acl":[{"topic":"a"},{"action":"all","action":"publish"}]}      | acl[1].action
            {"a":{"b":{"c":1,"c":2}}}                                        | a.b.c
            """)
    void aDuplicateKeyIsA400NamingTheField(String body, String field) {
        InvalidRequestException refused = assertThrows(InvalidRequestException.class,
                () -> JsonBodies.object(JSON, body.getBytes(StandardCharsets.UTF_8)));
        assertEquals(400, refused.status());
        assertEquals("duplicate_field", refused.reason());
        assertTrue(refused.getMessage().contains("'" + field + "'"), refused.getMessage());
    }

    @Test
    void theSameKeyInSiblingObjectsIsNotADuplicate() {
        var body = JsonBodies.object(JSON,
                "{\"acl\":[{\"topic\":\"a\"},{\"topic\":\"b\"}],\"x\":{\"topic\":1}}".getBytes(StandardCharsets.UTF_8));
        assertEquals("b", body.get("acl").get(1).get("topic").textValue());
    }

    @Test
    void aSyntaxErrorIsStillMalformedJson() {
        InvalidRequestException refused = assertThrows(InvalidRequestException.class,
                () -> JsonBodies.object(JSON, "{\"a\":".getBytes(StandardCharsets.UTF_8)));
        assertEquals("malformed_json", refused.reason());
    }
}
