-- A bcrypt row below the service's cost (an old store's hashes imported at cost 8, docs/migration.md "Rotating weak
-- hashes") is re-hashed at auth-service's identity.auth.legacy.upgrade-cost after a successful login, when the
-- password is at hand, through this function and nothing else: the same compare-and-set as
-- upgrade_legacy_password (V6). The row must still be bcrypt, active and hold the very hash auth-service verified
-- (a concurrent login on another replica, a PUT, an import or a revocation in between wins), and the new hash must
-- be a bcrypt hash of a strictly higher cost than the stored one: auth-service's role can make a weak row
-- stronger, never weaker, never change a row at or above the new cost, and never touch a legacy row.
-- The cost is the two digits after "$2a$" / "$2b$" / "$2y$", compared as text ('08' < '10'), as V5's index reads it.
-- SECURITY DEFINER with a pinned search_path and the table qualified, as V6 explains; the registration-epoch trigger
-- (V3) fires as for any password change. The fast path's verifier of the old hash is cleared; auth-service writes the
-- new one after this returns true. updated_at is left alone: nobody re-registered the device.
CREATE FUNCTION strengthen_bcrypt_password(target_client_id varchar, verified_hash varchar, bcrypt_hash varchar)
    RETURNS boolean
    LANGUAGE plpgsql
    SECURITY DEFINER
    SET search_path = ${flyway:defaultSchema}, pg_temp
AS $$
BEGIN
    IF bcrypt_hash IS NULL OR bcrypt_hash !~ '^\$2[aby]\$(0[4-9]|[12][0-9]|3[01])\$[./A-Za-z0-9]{53}$' THEN
        RAISE EXCEPTION 'strengthen_bcrypt_password: the new hash is not a bcrypt hash' USING ERRCODE = '22023';
    END IF;
    UPDATE ${flyway:defaultSchema}.device_credentials
       SET password_hash = bcrypt_hash, verifier_key_id = NULL, verifier = NULL
     WHERE client_id = target_client_id
       AND password_scheme = 'bcrypt'
       AND password_hash = verified_hash
       AND password_hash ~ '^\$2[aby]\$[0-9][0-9]\$'
       AND substr(password_hash, 5, 2) < substr(bcrypt_hash, 5, 2)
       AND status = 'active';
    RETURN FOUND;
END
$$;

REVOKE ALL ON FUNCTION strengthen_bcrypt_password(varchar, varchar, varchar) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION strengthen_bcrypt_password(varchar, varchar, varchar) TO "${authRole}";
