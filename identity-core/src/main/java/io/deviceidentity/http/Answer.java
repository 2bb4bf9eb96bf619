package io.deviceidentity.http;

import jakarta.ws.rs.core.Response;

/** An HTTP answer together with the result and reason it is logged and counted under. */
public record Answer(Response response, String result, String reason) {
}
