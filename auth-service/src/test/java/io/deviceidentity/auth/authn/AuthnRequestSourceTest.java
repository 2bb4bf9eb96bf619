package io.deviceidentity.auth.authn;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The source a failure is charged to, read from EMQX's {@code peerhost}. */
class AuthnRequestSourceTest {

    private static AuthnRequest from(String peerHost) {
        return new AuthnRequest("device-1", "", "secret", peerHost);
    }

    @Test
    void anAddressIsItsOwnSourceWithoutSurroundingSpace() {
        assertEquals("203.0.113.9", from(" 203.0.113.9 ").source());
    }

    @Test
    void aMissingOrBlankPeerhostIsTheOneSharedUnknownSource() {
        assertEquals(AuthnRequest.UNKNOWN_SOURCE, from(null).source());
        assertEquals(AuthnRequest.UNKNOWN_SOURCE, from("").source());
        assertEquals(AuthnRequest.UNKNOWN_SOURCE, from("   ").source());
    }

    @Test
    void aSourceIsCutToWhatTheFailureCountsColumnHolds() {
        assertEquals("a".repeat(AuthnRequest.MAX_SOURCE_LENGTH), from("a".repeat(200)).source());
    }
}
