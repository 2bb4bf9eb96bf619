package io.deviceidentity.registration.devices;

import java.sql.SQLException;
import java.util.concurrent.CompletionStage;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.context.ManagedExecutor;

import io.deviceidentity.overload.BackendFailures;
import io.deviceidentity.overload.Deadline;
import io.deviceidentity.registration.passwords.PasswordHasher;

/**
 * Creates or replaces a device's credential in the order the incident taught: hash first, on the bcrypt executor
 * and without any database connection; then one short write on one pooled connection, on a worker thread (never on
 * a bcrypt thread, whose CPU is the hashing capacity, nor on the event loop).
 *
 * <p>The deadline is checked before the hash (by the executor) and again before the write: a request whose caller
 * has stopped waiting writes nothing. Once the write has begun its result is always answered, never cut short by
 * the deadline, so an acknowledged write is in the database and a refused one is not. (The one exception is the
 * database committing and the connection breaking before its reply arrives: answered 503, yet stored. PUT is
 * idempotent, so the caller's retry makes that harmless.)
 */
@ApplicationScoped
public class DeviceRegistrar {

    private final PasswordHasher hasher;
    private final DeviceStore store;
    private final ManagedExecutor workers;

    public DeviceRegistrar(PasswordHasher hasher, DeviceStore store, ManagedExecutor workers) {
        this.hasher = hasher;
        this.store = store;
        this.workers = workers;
    }

    public CompletionStage<DeviceStore.Saved> register(String clientId, RegistrationRequest request,
            Deadline deadline) {
        deadline.check();
        return hasher.hash(deadline, request.password())
                .thenApplyAsync(hash -> save(clientId, request, hash, deadline), workers);
    }

    private DeviceStore.Saved save(String clientId, RegistrationRequest request, String hash, Deadline deadline) {
        deadline.check();
        try {
            return store.save(clientId, request, hash);
        } catch (SQLException | RuntimeException failure) {
            throw BackendFailures.classify(failure);
        }
    }
}
