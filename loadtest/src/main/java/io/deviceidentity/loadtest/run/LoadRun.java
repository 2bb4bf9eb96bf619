package io.deviceidentity.loadtest.run;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.deviceidentity.loadtest.db.ConnectionWatcher;
import io.deviceidentity.loadtest.devices.ClosedLoop;
import io.deviceidentity.loadtest.devices.ConnectStorm;
import io.deviceidentity.loadtest.devices.DevicePopulation;
import io.deviceidentity.loadtest.devices.Workload;
import io.deviceidentity.loadtest.emqx.EmqxAuthnClient;
import io.deviceidentity.loadtest.report.ProgressLine;
import io.deviceidentity.loadtest.report.Recorder;
import io.deviceidentity.loadtest.report.ReportWriter;
import io.deviceidentity.loadtest.report.RunSummary;
import io.deviceidentity.loadtest.report.SecondStats;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;

/**
 * Runs one load test for its duration and writes its reports. Everything that touches the client, the devices or
 * the recorder runs on one Vert.x event loop (a few thousand requests per second is far below what one loop
 * handles), which keeps the model free of locks. The run ends
 * by itself at {@code duration}: requests still unanswered then are reported as pending, not waited for.
 */
public final class LoadRun {

    private final RunSettings settings;
    private final PrintStream console;

    public LoadRun(RunSettings settings, PrintStream console) {
        this.settings = settings;
        this.console = console;
    }

    public RunSummary execute() throws IOException, InterruptedException {
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(1)
                .setBlockedThreadCheckInterval(10).setBlockedThreadCheckIntervalUnit(TimeUnit.SECONDS));
        Recorder recorder = new Recorder();
        ConnectionWatcher watcher = new ConnectionWatcher(vertx, settings.database());
        ProgressLine progress = new ProgressLine(console, settings.progress(), settings.label());
        String startedAt = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        CompletableFuture<RunSummary> done = new CompletableFuture<>();
        DevicePopulation population = new DevicePopulation(settings.population());
        try {
            vertx.runOnContext(ignored -> {
                try {
                    start(vertx, population, recorder, watcher, progress, startedAt, done);
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

    private void start(Vertx vertx, DevicePopulation population, Recorder recorder, ConnectionWatcher watcher, ProgressLine progress,
            String startedAt, CompletableFuture<RunSummary> done) {
        EmqxAuthnClient client = new EmqxAuthnClient(vertx, settings.url().getHost(), port(), settings.url().getPath(),
                settings.poolSize(), settings.pipelining(), settings.requestTimeout(), recorder);
        Workload workload = settings.closedLoopUsers() > 0
                ? new ClosedLoop(client, population, settings.closedLoopUsers(), recorder)
                : new ConnectStorm(vertx, client, population, settings.retry(), settings.rate(), recorder);
        int totalSeconds = (int) settings.duration().toSeconds();
        long warmupSeconds = settings.warmup().toSeconds();
        if (warmupSeconds == 0) {
            recorder.startCounting();
        }
        watcher.start();
        workload.start();
        long startNanos = System.nanoTime();
        Runnable finish = () -> {
            workload.stop();
            RunSummary summary = new RunSummary(settings.label(), startedAt, settings.describe(),
                    recorder.totals(totalSeconds - warmupSeconds, client.awaitingCallers(), workload.connected()),
                    new RunSummary.DatabasePeaks(watcher.peakPostgres(), watcher.peakPgbouncer(), watcher.problem()),
                    recorder.seconds());
            client.close();
            watcher.close();
            done.complete(summary);
        };
        scheduleTick(vertx, startNanos, 1, totalSeconds, warmupSeconds, recorder, client, watcher, workload,
                progress, finish);
    }

    /**
     * Closes second {@code n} at wall-clock time start + n s. Each tick is aimed at its own boundary rather than one
     * second after the previous tick, so a stalled generator does not stretch the run: the stalled second shows
     * its lag and the next one is short, and the run still ends at its duration.
     */
    private void scheduleTick(Vertx vertx, long startNanos, int n, int totalSeconds, long warmupSeconds,
            Recorder recorder, EmqxAuthnClient client, ConnectionWatcher watcher, Workload workload,
            ProgressLine progress, Runnable finish) {
        long target = startNanos + n * 1_000_000_000L;
        long delayMillis = Math.max(1, (target - System.nanoTime()) / 1_000_000);
        vertx.setTimer(delayMillis, timer -> {
            long lagMs = Math.max(0, (System.nanoTime() - target) / 1_000_000);
            if (n == warmupSeconds) {
                recorder.startCounting();
            }
            SecondStats stats = recorder.closeSecond(client.inFlight(), client.queued(), watcher.takeWindowPostgres(),
                    watcher.takeWindowPgbouncer(), workload.connected(), lagMs);
            progress.show(stats, totalSeconds);
            if (n >= totalSeconds) {
                finish.run();
            } else {
                scheduleTick(vertx, startNanos, n + 1, totalSeconds, warmupSeconds, recorder, client, watcher,
                        workload, progress, finish);
            }
        });
    }

    private int port() {
        return settings.url().getPort() > 0 ? settings.url().getPort() : 80;
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
