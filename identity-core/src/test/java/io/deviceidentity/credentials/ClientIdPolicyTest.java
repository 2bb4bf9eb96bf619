package io.deviceidentity.credentials;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ClientIdPolicyTest {

    @Test
    void acceptsTypicalDeviceIds() {
        assertTrue(ClientIdPolicy.isValid("demo-device-1"));
        assertTrue(ClientIdPolicy.isValid("sensor_42.eu-west:site@1"));
        assertTrue(ClientIdPolicy.isValid("a".repeat(ClientIdPolicy.MAX_LENGTH)));
    }

    @Test
    void refusesIdsThatWouldEscapeATopicFilterOrALogLine() {
        assertFalse(ClientIdPolicy.isValid("a/b"));
        assertFalse(ClientIdPolicy.isValid("a+"));
        assertFalse(ClientIdPolicy.isValid("#"));
        assertFalse(ClientIdPolicy.isValid("a b"));
        assertFalse(ClientIdPolicy.isValid("a\nINFO forged"));
        assertFalse(ClientIdPolicy.isValid("x'; DROP TABLE device_credentials; --"));
    }

    @Test
    void refusesEmptyAndOverlongIds() {
        assertFalse(ClientIdPolicy.isValid(""));
        assertFalse(ClientIdPolicy.isValid(null));
        assertFalse(ClientIdPolicy.isValid("-leading-dash"));
        assertFalse(ClientIdPolicy.isValid("a".repeat(ClientIdPolicy.MAX_LENGTH + 1)));
    }
}
