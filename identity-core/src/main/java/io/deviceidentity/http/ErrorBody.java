package io.deviceidentity.http;

import io.quarkus.runtime.annotations.RegisterForReflection;

/** JSON body of every 4xx and 5xx answer: a machine-readable reason and a sentence for people. */
@RegisterForReflection
public record ErrorBody(String reason, String message) {
}
