-- Demo devices for the local stack: demo-device-N with password demo-password-N, N = 1..:devices.
-- Hashes are bcrypt cost 10 from pgcrypto (the "$2a$" variant, which the services verify like "$2b$").
-- Idempotent: devices that exist already keep their row.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pgcrypto;
INSERT INTO device_credentials (client_id, password_hash)
SELECT 'demo-device-' || n, crypt('demo-password-' || n, gen_salt('bf', 10))
FROM generate_series(1, :devices) AS n
WHERE NOT EXISTS (SELECT 1 FROM device_credentials WHERE client_id = 'demo-device-' || n);
