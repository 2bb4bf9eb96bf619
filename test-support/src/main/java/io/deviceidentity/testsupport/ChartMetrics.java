package io.deviceidentity.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metric names the Helm chart's alerts (templates/prometheusrule.yaml) and Grafana dashboard
 * (dashboards/device-identity.json) use, read from the repository's files as they are. The services' tests scrape
 * {@code /q/metrics} and check that each one of theirs is really exported, so that a renamed metric breaks a test
 * instead of silently emptying a panel or muting an alert.
 *
 * <p>Names are exact sample names as Prometheus stores them ({@code identity_bcrypt_queue_wait_seconds_count},
 * {@code identity_authn_outcomes_total}), found by their prefixes: every family the chart reads starts with one of
 * {@link #PREFIXES}. The whole template is read, comments included, so a name mentioned there must exist too.
 */
public final class ChartMetrics {

    /** Families the chart reads: the services' own, Quarkus (HTTP, Agroal, SmallRye FT), the PgBouncer exporter, kube-state-metrics. */
    public static final Set<String> PREFIXES = Set.of("identity_", "http_server_", "agroal_", "ft_", "pgbouncer_", "kube_");

    /** Exported by neither service: the PgBouncer exporter's and kube-state-metrics' families. */
    public static final Set<String> NOT_FROM_A_SERVICE = Set.of("pgbouncer_", "kube_");

    private static final Pattern NAME = Pattern.compile("(?<![A-Za-z0-9_:])(?:identity|http_server|agroal|ft|pgbouncer|kube)_[a-z0-9_]*[a-z0-9]");

    private ChartMetrics() {
    }

    /** Every metric name in the alerting rules and the dashboard. */
    public static Set<String> referenced() {
        Set<String> names = new TreeSet<>();
        names.addAll(namesIn(chart().resolve("templates/prometheusrule.yaml")));
        names.addAll(namesIn(chart().resolve("dashboards/device-identity.json")));
        return names;
    }

    /** The referenced names a service may export (not the exporters' ones). */
    public static Set<String> referencedFromServices() {
        Set<String> names = new TreeSet<>();
        for (String name : referenced()) {
            if (NOT_FROM_A_SERVICE.stream().noneMatch(name::startsWith)) {
                names.add(name);
            }
        }
        return names;
    }

    /**
     * The referenced names a service should export that {@code scrape} has no sample of. {@code otherServices}:
     * prefixes of the families only another service exports.
     */
    public static Set<String> missingFrom(String scrape, Collection<String> otherServices) {
        Set<String> missing = new TreeSet<>();
        for (String name : referencedFromServices()) {
            if (otherServices.stream().noneMatch(name::startsWith) && !hasSample(scrape, name)) {
                missing.add(name);
            }
        }
        return missing;
    }

    static Set<String> namesIn(Path file) {
        Set<String> names = new TreeSet<>();
        Matcher m = NAME.matcher(read(file));
        while (m.find()) {
            names.add(m.group());
        }
        return names;
    }

    /**
     * Whether {@code scrape} (Prometheus text format) holds a sample of {@code name}: a line {@code name{...} v} or
     * {@code name v}. A {@code # TYPE} line alone does not count: a family without a sample shows nothing on a panel.
     */
    public static boolean hasSample(String scrape, String name) {
        for (String line : scrape.split("\n")) {
            if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
                return true;
            }
        }
        return false;
    }

    /** helm/device-identity of the repository; the services' tests run in their module directory. */
    static Path chart() {
        return Path.of(System.getProperty("repo.root", "..")).resolve("helm/device-identity");
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file.toAbsolutePath(), e);
        }
    }
}
