package io.deviceidentity.auth.authn;

import java.sql.SQLException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import jakarta.enterprise.context.ApplicationScoped;

import io.deviceidentity.auth.AuthConfig;
import io.deviceidentity.auth.ratelimit.DeviceAttemptLimiter;
import io.deviceidentity.credentials.Bcrypt;
import io.deviceidentity.credentials.ClientIdPolicy;
import io.deviceidentity.credentials.CredentialFinder;
import io.deviceidentity.credentials.DeviceCredential;
import io.deviceidentity.credentials.PasswordPolicy;
import io.deviceidentity.overload.BackendFailures;
import io.deviceidentity.overload.BcryptExecutor;
import io.deviceidentity.overload.Deadline;

/**
 * Decides one authentication, cheapest checks first so that refused work costs as little as possible:
 * client id shape → per-device attempt limit → password shape → one indexed read (connection released
 * at once) → bcrypt on the bounded executor. Overload and database failures surface as exceptions that the endpoint
 * maps to 503/429; everything else is an {@link AuthnOutcome}.
 */
@ApplicationScoped
public class Authenticator {

    private final CredentialFinder credentials;
    private final DeviceAttemptLimiter limiter;
    private final BcryptExecutor bcrypt;
    private final AuthConfig config;

    public Authenticator(CredentialFinder credentials, DeviceAttemptLimiter limiter, BcryptExecutor bcrypt,
            AuthConfig config) {
        this.credentials = credentials;
        this.limiter = limiter;
        this.bcrypt = bcrypt;
        this.config = config;
    }

    public CompletionStage<AuthnOutcome> authenticate(AuthnRequest request, Deadline deadline) {
        if (!ClientIdPolicy.isValid(request.clientId())) {
            // No such id can be registered, so it is an unknown device without asking the database.
            return decided(unknownDevice());
        }
        limiter.acquire(request.clientId());
        if (!PasswordPolicy.isUsable(request.password())) {
            return decided(AuthnOutcome.deny("invalid_password"));
        }
        Optional<DeviceCredential> found = read(request.clientId());
        deadline.check();
        if (found.isEmpty()) {
            return decided(unknownDevice());
        }
        DeviceCredential device = found.get();
        if (!device.isActive()) {
            return decided(AuthnOutcome.deny("revoked"));
        }
        if (device.username() != null && !device.username().equals(request.username())) {
            return decided(AuthnOutcome.deny("bad_username"));
        }
        return bcrypt.submit(deadline, () -> Bcrypt.matches(request.password(), device.passwordHash()))
                .thenApply(matches -> matches ? AuthnOutcome.allow(device) : AuthnOutcome.deny("bad_password"));
    }

    private Optional<DeviceCredential> read(String clientId) {
        try {
            return credentials.find(clientId);
        } catch (SQLException | RuntimeException failure) {
            throw BackendFailures.classify(failure);
        }
    }

    private AuthnOutcome unknownDevice() {
        return config.unknownDevice() == AuthConfig.UnknownDeviceResult.ignore
                ? AuthnOutcome.ignore("unknown_device")
                : AuthnOutcome.deny("unknown_device");
    }

    private static CompletionStage<AuthnOutcome> decided(AuthnOutcome outcome) {
        return CompletableFuture.completedFuture(outcome);
    }
}
