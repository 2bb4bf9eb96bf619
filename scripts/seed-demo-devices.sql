-- Demo devices for the local stack: demo-device-N with password demo-password-local-dev-N, N = 1..:devices: at
-- least 22 characters, the API's own minimum (identity.registration.min-password-length), so that a demo password is
-- one the API would accept.
-- Hashes are bcrypt cost 10 from pgcrypto (the "$2a$" variant, which the services verify like "$2b$").
-- Idempotent: devices that exist already keep their row.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgcrypto;
INSERT INTO device_credentials (client_id, password_hash)
SELECT 'demo-device-' || n, crypt('demo-password-local-dev-' || n, gen_salt('bf', 10))
FROM generate_series(1, :devices) AS n
WHERE NOT EXISTS (SELECT 1 FROM device_credentials WHERE client_id = 'demo-device-' || n);
-- A stack seeded when the demo passwords were demo-password-N (too short for the API) gets the current ones: checked
-- once on demo-device-1 (one bcrypt), then each demo device still on its old password is re-hashed, its fast-path
-- verifier (made from the old password) cleared.
UPDATE device_credentials
SET password_hash = crypt('demo-password-local-dev-' || substr(client_id, 13), gen_salt('bf', 10)),
    verifier_key_id = NULL, verifier = NULL, updated_at = now()
WHERE client_id ~ '^demo-device-[0-9]+$' AND password_scheme = 'bcrypt'
  AND EXISTS (SELECT 1 FROM device_credentials WHERE client_id = 'demo-device-1'
              AND password_hash = crypt('demo-password-1', password_hash))
  AND password_hash = crypt('demo-password-' || substr(client_id, 13), password_hash);
