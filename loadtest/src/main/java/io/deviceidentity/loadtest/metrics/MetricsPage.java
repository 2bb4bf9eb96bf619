package io.deviceidentity.loadtest.metrics;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Where a metrics page comes from: a service's {@code /q/metrics} (http or https URL) or a page recorded earlier
 * (a file), so that a delta can be taken against what a service served before a run.
 */
public final class MetricsPage {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private MetricsPage() {
    }

    /** The page's text; IOException (with the reason) when it cannot be read or the service does not answer 200. */
    public static String read(String source) throws IOException {
        if (!source.startsWith("http://") && !source.startsWith("https://")) {
            return Files.readString(Path.of(source));
        }
        HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(source)).timeout(TIMEOUT)
                    .header("accept", "text/plain").GET().build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IOException(source + " answered " + response.statusCode());
            }
            return response.body();
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IOException(source + ": interrupted", interrupted);
        } catch (IOException | RuntimeException e) {
            throw e instanceof IOException io && io.getMessage() != null && io.getMessage().startsWith(source) ? io
                    : new IOException(source + ": " + e, e);
        }
    }
}
