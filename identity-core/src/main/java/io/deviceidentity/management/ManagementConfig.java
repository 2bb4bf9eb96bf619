package io.deviceidentity.management;

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
}
