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
     * Answers a request whose decision is cut short by the deadline: whatever is still running then, the caller gets
     * 503 {@code deadline}. For reads and checks.
     *
     * @param operation the word the outcome log line starts with ({@code authn}, {@code registration.get}, …)
     * @param metric    the outcome counter ({@link io.deviceidentity.metrics.MetricNames})
     * @param parse     reads the request; throws {@link InvalidRequestException} (or another 4xx) on bad input
     * @param clientId  the device the request is about, for the log line
     * @param decide    the blocking decision (may finish asynchronously); runs on a worker thread
     */
    public <T> CompletionStage<Response> answer(String operation, String metric, RoutingContext context,
            Supplier<T> parse, Function<T, String> clientId, BiFunction<T, Deadline, CompletionStage<Answer>> decide) {
        return respond(operation, metric, context, null, parse, clientId, decide, true);
    }

    /**
     * Answers a request about the device {@code clientId} (from the path) whose decision, once started before its
     * deadline, is always answered with its own result: for writes, so that an acknowledged write is stored and a
     * refused one is not. Work that could not start before the deadline is answered 503 {@code deadline}.
     */
    public <T> CompletionStage<Response> answerToCompletion(String operation, String metric, RoutingContext context,
            String clientId, Supplier<T> parse, BiFunction<T, Deadline, CompletionStage<Answer>> decide) {
        return respond(operation, metric, context, clientId, parse, request -> clientId, decide, false);
    }

    private <T> CompletionStage<Response> respond(String operation, String metric, RoutingContext context,
            String knownClientId, Supplier<T> parse, Function<T, String> clientId,
            BiFunction<T, Deadline, CompletionStage<Answer>> decide, boolean cutAtDeadline) {
        Deadline deadline = deadlines.of(context);
        String device = knownClientId;
        CompletionStage<Answer> decision;
        try {
            T request = parse.get();
            device = clientId.apply(request);
            Supplier<CompletionStage<Answer>> work = () -> decide.apply(request, deadline);
            decision = cutAtDeadline ? deadlines.blocking(deadline, work) : deadlines.startingBefore(deadline, work);
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
