package io.deviceidentity.registration.kicks;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.jboss.logging.Logger;

import io.agroal.api.AgroalDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;

/**
 * Runs this replica's {@link KickDelivery}, one round at a time ({@link OneRoundAtATime}) on the application's worker
 * pool: every poll interval (a Vert.x timer, which keeps sub-second intervals; the Quarkus scheduler checks its
 * triggers once a second), and at once when a revocation or password change on this replica recorded a kick
 * ({@link #nudge()}). With no EMQX API configured it runs nothing, says so once at start, and DeviceStore records no
 * kicks (see {@link #enabled()}).
 */
@ApplicationScoped
public class KickWorker {

    private static final Logger LOG = Logger.getLogger(KickWorker.class);
    private static final Duration ERROR_LOG_EVERY = Duration.ofMinutes(1);

    private final Optional<KickDelivery> delivery;
    /** The configured URL as it may be logged and shown ({@link EmqxClientsApi#shown}). */
    private final Optional<String> apiUrl;
    private final Optional<java.nio.file.Path> caFile;
    private final Duration pollInterval;
    private final int batchSize;
    private final KickMetrics metrics;
    private final Vertx vertx;
    private final OneRoundAtATime rounds;
    private volatile boolean started;
    private long pollTimer = -1;
    private volatile Instant lastErrorLog = Instant.EPOCH;
    private volatile String lastError = "";

    public KickWorker(KickConfig config, AgroalDataSource dataSource, MeterRegistry registry, Vertx vertx) {
        Optional<String> configuredUrl = config.emqxApiUrl().filter(url -> !url.isBlank());
        this.apiUrl = configuredUrl.map(EmqxClientsApi::shown);
        this.caFile = config.emqxApiCaFile();
        this.pollInterval = config.pollInterval();
        this.batchSize = config.batchSize();
        if (batchSize < 1 || batchSize > 1000) {
            throw new IllegalArgumentException("identity.kicks.batch-size must be 1..1000, got " + batchSize);
        }
        Clock clock = Clock.systemUTC();
        this.metrics = new KickMetrics(registry, clock, configuredUrl.isPresent());
        this.delivery = configuredUrl.map(url -> new KickDelivery(new KickOutbox(dataSource),
                new EmqxClientsApi(url, required(config.emqxApiKey(), "emqx-api-key"),
                        required(config.emqxApiSecret(), "emqx-api-secret"), config.requestTimeout(),
                        config.emqxApiCaFile()),
                metrics, clock, new RetryBackoff(config.retryInitial(), config.retryMax()), config.requestTimeout(),
                batchSize));
        this.vertx = vertx;
        // Unordered: rounds never overlap anyway, and a round must not wait behind other blocking work of a context.
        this.rounds = new OneRoundAtATime(task -> vertx.executeBlocking(() -> {
            task.run();
            return null;
        }, false), this::round);
    }

    private static String required(Optional<String> value, String key) {
        return value.filter(v -> !v.isBlank()).orElseThrow(() -> new IllegalStateException(
                "identity.kicks.emqx-api-url is set but identity.kicks." + key + " is not: EMQX's API needs both the"
                        + " key and the secret (docs/configuration.md)"));
    }

    void start(@Observes StartupEvent event) {
        if (delivery.isEmpty()) {
            LOG.warn("no EMQX API configured (identity.kicks.emqx-api-url): a revoked or re-keyed device is refused"
                    + " at its next connect, but a session it holds now is not ended (docs/security.md#revocation)");
            return;
        }
        started = true;
        rounds.poll();
        pollTimer = vertx.setPeriodic(pollInterval.toMillis(), timer -> rounds.poll());
        LOG.infof("kicks go to EMQX's API at %s%s", apiUrl.get(), caFile.map(ca -> ", verified against " + ca)
                .orElse(""));
    }

    void stop(@Observes ShutdownEvent event) {
        started = false;
        if (pollTimer >= 0) {
            vertx.cancelTimer(pollTimer);
        }
    }

    /** Whether revocations and password changes record a kick (an EMQX API is configured). */
    public boolean enabled() {
        return delivery.isPresent();
    }

    /** A kick was just committed here: deliver it now rather than at the next poll. */
    public void nudge() {
        if (started) {
            rounds.nudge();
        }
    }

    private void round() {
        try {
            KickDelivery worker = delivery.get();
            while (worker.deliverDue() == batchSize) {
                // a full batch: more may be due now
            }
            worker.refreshBacklog();
            lastError = "";
        } catch (Exception e) {
            // The database is down or refused: the rows wait in it, the next round tries again.
            lastError = e.getClass().getSimpleName();
            Instant now = Instant.now();
            if (Duration.between(lastErrorLog, now).compareTo(ERROR_LOG_EVERY) >= 0) {
                lastErrorLog = now;
                LOG.warnf("kick delivery round failed (%s: %s); kicks stay recorded and are retried",
                        e.getClass().getSimpleName(), e.getMessage());
            }
        }
    }

    Optional<String> apiUrl() {
        return apiUrl;
    }

    KickMetrics metrics() {
        return metrics;
    }

    String lastError() {
        return lastError;
    }
}
