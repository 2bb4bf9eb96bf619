package io.deviceidentity.auth.authn;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import jakarta.ws.rs.core.Response;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.deviceidentity.auth.AuthConfig;
import io.deviceidentity.auth.fastpath.FastPath;
import io.deviceidentity.auth.fastpath.VerifierWriter;
import io.deviceidentity.auth.ratelimit.SourceBudget;
import io.deviceidentity.credentials.CheckCost;
import io.deviceidentity.http.Answer;
import io.deviceidentity.http.ErrorResponses;
import io.deviceidentity.http.JsonBodies;
import io.deviceidentity.metrics.MetricNames;
import io.deviceidentity.metrics.Outcomes;
import io.deviceidentity.overload.Deadline;
import io.deviceidentity.overload.DeadlineTimer;
import io.deviceidentity.overload.Lane;
import io.deviceidentity.overload.Lanes;
import io.deviceidentity.overload.OverloadConfig;
import io.deviceidentity.overload.ServiceUnavailableException;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;

/**
 * The storm's commonest answer, in process: a retry of a device whose check needed bcrypt, refused {@code 503
 * overload} before its database read while bcrypt is saturated. From the request body's bytes to the answer's: the
 * body parsed as EMQX sends it, auth-service's real {@link Authenticator} (its cheap checks, the memory of devices
 * that need bcrypt, connection turns, a real bcrypt {@link Lane} held full), the outcome counted and summarised as
 * {@link Outcomes} does in the service (Prometheus registry), and the rendered answer. What it leaves out is what a
 * storm adds around it: TLS, HTTP, the event loop's system calls ({@code make bench}'s pod points measure those, as
 * CPU per refused answer).
 *
 * <p>Assembled by hand from the services' default configuration (SmallRye Config, as Quarkus reads it). The
 * collaborators this answer must not reach are absent (null): the credential read, the failure budgets and legacy
 * upgrades. A change that made a retry reach one fails the benchmark instead of measuring a slower path, as does one
 * that stopped refusing it.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = "-Xmx256m")
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class RefusalPathBenchmark {

    private static final String DEVICE = "bench-device-1";
    private static final byte[] BODY = ("{\"clientid\":\"" + DEVICE + "\",\"username\":\"" + DEVICE
            + "\",\"password\":\"bench-password\",\"peerhost\":\"10.20.30.40\"}").getBytes(StandardCharsets.UTF_8);
    private static final Duration DEADLINE = Duration.ofSeconds(4);
    private static final Duration HELD = Duration.ofHours(1);

    private final ObjectMapper json = new ObjectMapper();
    private final Object connection = new Object();
    private final CountDownLatch release = new CountDownLatch(1);
    private final List<CompletableFuture<Boolean>> holding = new ArrayList<>();
    private Lane bcrypt;
    private Authenticator authenticator;
    private Outcomes outcomes;

    @Setup
    public void assemble() throws Exception {
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .addDefaultInterceptors()
                // Durations as Quarkus reads them ("30s", not only ISO-8601).
                .withConverter(Duration.class, 200, new DurationConverter())
                .withMapping(AuthConfig.class)
                .withMapping(OverloadConfig.class)
                // One bcrypt thread (a 1-vCPU pod), at normal priority (no JNA scheduling needed here), the fast path
                // off as in make bench's pod points (no verifier keys needed). The checks that hold the lane full wait
                // for as long as the benchmark runs (in a storm, new ones keep it full), in the queue the default
                // maximum wait gives one thread (1 s / 80 ms).
                .withDefaultValue("identity.overload.bcrypt.concurrency", "1")
                .withDefaultValue("identity.overload.bcrypt.max-wait", "1h")
                .withDefaultValue("identity.overload.bcrypt.queue", "13")
                .withDefaultValue("identity.overload.bcrypt.idle-priority", "false")
                .withDefaultValue("identity.auth.fast-path.enabled", "false")
                .build();
        AuthConfig auth = config.getConfigMapping(AuthConfig.class);
        OverloadConfig overload = config.getConfigMapping(OverloadConfig.class);
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

        bcrypt = Lanes.bcrypt(overload, registry, new DeadlineTimer(), System::nanoTime);
        RegistrationEpochs epochs = new RegistrationEpochs(
                () -> CompletableFuture.completedFuture(new long[RegistrationEpochs.BUCKETS]), System::nanoTime,
                registry);
        RecentlyActiveDevices recentlyActive = new RecentlyActiveDevices(auth, epochs);
        authenticator = new Authenticator(null, new SourceBudget(auth), null, new KnownDevices(auth),
                new UnknownDevices(auth, epochs, registry), recentlyActive, new ConnectionTurns(overload), null, bcrypt,
                new FastPath(auth, new VerifierWriter(null, auth, registry), registry), new IdenticalChecks(registry), auth, null);
        outcomes = new Outcomes(registry, overload);

        epochs.warmUp();
        recentlyActive.seenActive(DEVICE, epochs.latest());
        holdBcryptFull();
        // The benchmark's premise, checked once before it is measured (and on every call).
        refuse();
    }

    /** Submits checks that wait for the tear-down until the lane refuses: its thread busy, its queue standing. */
    private void holdBcryptFull() {
        for (int i = 0; i < 10_000; i++) {
            CompletableFuture<Boolean> held = bcrypt.submit(Deadline.after(System.nanoTime(), HELD), CheckCost.UNIT,
                    () -> {
                        try {
                            release.await();
                        } catch (InterruptedException stopped) {
                            Thread.currentThread().interrupt();
                        }
                        return true;
                    });
            if (held.isCompletedExceptionally()) {
                return;
            }
            holding.add(held);
        }
        throw new IllegalStateException("the bcrypt lane admitted 10000 checks: it never refuses");
    }

    @TearDown
    public void stop() {
        release.countDown();
        holding.forEach(held -> held.handle((matched, failure) -> matched).join());
        bcrypt.shutdown();
    }

    /** Body bytes in, answer bytes out, the outcome counted. */
    @Benchmark
    public byte[] retryRefusedBeforeItsDatabaseRead() throws Exception {
        return refuse();
    }

    private byte[] refuse() throws Exception {
        AuthnRequest request = AuthnRequest.from(JsonBodies.emqxObject(json, BODY, "application/json"));
        Deadline deadline = Deadline.after(System.nanoTime(), DEADLINE);
        Answer answer;
        try {
            CompletionStage<AuthnOutcome> decided = authenticator.authenticate(request, deadline, connection);
            throw new IllegalStateException("the retry was not refused at once: " + decided);
        } catch (ServiceUnavailableException refused) {
            answer = ErrorResponses.answerFor(refused);
        }
        Response response = answer.response();
        if (response.getStatus() != 503) {
            throw new IllegalStateException("the retry was answered " + response.getStatus() + ", not 503");
        }
        outcomes.record(MetricNames.AUTHN_OUTCOMES, "authn", request.clientId(), deadline, answer);
        return VertxRoutes.bodyOf(response, json);
    }
}
