package io.deviceidentity.loadtest.run;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.deviceidentity.loadtest.db.ConnectionWatcher;
import io.deviceidentity.loadtest.devices.ClosedLoop;
import io.deviceidentity.loadtest.devices.ConnectStorm;
import io.deviceidentity.loadtest.devices.DevicePopulation;
import io.deviceidentity.loadtest.devices.Workload;
import io.deviceidentity.loadtest.emqx.CallListeners;
import io.deviceidentity.loadtest.emqx.EmqxAuthnClient;
import io.deviceidentity.loadtest.emqx.ServiceEndpoints;
import io.deviceidentity.loadtest.metrics.MetricsSnapshot;
import io.deviceidentity.loadtest.metrics.ServiceMetrics;
import io.deviceidentity.loadtest.report.ProgressLine;
import io.deviceidentity.loadtest.report.Recorder;
import io.deviceidentity.loadtest.report.ReplicaSeconds;
import io.deviceidentity.loadtest.report.ReportWriter;
import io.deviceidentity.loadtest.report.RunSummary;
import io.deviceidentity.loadtest.report.SecondStats;
import io.deviceidentity.loadtest.report.SteadyStateWindow;
import io.deviceidentity.loadtest.report.WastedWork;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;

/**
 * Runs one load test for its duration and writes its reports. Everything that touches the client, the devices or
 * the recorder runs on one Vert.x event loop (a few thousand requests per second is far below what one loop
 * handles), which keeps the model free of locks. The run ends by itself at {@code duration}: requests still
 * unanswered then are reported as pending, not waited for. The service's metrics are scraped when the counted run
 * starts, when the steady-state window starts, and at the end (for wasted work).
 */
public final class LoadRun {

    /** How often EMQX's queues are sampled for their peak. */
    private static final long QUEUE_SAMPLE_MILLIS = 100;

    private final RunSettings settings;
    private final PrintStream console;

    public LoadRun(RunSettings settings, PrintStream console) {
        this.settings = settings;
        this.console = console;
    }

    public RunSummary execute() throws IOException, InterruptedException {
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(1)
                .setBlockedThreadCheckInterval(10).setBlockedThreadCheckIntervalUnit(TimeUnit.SECONDS));
        DevicePopulation population = new DevicePopulation(settings.population());
        Recorder recorder = new Recorder(population.partNames());
        ConnectionWatcher watcher = new ConnectionWatcher(vertx, settings.database());
        ProgressLine progress = new ProgressLine(console, settings.progress(), settings.label());
        String startedAt = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        CompletableFuture<RunSummary> done = new CompletableFuture<>();
        try {
            vertx.runOnContext(ignored -> {
                try {
                    new Run(vertx, population, recorder, watcher, progress, startedAt, done).start();
                } catch (RuntimeException failure) {
                    done.completeExceptionally(failure);
                }
            });
            RunSummary summary = await(done);
            progress.finish();
            ReportWriter.write(summary, settings.outputDirectory());
            return summary;
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).exceptionally(e -> null).join();
        }
    }

    /** The state of one run on the event loop. */
    private final class Run {
        private final Vertx vertx;
        private final DevicePopulation population;
        private final Recorder recorder;
        private final ConnectionWatcher watcher;
        private final ProgressLine progress;
        private final String startedAt;
        private final CompletableFuture<RunSummary> done;
        private final int totalSeconds = (int) settings.duration().toSeconds();
        private final int warmupSeconds = (int) settings.warmup().toSeconds();
        private final SteadyStateWindow window;
        private final ServiceMetrics metrics;
        private Future<MetricsSnapshot> atCountingStart;
        private Future<MetricsSnapshot> atSteadyStart;
        private EmqxAuthnClient client;
        private ServiceEndpoints service;
        private ReplicaSeconds replicas;
        private ReadinessWatch readiness;
        private Workload workload;
        private long startNanos;
        private long queueSampler = -1;

        Run(Vertx vertx, DevicePopulation population, Recorder recorder, ConnectionWatcher watcher,
                ProgressLine progress, String startedAt, CompletableFuture<RunSummary> done) {
            this.vertx = vertx;
            this.population = population;
            this.recorder = recorder;
            this.watcher = watcher;
            this.progress = progress;
            this.startedAt = startedAt;
            this.done = done;
            this.window = SteadyStateWindow.choose(settings.duration(), settings.warmup(), settings.requestTimeout(),
                    settings.retry(), settings.rate(), settings.closedLoopUsers() > 0, settings.steadyStateFrom());
            this.metrics = settings.serviceMetrics() == null ? null
                    : new ServiceMetrics(vertx, settings.serviceMetrics(),
                            Set.of(WastedWork.BCRYPTS_DONE, WastedWork.BCRYPTS_WASTED));
        }

        void start() {
            if (settings.behindService()) {
                service = new ServiceEndpoints(settings.urls(), settings.joining(), settings.onJoin(),
                        settings.population().seed());
                replicas = new ReplicaSeconds(service);
                client = EmqxAuthnClient.overService(vertx, service, settings.tls(), settings.poolSize(),
                        settings.pipelining(), settings.requestTimeout(), CallListeners.both(recorder, replicas));
                readiness = new ReadinessWatch(vertx, service, settings.readinessPeriod(),
                        settings.readinessPortOffset(), console);
            } else {
                client = new EmqxAuthnClient(vertx, settings.url(), settings.tls(), settings.poolSize(),
                        settings.pipelining(), settings.requestTimeout(), recorder);
            }
            workload = settings.closedLoopUsers() > 0
                    ? new ClosedLoop(client, population, settings.closedLoopUsers(),
                            settings.eachDeviceOnce() ? ClosedLoop.Mode.EACH_ONCE : ClosedLoop.Mode.CYCLE, recorder)
                    : new ConnectStorm(vertx, client, population, settings.retry(), settings.rate(), recorder,
                            settings.disconnectAfterAllow());
            marks(0);
            watcher.start();
            workload.start();
            startNanos = System.nanoTime();
            if (readiness != null) {
                readiness.start();
            }
            queueSampler = vertx.setPeriodic(QUEUE_SAMPLE_MILLIS,
                    id -> recorder.sampleQueues(client.queued(), client.longestQueue()));
            scheduleTick(1);
        }

        /** Starts what begins at {@code elapsed} seconds: the counted run, the steady-state window. */
        private void marks(int elapsed) {
            if (elapsed == warmupSeconds) {
                recorder.startCounting();
                atCountingStart = scrape();
            }
            if (elapsed == window.startSecond()) {
                recorder.startSteadyState();
                atSteadyStart = scrape();
            }
        }

        private Future<MetricsSnapshot> scrape() {
            return metrics == null ? Future.succeededFuture(MetricsSnapshot.failed("--service-metrics none"))
                    : metrics.scrape();
        }

        /**
         * Closes second {@code n} at wall-clock time start + n s. Each tick is aimed at its own boundary rather than
         * one second after the previous tick, so a stalled generator does not stretch the run: the stalled second
         * shows its lag and the next one is short, and the run still ends at its duration.
         */
        private void scheduleTick(int n) {
            long target = startNanos + n * 1_000_000_000L;
            long delayMillis = Math.max(1, (target - System.nanoTime()) / 1_000_000);
            vertx.setTimer(delayMillis, timer -> {
                long lagMs = Math.max(0, (System.nanoTime() - target) / 1_000_000);
                SecondStats stats = recorder.closeSecond(client.inFlight(), client.queued(),
                        watcher.takeWindowPostgres(), watcher.takeWindowPgbouncer(), workload.connected(), lagMs);
                progress.show(stats, totalSeconds);
                if (replicas != null) {
                    replicas.closeSecond(n);
                }
                if (n >= totalSeconds || workload.finished()) {
                    finish(n);
                } else {
                    marks(n);
                    scheduleTick(n + 1);
                }
            });
        }

        /** Ends the run after {@code endSecond} seconds: its duration, or earlier when the workload is done. */
        private void finish(int endSecond) {
            workload.stop();
            vertx.cancelTimer(queueSampler);
            if (readiness != null) {
                readiness.stop();
            }
            int pending = client.awaitingCallers();
            long connected = workload.connected();
            SteadyStateWindow steadyWindow = window.endingAt(endSecond);
            int counted = Math.max(warmupSeconds, endSecond);
            var totals = recorder.totals(counted - warmupSeconds, pending, connected);
            recorder.stop();
            scrape().onComplete(end -> {
                MetricsSnapshot last = end.succeeded() ? end.result() : MetricsSnapshot.failed(String.valueOf(end.cause()));
                RunSummary summary = new RunSummary(settings.label(), startedAt, settings.describe(),
                        recorder.steadyState(steadyWindow, settings.capacity(),
                                wasted(atSteadyStart, last, recorder.steadyLate200())),
                        recorder.wholeRun(warmupSeconds, counted, settings.capacity(),
                                wasted(atCountingStart, last, recorder.wholeLate200())),
                        totals,
                        new RunSummary.DatabasePeaks(watcher.peakPostgres(), watcher.peakPgbouncer(), watcher.problem()),
                        recorder.seconds());
                client.close();
                if (replicas != null) {
                    try {
                        replicas.write(settings.outputDirectory());
                    } catch (java.io.IOException e) {
                        done.completeExceptionally(e);
                        return;
                    }
                }
                watcher.close();
                if (metrics != null) {
                    metrics.close();
                }
                done.complete(summary);
            });
        }

        private WastedWork wasted(Future<MetricsSnapshot> start, MetricsSnapshot end, long late200) {
            if (metrics == null) {
                return WastedWork.notMeasured(late200, "--service-metrics none");
            }
            if (start == null || !start.isComplete()) {
                return WastedWork.notMeasured(late200, "the scrape at the window's start had not completed");
            }
            return WastedWork.between(start.succeeded() ? start.result()
                    : MetricsSnapshot.failed(String.valueOf(start.cause())), end, late200);
        }
    }

    private static RunSummary await(CompletableFuture<RunSummary> done) throws InterruptedException {
        try {
            return done.get();
        } catch (java.util.concurrent.ExecutionException failure) {
            Throwable cause = failure.getCause();
            throw cause instanceof RuntimeException runtime ? runtime : new IllegalStateException(cause);
        }
    }
}
