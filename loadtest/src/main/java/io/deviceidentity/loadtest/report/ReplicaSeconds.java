package io.deviceidentity.loadtest.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.deviceidentity.loadtest.emqx.Answer;
import io.deviceidentity.loadtest.emqx.CallListener;
import io.deviceidentity.loadtest.emqx.ServiceEndpoints;

/**
 * Per replica and per second, what EMQX's pool got from each replica behind the Service: answers, allows in time
 * (goodput), denials, refusals (503/429) and late answers, with the replica's readiness and its EMQX connections at
 * the second's end. Written as replicas.csv beside summary.json. Event loop only.
 */
public final class ReplicaSeconds implements CallListener {

    /** One replica's second. */
    public record Row(int second, String replica, boolean ready, int connections, int answers, int allowsInTime,
            int denials, int refusals, int late) {
    }

    private static final class Counts {
        int answers;
        int allowsInTime;
        int denials;
        int refusals;
        int late;
    }

    private final ServiceEndpoints service;
    private final Map<String, Counts> current = new LinkedHashMap<>();
    private final List<Row> rows = new ArrayList<>();

    public ReplicaSeconds(ServiceEndpoints service) {
        this.service = service;
        service.endpoints().forEach(e -> current.put(e.name(), new Counts()));
    }

    @Override
    public void answeredBy(String replica, Answer answer, boolean inTime) {
        Counts c = current.computeIfAbsent(replica, r -> new Counts());
        c.answers++;
        if (!inTime) {
            c.late++;
        } else if (answer.isAllow()) {
            c.allowsInTime++;
        } else if (answer.isAdmitted()) {
            c.denials++;
        } else if (answer.isUnavailable() || answer.status() == 429) {
            c.refusals++;
        }
    }

    /** Closes second {@code second} (1 = the run's first). */
    public void closeSecond(int second) {
        for (ServiceEndpoints.Endpoint e : service.endpoints()) {
            Counts c = current.put(e.name(), new Counts());
            rows.add(new Row(second, e.name(), e.ready(), e.connections(), c.answers, c.allowsInTime, c.denials,
                    c.refusals, c.late));
        }
    }

    public List<Row> rows() {
        return List.copyOf(rows);
    }

    public void write(Path directory) throws IOException {
        StringBuilder csv = new StringBuilder("second,replica,ready,connections,answers,allows_in_time,denials,refusals,late\n");
        for (Row r : rows) {
            csv.append(r.second()).append(',').append(r.replica()).append(',').append(r.ready() ? 1 : 0).append(',')
                    .append(r.connections()).append(',').append(r.answers()).append(',').append(r.allowsInTime())
                    .append(',').append(r.denials()).append(',').append(r.refusals()).append(',').append(r.late())
                    .append('\n');
        }
        Files.createDirectories(directory);
        Files.writeString(directory.resolve("replicas.csv"), csv);
    }

    @Override
    public void offered() {
    }

    @Override
    public void expiredInQueue() {
    }

    @Override
    public void answered(Answer answer, long latencyNanos, boolean inTime) {
    }

    @Override
    public void timedOut() {
    }
}
