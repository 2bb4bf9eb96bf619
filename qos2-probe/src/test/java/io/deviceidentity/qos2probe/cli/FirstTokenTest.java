package io.deviceidentity.qos2probe.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The probe's token from the chart's REGISTRATION_TOKENS, in the format with ids and in the one before. */
class FirstTokenTest {

    @Test
    void theTokenOfTheFirstEntryIsWhatFollowsItsSecondColon() {
        assertEquals("s3cret", ProbeCommand.firstToken("admin:read+write+superuser+import-replace:s3cret,b:read:other"));
        assertEquals("with:colon", ProbeCommand.firstToken(" probe : write : with:colon "));
    }

    @Test
    void aBareTokenIsTakenWhole() {
        assertEquals("first-token", ProbeCommand.firstToken("first-token,second-token"));
    }
}
