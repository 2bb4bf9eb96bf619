package io.deviceidentity.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;

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

    @Test
    void stringsReadsTheRequiredFieldsInOrderAndAMissingOptionalOneAsEmpty() {
        var body = JsonBodies.object(JSON, "{\"b\":\"2\",\"a\":\"1\",\"c\":null}".getBytes(StandardCharsets.UTF_8));
        assertArrayEquals(new String[] {"1", "2", "", ""},
                JsonBodies.strings(body, List.of("a", "b"), List.of("c", "d")));
    }

    @Test
    void stringsRefusesTheFirstMissingRequiredFieldAndAnOptionalOneOfAnotherType() {
        var body = JsonBodies.object(JSON, "{\"a\":\"1\",\"d\":7}".getBytes(StandardCharsets.UTF_8));
        InvalidRequestException missing = assertThrows(InvalidRequestException.class,
                () -> JsonBodies.strings(body, List.of("a", "b", "c"), List.of()));
        assertEquals("missing_field", missing.reason());
        assertTrue(missing.getMessage().contains("'b'"), missing.getMessage());
        InvalidRequestException typed = assertThrows(InvalidRequestException.class,
                () -> JsonBodies.strings(body, List.of("a"), List.of("d")));
        assertEquals("invalid_field", typed.reason());
    }
}
