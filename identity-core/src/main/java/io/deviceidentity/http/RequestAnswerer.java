package io.deviceidentity.http;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.core.Response;

import io.deviceidentity.metrics.Outcomes;
import io.deviceidentity.overload.Deadline;
import io.deviceidentity.overload.RequestDeadlines;
import io.vertx.ext.web.RoutingContext;

/**
 * The life of every request both services answer: parse it (bad input → 4xx), decide it on the worker pool under
 * its deadline (overload, deadline and database failures → 503), then log and count the outcome once. Endpoints
 * supply only the parsing and the decision.
 */
@ApplicationScoped
public class RequestAnswerer {

    private final RequestDeadlines deadlines;
    private final Outcomes outcomes;

    public RequestAnswerer(RequestDeadlines deadlines, Outcomes outcomes) {
        this.deadlines = deadlines;
        this.outcomes = outcomes;
    }

    /**
     * @param operation the word the outcome log line starts with ({@code authn}, {@code register}, …)
     * @param metric    the outcome counter ({@link io.deviceidentity.metrics.MetricNames})
     * @param parse     reads the request; throws {@link InvalidRequestException} (or another 4xx) on bad input
     * @param clientId  the device the request is about, for the log line
     * @param decide    the blocking decision (may finish asynchronously); runs on a worker thread
     */
    public <T> CompletionStage<Response> answer(String operation, String metric, RoutingContext context,
            Supplier<T> parse, Function<T, String> clientId, BiFunction<T, Deadline, CompletionStage<Answer>> decide) {
        Deadline deadline = deadlines.of(context);
        String device = null;
        CompletionStage<Answer> decision;
        try {
            T request = parse.get();
            device = clientId.apply(request);
            decision = deadlines.blocking(deadline, () -> decide.apply(request, deadline));
        } catch (RuntimeException failure) {
            decision = CompletableFuture.failedFuture(failure);
        }
        String loggedDevice = device;
        return decision.handle((decided, failure) -> {
            Answer answer = failure == null ? decided : ErrorResponses.answerFor(failure);
            outcomes.record(metric, operation, loggedDevice, deadline, answer);
            return answer.response();
        });
    }
}
