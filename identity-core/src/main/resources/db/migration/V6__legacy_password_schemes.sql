-- Legacy password schemes (issue 26, docs/migration.md "Hashes of other schemes"): a fleet imported from EMQX's
-- built-in database or SQL authenticators, or from mosquitto-go-auth, keeps its hashes as they are; auth-service
-- verifies each with its own scheme (identity-core credentials/legacy) and replaces it by bcrypt on the device's
-- first successful login, through upgrade_legacy_password below and nothing else.
--
-- password_hash holds the scheme's canonical stored form (LegacyHash.stored(): at most a few hundred characters with
-- the salts and keys LegacyLimits allows); for 'bcrypt', as before, the 60-character modular-crypt string. Widening a
-- varchar does not rewrite the table (PostgreSQL, ALTER TABLE: "increasing the length limit of a varchar column").
-- PostgreSQL refuses to change the type of a column named in a trigger's UPDATE OF (V3's epoch trigger): it is
-- dropped and created again, unchanged, inside this migration's transaction, so no write can pass without it.
DROP TRIGGER device_credentials_bump_epoch ON device_credentials;
ALTER TABLE device_credentials ALTER COLUMN password_hash TYPE varchar(512);
CREATE TRIGGER device_credentials_bump_epoch
    AFTER INSERT OR UPDATE OF client_id, status, password_hash, username ON device_credentials
    FOR EACH ROW EXECUTE FUNCTION bump_registration_epoch();

ALTER TABLE device_credentials
    ADD COLUMN password_scheme varchar(16) NOT NULL DEFAULT 'bcrypt'
        CONSTRAINT password_scheme_known CHECK (password_scheme IN ('bcrypt', 'plain', 'md5', 'salted-md5', 'sha1',
            'salted-sha1', 'sha256', 'salted-sha256', 'sha512', 'salted-sha512', 'pbkdf2-sha1', 'pbkdf2-sha224',
            'pbkdf2-sha256', 'pbkdf2-sha384', 'pbkdf2-sha512', 'argon2id'));

-- The one way auth-service changes a password hash: a legacy row whose hash is still the very one auth-service just
-- verified (compare-and-set: a concurrent login on another replica, a PUT or an import that changed it in between,
-- wins) becomes bcrypt. Refused for a bcrypt row, for a string that is not a bcrypt hash, for a revoked device.
-- SECURITY DEFINER: runs as the schema owner (who runs this migration), so auth-service's role needs EXECUTE only,
-- and still has no UPDATE on password_hash or password_scheme (V2's grant covers the verifier columns alone).
-- The search_path is pinned with pg_temp last and the table qualified, so no temporary table of the caller's can
-- stand in for it (PostgreSQL, CREATE FUNCTION, "Writing SECURITY DEFINER Functions Safely"); the registration-epoch
-- trigger (V3) fires as for any password change and finds its table on that path.
-- The fast path's verifier of the old row is cleared; auth-service writes the new one (bound to the new bcrypt
-- string) after this returns true. updated_at is left alone: nobody re-registered the device.
CREATE FUNCTION upgrade_legacy_password(target_client_id varchar, verified_hash varchar, bcrypt_hash varchar)
    RETURNS boolean
    LANGUAGE plpgsql
    SECURITY DEFINER
    SET search_path = ${flyway:defaultSchema}, pg_temp
AS $$
BEGIN
    IF bcrypt_hash IS NULL OR bcrypt_hash !~ '^\$2[aby]\$(0[4-9]|[12][0-9]|3[01])\$[./A-Za-z0-9]{53}$' THEN
        RAISE EXCEPTION 'upgrade_legacy_password: the new hash is not a bcrypt hash' USING ERRCODE = '22023';
    END IF;
    UPDATE ${flyway:defaultSchema}.device_credentials
       SET password_hash = bcrypt_hash, password_scheme = 'bcrypt', verifier_key_id = NULL, verifier = NULL
     WHERE client_id = target_client_id
       AND password_scheme <> 'bcrypt'
       AND password_hash = verified_hash
       AND status = 'active';
    RETURN FOUND;
END
$$;

REVOKE ALL ON FUNCTION upgrade_legacy_password(varchar, varchar, varchar) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION upgrade_legacy_password(varchar, varchar, varchar) TO "${authRole}";
