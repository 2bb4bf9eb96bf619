package io.deviceidentity.registration.kicks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.deviceidentity.registration.support.FakeEmqx;

/**
 * The kick call against a server that answers as EMQX 5.8.9's clients API does (FakeEmqx cites the source): what
 * is sent, and how each answer, each failure and each slow answer is read.
 */
class EmqxClientsApiTest {

    private final FakeEmqx emqx = new FakeEmqx("kick-key", "kick-secret");

    @AfterEach
    void stop() {
        emqx.close();
    }

    private EmqxClientsApi api(String secret, Duration timeout) {
        return new EmqxClientsApi(emqx.url(), "kick-key", secret, timeout);
    }

    @Test
    void aConnectedClientIsKickedWithDeleteOnItsClientPathAndTheApiKey() {
        emqx.connect("dev:1@site-a");
        assertEquals(KickResult.KICKED, api("kick-secret", Duration.ofSeconds(5)).kick("dev:1@site-a").join());
        assertEquals(List.of(new FakeEmqx.Call("DELETE", "/api/v5/clients/dev:1@site-a", "dev:1@site-a", 204)),
                emqx.calls());
    }

    @Test
    void aClientWithoutASessionIsNothingToKickAndCountsAsDelivered() {
        assertEquals(KickResult.NOT_CONNECTED, api("kick-secret", Duration.ofSeconds(5)).kick("dev-2").join());
    }

    @Test
    void aWrongSecretIsAFailedAttemptNotADelivery() {
        emqx.connect("dev-3");
        assertEquals(KickResult.failed("unauthorized"), api("wrong", Duration.ofSeconds(5)).kick("dev-3").join());
        assertEquals(true, emqx.isConnected("dev-3"));
    }

    @Test
    void aBare404FromAWrongBaseUrlIsNotTakenForNothingToKick() {
        EmqxClientsApi wrongBase = new EmqxClientsApi(emqx.url() + "/proxy", "kick-key", "kick-secret",
                Duration.ofSeconds(5));
        assertEquals(KickResult.failed("status_404"), wrongBase.kick("dev-4").join());
    }

    @Test
    void anUnavailableEmqxIsAFailedAttempt() {
        emqx.unavailable(true);
        assertEquals(KickResult.failed("status_503"), api("kick-secret", Duration.ofSeconds(5)).kick("dev-5").join());
    }

    @Test
    void aStoppedEmqxIsUnreachable() {
        emqx.stop();
        assertEquals(KickResult.failed("unreachable"), api("kick-secret", Duration.ofSeconds(5)).kick("dev-6").join());
    }

    @Test
    void anAnswerThatDoesNotComeInTimeIsATimeoutEvenThoughEmqxKicked() {
        emqx.connect("dev-7");
        emqx.holdAnswers();
        assertEquals(KickResult.failed("timeout"), api("kick-secret", Duration.ofMillis(300)).kick("dev-7").join());
        assertEquals(false, emqx.isConnected("dev-7"), "the slow EMQX ended the session all the same");
    }

    @Test
    void characterOutsideAPathSegmentArePercentEncoded() {
        assertEquals("a-b.c_d~e:f@g", EmqxClientsApi.pathSegment("a-b.c_d~e:f@g"));
        assertEquals("a%2Fb%20c%23%C3%A9", EmqxClientsApi.pathSegment("a/b c#é"));
    }
}
