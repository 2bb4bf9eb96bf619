-- The verified-credential fast path (auth-service): after a successful bcrypt check, auth-service stores an
-- HMAC-SHA256 "verifier" of (client id, username, password, this row's password_hash) under a key that is NOT in the
-- database, tagged with the key's id. It is read in the same query as the row; a new password_hash (new salt) makes
-- it stop matching at once, and registration-service clears it on every PUT and DELETE.
ALTER TABLE device_credentials
    ADD COLUMN verifier_key_id varchar(32),
    ADD COLUMN verifier        bytea CHECK (verifier IS NULL OR octet_length(verifier) = 32),
    ADD CONSTRAINT verifier_has_key CHECK ((verifier IS NULL) = (verifier_key_id IS NULL));

-- auth-service connects as its own role: it may read credentials and write verifiers, nothing else (it cannot
-- change a password, a status or an ACL, nor insert or delete a device). The role is created with its password by
-- whoever creates the database (scripts/stack.sh, the chart's PostgreSQL init, or the operator for an external
-- database: README "Security"); its name comes from the Flyway placeholder authRole.
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${authRole}') THEN
        RAISE EXCEPTION 'database role "${authRole}" (auth-service) does not exist: create it before migrating (README "Security")';
    END IF;
END
$$;
GRANT SELECT ON device_credentials TO "${authRole}";
GRANT UPDATE (verifier_key_id, verifier) ON device_credentials TO "${authRole}";
