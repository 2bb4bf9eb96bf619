-- The adversary (docs/security.md, "The adversary"): failure budgets shared by every auth-service replica, and the
-- registration epochs that let auth-service cache unknown client ids without ever delaying a device registered a
-- moment ago.

-- Failed authentications per (client id, source address) and per client id (source '*'), in fixed windows of
-- identity.auth.rate-limit.period (window_start = Unix seconds / period seconds). Failures only: a success writes
-- nothing. auth-service adds its replica's failures in aggregated batches (AttemptBudget) and deletes windows that
-- have ended; the rows survive a restart and are read by every replica.
CREATE TABLE authn_failures (
    client_id    varchar(128) NOT NULL,
    source       varchar(64)  NOT NULL,
    window_start bigint       NOT NULL,
    failures     integer      NOT NULL CHECK (failures >= 0),
    PRIMARY KEY (client_id, window_start, source)
);

-- 64 counters, one per bucket of client ids (the first byte of SHA-256 of the UTF-8 id, modulo 64: the same function
-- as auth-service's RegistrationEpochs.bucketOf). Any statement that creates a device or changes what could make an
-- unknown id known (status, password, username) bumps its bucket's counter in the same transaction, so an epoch read
-- that starts after the registration was acknowledged sees the bump. Split in buckets so that registrations do not
-- all queue on one row lock, and one registration invalidates only 1/64 of auth-service's negative cache.
CREATE TABLE registration_epochs (
    bucket smallint PRIMARY KEY CHECK (bucket BETWEEN 0 AND 63),
    epoch  bigint   NOT NULL
);
INSERT INTO registration_epochs (bucket, epoch) SELECT b, 0 FROM generate_series(0, 63) AS b;

CREATE FUNCTION bump_registration_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE registration_epochs SET epoch = epoch + 1
     WHERE bucket = get_byte(sha256(convert_to(NEW.client_id, 'UTF8')), 0) % 64;
    RETURN NULL;
END
$$;

-- Fired by registration-service's PUT and import (INSERT, or ON CONFLICT DO UPDATE) and by anything else that
-- writes these columns; not by auth-service's verifier writes, which touch none of them. A bucket's row stays locked
-- until the writing transaction commits: a PUT (one row, one statement) holds one bucket for a millisecond; an import
-- batch holds the buckets of its rows, and with one import at a time (identity.registration.import.concurrency, 1)
-- no two writers can wait for each other's buckets.
CREATE TRIGGER device_credentials_bump_epoch
    AFTER INSERT OR UPDATE OF client_id, status, password_hash, username ON device_credentials
    FOR EACH ROW EXECUTE FUNCTION bump_registration_epoch();

-- auth-service's role: it keeps the failure budgets and reads the epochs, nothing more. (It cannot bump an epoch,
-- so it cannot make its own negative cache lie.)
GRANT SELECT, INSERT, UPDATE, DELETE ON authn_failures TO "${authRole}";
GRANT SELECT ON registration_epochs TO "${authRole}";
