package io.deviceidentity.registration.support;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.IntFunction;

/**
 * Sends many PUTs at once (each on its own HTTP connection, released together by a start gate) and collects every
 * answer. Each request has a client-side timeout: an answer that never comes (a deadlock) fails the test instead
 * of hanging it.
 */
public final class ParallelClient implements AutoCloseable {

    private final URI base;
    private final Duration timeout;
    private final ExecutorService threads;
    private final HttpClient client;

    public ParallelClient(URI base, Duration timeout, int parallelism) {
        this.base = base;
        this.timeout = timeout;
        this.threads = Executors.newFixedThreadPool(parallelism);
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(threads).build();
    }

    /** One PUT per index, all released at once; the answers in index order. */
    public List<Result> putAll(int count, IntFunction<String> clientIds, IntFunction<String> bodies) {
        CountDownLatch start = new CountDownLatch(1);
        List<CompletableFuture<Result>> answers = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String clientId = clientIds.apply(i);
            String body = bodies.apply(i);
            answers.add(CompletableFuture.supplyAsync(() -> {
                await(start);
                return send(clientId, body);
            }, threads));
        }
        start.countDown();
        return answers.stream().map(CompletableFuture::join).toList();
    }

    /**
     * What a well-behaved client does with a 503: sends the same PUT again (up to {@code attempts} times, one after
     * another). Answers other than 503 are kept as they are; the final answer of each request, in the same order.
     */
    public List<Result> retryUnavailable(List<Result> results, int attempts) {
        List<Result> finals = new ArrayList<>();
        for (Result result : results) {
            Result last = result;
            for (int attempt = 0; attempt < attempts && last.status() == 503; attempt++) {
                last = send(last.clientId(), last.requestBody());
            }
            finals.add(last);
        }
        return finals;
    }

    private Result send(String clientId, String body) {
        HttpRequest request = HttpRequest.newBuilder(base.resolve("/v1/devices/" + clientId))
                .timeout(timeout)
                .header("Authorization", "Bearer " + Devices.TOKEN)
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body))
                .build();
        try {
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
            return new Result(clientId, body, response.statusCode(), response.body());
        } catch (java.net.http.HttpTimeoutException late) {
            return new Result(clientId, body, -1, "no answer within " + timeout);
        } catch (Exception e) {
            return new Result(clientId, body, -2, e.toString());
        }
    }

    private static void await(CountDownLatch start) {
        try {
            start.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        threads.shutdownNow();
    }

    /** One answer; status -1 means none arrived within the timeout. */
    public record Result(String clientId, String requestBody, int status, String body) {
        public boolean isSuccess() {
            return status >= 200 && status < 300;
        }
    }
}
