package io.deviceidentity.tls;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

import io.quarkus.runtime.StartupEvent;
import io.quarkus.tls.CertificateUpdatedEvent;
import io.quarkus.tls.TlsConfiguration;
import io.quarkus.tls.TlsConfigurationRegistry;
import io.vertx.core.Vertx;

/**
 * Serves a renewed certificate without a restart, and swaps the listener's certificate <em>only</em> when its files
 * changed. Every {@code identity.tls.reload-period} it digests the PEM files ({@link CertificateFiles}); when the digest
 * differs it reloads the TLS registry's configuration {@value ServerTlsSettings#NAME} and fires Quarkus's
 * {@link CertificateUpdatedEvent}, on which the HTTPS listener takes the new SSL options (the reload Quarkus documents
 * for a programmatic rotation).
 *
 * <p>Why not Quarkus's own {@code quarkus.tls.<name>.reload-period}: it reloads and announces an update every period,
 * changed or not, and each announcement makes Vert.x swap the listener's SSL options; a connection that arrives during
 * the swap is closed before its handshake (an NPE in Vert.x {@code SslContextUpdate}). With the chart's one-minute
 * period that was a window every minute in production, and with the tests' one second it failed TLS tests on a busy
 * machine. cert-manager renews a certificate every few weeks: that is how often a swap happens now.
 */
@ApplicationScoped
public class CertificateReload {

    private static final Logger LOG = Logger.getLogger(CertificateReload.class);

    private final TlsConfig config;
    private final Vertx vertx;
    private final TlsConfigurationRegistry registry;
    private final Event<CertificateUpdatedEvent> updated;
    private Watch watch;

    @Inject
    public CertificateReload(TlsConfig config, Vertx vertx, TlsConfigurationRegistry registry,
            Event<CertificateUpdatedEvent> updated) {
        this.config = config;
        this.vertx = vertx;
        this.registry = registry;
        this.updated = updated;
    }

    void start(@Observes StartupEvent started) {
        if (!config.enabled() || config.certFile().isEmpty() || config.keyFile().isEmpty()) {
            return;
        }
        List<Path> files = new ArrayList<>(List.of(Path.of(config.certFile().get()), Path.of(config.keyFile().get())));
        ConfigProvider.getConfig().getOptionalValue("identity.tls.client-ca-file", String.class)
                .filter(ca -> !ca.isBlank()).ifPresent(ca -> files.add(Path.of(ca)));
        watch = new Watch(new CertificateFiles(files), () -> registry.get(ServerTlsSettings.NAME), updated::fire);
        long period = Math.max(1, config.reloadPeriod().toMillis());
        vertx.setPeriodic(period, period, id -> vertx.executeBlocking(() -> watch.reloadIfChanged(), false));
    }

    /** What is compared and reloaded; apart from the timer so that it can be driven step by step. */
    static final class Watch {

        private final CertificateFiles files;
        private final Supplier<Optional<TlsConfiguration>> configuration;
        private final Consumer<CertificateUpdatedEvent> announce;
        private byte[] served;

        Watch(CertificateFiles files, Supplier<Optional<TlsConfiguration>> configuration,
                Consumer<CertificateUpdatedEvent> announce) {
            this.files = files;
            this.configuration = configuration;
            this.announce = announce;
            this.served = files.digest();
        }

        /** Reloads and announces when the files differ from what is served; true when it did. */
        synchronized boolean reloadIfChanged() {
            byte[] now = files.digest();
            if (now == null || CertificateFiles.same(now, served)) {
                return false;
            }
            Optional<TlsConfiguration> tls = configuration.get();
            if (tls.isEmpty()) {
                return false;
            }
            boolean reloaded;
            try {
                reloaded = tls.get().reload();
            } catch (RuntimeException invalid) {
                reloaded = false;
            }
            if (!reloaded) {
                // A half-written or mismatched pair: keep serving the old one and look again next period.
                LOG.warnf("the TLS files %s changed but could not be loaded; the previous certificate is still served",
                        files);
                return false;
            }
            served = now;
            announce.accept(new CertificateUpdatedEvent(ServerTlsSettings.NAME, tls.get()));
            LOG.infof("the TLS files %s changed: new connections get the new certificate", files);
            return true;
        }
    }
}
