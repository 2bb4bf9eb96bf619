package io.deviceidentity.registration.kicks;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * Ending a revoked or re-keyed device's live MQTT session through EMQX's REST API (docs/security.md "Revocation").
 * Without {@link #emqxApiUrl()} the service only updates the row, as before: the device is refused at its next
 * connect but a session it holds lives on until it ends by itself (auth-service's {@code expire_at} bounds it).
 */
@ConfigMapping(prefix = "identity.kicks")
public interface KickConfig {

    /**
     * EMQX's dashboard/REST listener, e.g. {@code http://emqx:18083} (the chart sets it to the EMQX it deploys).
     * No default: unset, no kick is recorded nor sent, the service says so once at start (WARN) and in
     * {@code /q/health}.
     */
    Optional<String> emqxApiUrl();

    /** API key EMQX knows from its {@code api_key.bootstrap_file} (HTTP basic auth user). Required with the URL. */
    Optional<String> emqxApiKey();

    /** The key's secret (HTTP basic auth password). Required with the URL; never logged. */
    Optional<String> emqxApiSecret();

    /**
     * PEM bundle of the CA(s) EMQX's API certificate must chain to, for an {@code https://} URL (the chart mounts the
     * CA of EMQX's certificate here). Re-read when its content changes. No default: the JVM's trust store (a public
     * CA). Refused with an {@code http://} URL.
     */
    Optional<Path> emqxApiCaFile();

    /** Longest wait for one EMQX answer (connect included); a slower one counts as a failed attempt. Default 5s. */
    @WithDefault("5s")
    Duration requestTimeout();

    /**
     * How often each replica looks for kicks that are due (a revocation on this replica wakes its worker at once;
     * the poll finds the ones of other replicas and the retries). Default 1s.
     */
    @WithDefault("1s")
    Duration pollInterval();

    /** Kicks claimed and sent at once by one replica (sent in parallel, one round trip each). Default 16. */
    @WithDefault("16")
    int batchSize();

    /** Wait before the second attempt of a kick; doubles with every failed attempt up to retry-max. Default 1s. */
    @WithDefault("1s")
    Duration retryInitial();

    /** Longest wait between two attempts, so that a kick goes out soon after EMQX is back. Default 30s. */
    @WithDefault("30s")
    Duration retryMax();
}
