package io.deviceidentity.http;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.core.Response;

import io.deviceidentity.metrics.Outcomes;
import io.deviceidentity.overload.DatabaseWork;
import io.deviceidentity.overload.Deadline;
import io.deviceidentity.overload.DeadlineTimer;
import io.deviceidentity.overload.Lane;
import io.deviceidentity.overload.RequestDeadlines;
import io.deviceidentity.readiness.SelfRequests;
import io.vertx.ext.web.RoutingContext;

/**
 * The life of every request both services answer: parse it (bad input → 4xx), decide it under its deadline
 * (overload, deadline and database failures → 503), then log and count the outcome once. Endpoints supply only the
 * parsing and the decision.
 *
 * <p>Both run on the event loop and must not block: a decision hands its blocking step to the database
 * {@link io.deviceidentity.overload.Lane} and its CPU work to the bcrypt one, each of which refuses at once when full.
 * Nothing here hops to a worker pool, whose queue would be unbounded.
 */
@ApplicationScoped
public class RequestAnswerer {

    private final RequestDeadlines deadlines;
    private final DeadlineTimer timer;
    private final Outcomes outcomes;
    private final SelfRequests selfRequests;
    private final Lane lane;

    public RequestAnswerer(RequestDeadlines deadlines, DeadlineTimer timer, Outcomes outcomes,
            SelfRequests selfRequests, @DatabaseWork Lane lane) {
        this.lane = lane;
        this.deadlines = deadlines;
        this.timer = timer;
        this.outcomes = outcomes;
        this.selfRequests = selfRequests;
    }

    /**
     * Answers a request whose decision is cut short by the deadline: whatever is still running then, the caller gets
     * 503 {@code deadline} ({@code backend_unavailable} while the database lane's threads wait on a database that does
     * not answer). For reads and checks.
     *
     * @param operation the word the outcome log line starts with ({@code authn}, {@code registration.get}, …)
     * @param metric    the outcome counter ({@link io.deviceidentity.metrics.MetricNames})
     * @param parse     reads the request; throws {@link InvalidRequestException} (or another 4xx) on bad input
     * @param clientId  the device the request is about, for the log line
     * @param decide    the decision; called on the event loop, must not block (see the class comment)
     */
    public <T> CompletionStage<Response> answer(String operation, String metric, RoutingContext context,
            Supplier<T> parse, Function<T, String> clientId, BiFunction<T, Deadline, CompletionStage<Answer>> decide) {
        return respond(operation, metric, context, null, parse, clientId, decide, true);
    }

    /**
     * Answers a request about the device {@code clientId} (from the path) whose decision, once started before its
     * deadline, is always answered with its own result: for writes, so that an acknowledged write is stored and a
     * refused one is not. Its steps check the deadline before they start (the database lane, the bcrypt lane).
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
            CompletableFuture<Answer> decided = decide.apply(request, deadline).toCompletableFuture();
            decision = cutAtDeadline ? timer.bound(deadline, decided, lane::expired) : decided;
        } catch (RuntimeException failure) {
            decision = CompletableFuture.failedFuture(failure);
        }
        String loggedDevice = device;
        // The service's own warm-up requests are answered like any other, but are not outcomes of anyone's request.
        boolean counted = !selfRequests.isSelfRequest(context);
        return decision.handle((decided, failure) -> {
            Answer answer = failure == null ? decided : ErrorResponses.answerFor(failure);
            if (counted) {
                outcomes.record(metric, operation, loggedDevice, deadline, answer);
            }
            return answer.response();
        });
    }
}
