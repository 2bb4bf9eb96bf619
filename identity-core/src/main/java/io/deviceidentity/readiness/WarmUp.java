package io.deviceidentity.readiness;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

import io.deviceidentity.overload.PooledConnections;
import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;

/**
 * A service is ready only when it can answer its first request like its hundredth. Measured on a cold start:
 * the first authn after {@code make up} was {@code 503 overload} after 2.4 s (the first pooled connection
 * — driver classes, SCRAM, PgBouncer's first server connection — took longer than the 1 s acquisition timeout) or
 * {@code 503 deadline} after 4.5 s (the first hashes run interpreted until the JIT compiles Blowfish); the second
 * try was 200. A pod the HPA adds in the middle of a storm starts the same way.
 *
 * <p>So at start this runs the service's {@link WarmUpPlan} — a validated connection from each pool, then the request
 * path itself through the service's own entry points (the database read on the lane, bcrypt on its lane) — and
 * the readiness check {@code warm-up} stays DOWN until every step has succeeded once. Steps that fail (the database
 * not reachable yet) are retried; liveness does not depend on them. In the background, each try runs on the
 * application's worker pool and the wait between tries is a timer, so no thread is held while the database is away. After that the check stays UP: while the
 * database is down later, the service answers {@code 503 backend_unavailable} at once, which tells EMQX and operators
 * more than a pod that vanishes from its Service (why the datasources' own health checks are off).
 */
@Readiness
@ApplicationScoped
public class WarmUp implements HealthCheck {

    static final String CHECK = "warm-up";

    private final WarmUpPlan plan;
    private final ReadinessConfig config;
    private final Vertx vertx;
    private volatile WarmUpRun run;
    private volatile boolean stopping;
    private volatile long retryTimer = -1;

    public WarmUp(WarmUpPlan plan, ReadinessConfig config, Vertx vertx) {
        this.plan = plan;
        this.config = config;
        this.vertx = vertx;
    }

    void start(@Observes StartupEvent event) {
        WarmUpRun steps = new WarmUpRun(plan.steps(), Thread::sleep, System::nanoTime);
        run = steps;
        if (!config.warmUpInBackground()) {
            steps.run();
            return;
        }
        tryInBackground(steps);
    }

    private void tryInBackground(WarmUpRun steps) {
        vertx.executeBlocking(steps::tryNext, false).onSuccess(wait -> {
            if (wait != WarmUpRun.DONE && wait != WarmUpRun.STOPPED && !stopping) {
                retryTimer = vertx.setTimer(wait, timer -> tryInBackground(steps));
            }
        });
    }

    @PreDestroy
    void stop() {
        stopping = true;
        long timer = retryTimer;
        if (timer >= 0) {
            vertx.cancelTimer(timer);
        }
    }

    @Override
    public HealthCheckResponse call() {
        WarmUpRun steps = run;
        HealthCheckResponseBuilder answer = HealthCheckResponse.named(CHECK);
        if (steps != null && steps.done()) {
            return answer.up().build();
        }
        answer.down().withData("step", steps == null || steps.current() == null ? "not started" : steps.current());
        if (steps != null && steps.lastFailure() != null) {
            answer.withData("last failure", steps.lastFailure());
        }
        return answer.build();
    }

    /**
     * A step that takes a connection from {@code pool} (through {@link PooledConnections}, as requests do) and
     * validates it; the pool keeps it for the first request (for {@code idle-removal-interval}).
     */
    public static WarmUpStep pooledConnection(String name, DataSource pool) {
        return WarmUpStep.of(name, () -> {
            try (Connection connection = PooledConnections.take(pool)) {
                if (!connection.isValid(2)) {
                    throw new SQLException("the pooled connection did not validate");
                }
            }
        });
    }

    /** Waits for one answer of the service's own path; its failure (a 503 reason, a database error) is the step's. */
    public static <T> T await(CompletionStage<T> answer) throws Exception {
        try {
            return answer.toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException failed) {
            throw failed.getCause() instanceof Exception cause ? cause : failed;
        }
    }
}
