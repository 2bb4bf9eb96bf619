package io.deviceidentity.registration.kicks;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Says in {@code /q/health} whether revocations reach live sessions, and how the outbox stands. Always UP: an EMQX
 * that cannot be reached leaves kicks waiting (and alerts, KickNotDelivered), it is no reason to take registration
 * away from callers, who can still revoke.
 */
@Readiness
@ApplicationScoped
public class KickHealth implements HealthCheck {

    private final KickWorker worker;

    public KickHealth(KickWorker worker) {
        this.worker = worker;
    }

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder answer = HealthCheckResponse.named("emqx-kicks").up();
        if (!worker.enabled()) {
            return answer.withData("emqx_api", "not configured")
                    .withData("revocation", "refused at the next connect; live sessions are not ended").build();
        }
        return answer.withData("emqx_api", worker.apiUrl().orElse(""))
                .withData("pending", worker.metrics().pending())
                .withData("oldest_pending_seconds", (long) worker.metrics().oldestPendingSeconds())
                .withData("last_round_error", worker.lastError().isEmpty() ? "none" : worker.lastError())
                .build();
    }
}
