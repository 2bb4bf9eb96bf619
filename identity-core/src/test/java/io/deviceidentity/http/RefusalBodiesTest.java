package io.deviceidentity.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;

/** A refusal's body is the same JSON the services' writer makes of an {@link ErrorBody}, rendered once. */
class RefusalBodiesTest {

    private final ObjectMapper json = new ObjectMapper();

    @Test
    void aRefusalBodyIsWhatTheJsonWriterMakesOfItsErrorBody() throws Exception {
        for (String message : new String[] {"bcrypt is saturated: this request could not start within its allowed wait",
                "a \"quoted\" word, a back\\slash, a tab\t and \u00fc", ""}) {
            assertArrayEquals(json.writeValueAsBytes(new ErrorBody("overload", message)),
                    RefusalBodies.of("overload", message), message);
        }
    }

    @Test
    void theSameRefusalIsRenderedOnce() {
        assertSame(RefusalBodies.of("deadline", "the request deadline passed"),
                RefusalBodies.of("deadline", "the request deadline passed"));
    }
}
