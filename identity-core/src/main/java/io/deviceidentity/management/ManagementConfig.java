package io.deviceidentity.management;

import java.util.Optional;
import java.util.OptionalInt;

import io.smallrye.config.ConfigMapping;

/**
 * Quarkus's management interface: health ({@code /q/health/*}) and metrics ({@code /q/metrics}) on a port of their
 * own, plain HTTP, so that what monitoring may reach (the chart's NetworkPolicy admits only it there) never includes
 * {@code /mqtt/*} or the registration API, and probes keep working whatever TLS the main port speaks.
 */
@ConfigMapping(prefix = "identity.management")
public interface ManagementConfig {

    /**
     * The management port. Unset: the main port + {@value ManagementSettings#OFFSET} (auth-service 8081 → 9081,
     * registration-service 8082 → 9082), so that two services on one machine never collide; the chart sets 9000.
     */
    OptionalInt port();

    /**
     * The address the management interface listens on. Unset: every interface ({@code 0.0.0.0}, Quarkus's default),
     * what the chart needs (the kubelet probes the pod's address; its NetworkPolicy admits monitoring only).
     * {@code make up} sets its {@code BIND_HOST} (127.0.0.1 by default), so that health and metrics listen no wider
     * than the API does.
     */
    Optional<String> host();
}
