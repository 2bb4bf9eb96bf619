package io.deviceidentity.registration.devices;

import java.util.concurrent.CompletionStage;

import jakarta.enterprise.context.ApplicationScoped;

import io.deviceidentity.http.InvalidRequestException;
import io.deviceidentity.overload.DatabaseWork;
import io.deviceidentity.overload.Deadline;
import io.deviceidentity.overload.Lane;
import io.deviceidentity.registration.RegistrationConfig;
import io.deviceidentity.registration.passwords.PasswordHasher;

/**
 * Creates or replaces a device's credential in the order the incident taught: hash first, on the bcrypt lane
 * and without any database connection; then one short write on one pooled connection, on the database lane (never
 * on a bcrypt thread, whose CPU is the hashing capacity, nor on the event loop; and refused at once when every lane
 * thread is busy, so nothing waits in an unbounded queue).
 *
 * <p>The deadline is checked before the hash (by the executor) and again before the write (by the lane): a request
 * whose caller has stopped waiting writes nothing. Once the write has begun its result is always answered, never
 * cut short by the deadline, so an acknowledged write is in the database and a refused one is not. (The one
 * exception is the database committing and the connection breaking before its reply arrives: answered 503, yet
 * stored. PUT is idempotent, so the caller's retry makes that harmless.)
 *
 * <p>A request that brings its own bcrypt hash ({@code password_hash}, a device migrated from another broker's
 * store) skips the hash and goes straight to the write: the minimum password length cannot be checked on a hash, and
 * was the old system's to enforce.
 */
@ApplicationScoped
public class DeviceRegistrar {

    private final PasswordHasher hasher;
    private final DeviceStore store;
    private final Lane database;
    private final int minPasswordLength;

    public DeviceRegistrar(PasswordHasher hasher, DeviceStore store, @DatabaseWork Lane database,
            RegistrationConfig config) {
        this.hasher = hasher;
        this.store = store;
        this.database = database;
        this.minPasswordLength = config.minPasswordLength();
    }

    public CompletionStage<DeviceStore.Saved> register(String clientId, RegistrationRequest request,
            Deadline deadline) {
        if (request.passwordHash() != null) {
            return database.run(deadline, () -> store.save(clientId, request, request.passwordHash()));
        }
        String password = request.password();
        if (password.codePointCount(0, password.length()) < minPasswordLength) {
            throw InvalidRequestException.badRequest("invalid_password",
                    "password must be at least " + minPasswordLength + " characters");
        }
        deadline.check();
        return hasher.hash(deadline, request.password())
                .thenCompose(hash -> database.run(deadline, () -> store.save(clientId, request, hash)));
    }
}
