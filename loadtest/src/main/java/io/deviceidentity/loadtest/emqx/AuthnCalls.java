package io.deviceidentity.loadtest.emqx;

import java.util.function.Consumer;

import io.vertx.core.buffer.Buffer;

/** Where the device model sends its connects: EMQX's HTTP authenticator client ({@link EmqxAuthnClient}), or a fake. */
@FunctionalInterface
public interface AuthnCalls {

    /** Sends one authn request; {@code caller} gets exactly one result: the answer in time, or {@link Answer#TIMEOUT}. */
    void authenticate(Buffer body, Consumer<Answer> caller);
}
