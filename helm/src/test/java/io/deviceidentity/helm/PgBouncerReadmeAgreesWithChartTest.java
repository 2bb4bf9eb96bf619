package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * pgbouncer/README.md's sizing numbers are the chart's (the README counted one user pair and no
 * verifier writer, half of what an external PostgreSQL must allow). The chart computes both sums in its invariants
 * (templates/_validate.tpl) and prints them when it refuses; this renders the chart with a limit too small for the
 * default sizing, reads the sums it computed from the refusal, and requires the README's "Chart defaults" lines to
 * be exactly those numbers.
 */
class PgBouncerReadmeAgreesWithChartTest {

    private static final String README = Chart.read(Chart.REPO.resolve("pgbouncer/README.md"));

    @Test
    void theReadmesClientConnectionSumIsTheChartsAtDefaults() {
        // One PgBouncer admitting 1 client: the default services' connections are refused, and named.
        String refusal = Chart.refusal(Chart.set("pgbouncer.replicas", 1, "pgbouncer.maxClientConn", 1));
        Matcher clients = find(refusal, "auth-service opens (\\d+) replicas x \\(pool (\\d+) \\+ 1 verifier writer\\)"
                + " = \\d+ and registration-service (\\d+) x (\\d+) = \\d+ client connections, (\\d+) in all");
        // The chart's cap at its defaults, from a refusal that leaves PgBouncer's values alone.
        Matcher cap = find(Chart.refusal(Chart.set("registrationService.autoscaling.maxReplicas", 1000)),
                "PgBouncer admits (\\d+) replicas x max_client_conn (\\d+) less (\\d+)% headroom = (\\d+)");
        int headroom = Integer.parseInt(cap.group(3));
        String expected = "Chart defaults: " + clients.group(1) + " × (" + clients.group(2) + " + 1) + "
                + clients.group(3) + " × " + clients.group(4) + " = " + clients.group(5) + " of " + cap.group(1) + " × "
                + cap.group(2) + " × " + (100 - headroom) + " % = " + cap.group(4) + ".";
        assertTrue(README.contains(expected), "pgbouncer/README.md must say: " + expected);
    }

    @Test
    void theReadmesServerConnectionSumIsTheChartsAtDefaults() {
        // A PostgreSQL that allows almost nothing: the default pools are refused, and named.
        String refusal = Chart.refusal(Chart.set("postgresql.maxConnections", 10, "postgresql.reservedConnections", 3));
        Matcher servers = find(refusal, "PgBouncer can open (\\d+) replicas x (\\d+) users .*? x \\(default_pool_size"
                + " (\\d+) \\+ reserve_pool_size (\\d+)\\) = \\d+ server connections and registration-service's"
                + " migrations (\\d+) x (\\d+) = \\d+ more, (\\d+) in all");
        String expected = "Chart defaults: " + servers.group(1) + " × " + servers.group(2) + " × (" + servers.group(3)
                + " + " + servers.group(4) + ") + " + servers.group(5) + " × " + servers.group(6) + " = "
                + servers.group(7) + " of " + defaultsCap() + ".";
        assertTrue(README.contains(expected), "pgbouncer/README.md must say: " + expected);
    }

    /** "100 − 3 = 97": PostgreSQL's limit at the chart's defaults, from a refusal of a larger PgBouncer pool. */
    private static String defaultsCap() {
        Matcher cap = find(Chart.refusal(Chart.set("pgbouncer.defaultPoolSize", 50)),
                "max_connections (\\d+) - reserved (\\d+) = (\\d+)");
        return cap.group(1) + " − " + cap.group(2) + " = " + cap.group(3);
    }

    private static Matcher find(String text, String regex) {
        Matcher matcher = Pattern.compile(regex).matcher(text);
        assertTrue(matcher.find(), "the chart's message no longer matches /" + regex + "/: " + text);
        return matcher;
    }
}
