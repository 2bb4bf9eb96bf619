package io.deviceidentity.readiness;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

import io.deviceidentity.overload.BcryptWork;
import io.deviceidentity.overload.Lane;

/**
 * A replica whose bcrypt lane refuses while idle is not ready: nothing runs or waits, yet a cost-10 check arriving
 * with its whole deadline would be refused, so every password that needs a hash (a new, imported, re-keyed or legacy
 * device) would be answered 503 here while other replicas could verify it. The lane's waiting-time rule is built so
 * that this cannot happen by itself ({@link Lane#refusesWhileIdle}); what remains is a configuration whose nominal
 * hash time exceeds the deadline, or a defect, and either way an orchestrator should take the replica out of service
 * rather than let it answer. The same condition is the gauge {@code identity_bcrypt_refusing_idle}, for an alert.
 *
 * <p>A lane that refuses because it is busy stays ready: that is overload, which every replica shares, and taking
 * replicas out of service for it would only move their load to the rest.
 */
@Readiness
@ApplicationScoped
public class BcryptAdmission implements HealthCheck {

    static final String CHECK = "bcrypt-admission";

    private final Lane bcrypt;

    public BcryptAdmission(@BcryptWork Lane bcrypt) {
        this.bcrypt = bcrypt;
    }

    @Override
    public HealthCheckResponse call() {
        if (bcrypt.refusesWhileIdle()) {
            return HealthCheckResponse.named(CHECK).down()
                    .withData("reason", "idle, yet a cost-10 check arriving now would be refused").build();
        }
        return HealthCheckResponse.named(CHECK).up().build();
    }
}
