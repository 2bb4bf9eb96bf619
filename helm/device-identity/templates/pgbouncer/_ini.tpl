{{/*
PgBouncer's ini. Only keys PgBouncer 1.18 (Debian 12, used by the local stack) knows, because 1.18 refuses to start
on a newer key; the image runs 1.25, which reads the same file. The values that must agree with the local stack's
pgbouncer/pgbouncer.ini are checked by PgBouncerIniAgreesWithLocalStackTest.
*/}}
{{- define "device-identity.pgbouncer.ini" -}}
{{- $p := .Values.pgbouncer -}}
;; Rendered by the device-identity chart from values.yaml (pgbouncer.*). Sizing rules: pgbouncer/README.md.
[databases]
{{ .Values.database.name }} = host={{ include "device-identity.postgresHost" . }} port={{ include "device-identity.postgresPort" . }} dbname={{ .Values.database.name }}

[pgbouncer]
listen_addr = 0.0.0.0
listen_port = {{ $p.port }}
;; No Unix socket: the root filesystem is read-only and every client (exporter included) uses TCP.
unix_socket_dir =
auth_type = scram-sha-256
{{- if .Values.database.existingSecret }}
;; Written at start from database.existingSecret (templates/pgbouncer/deployment.yaml), into memory.
auth_file = /run/pgbouncer/userlist.txt
{{- else }}
auth_file = /etc/pgbouncer/userlist.txt
{{- end }}
admin_users = {{ .Values.database.user }}
stats_users = {{ .Values.database.user }}

pool_mode = transaction
max_client_conn = {{ $p.maxClientConn }}
default_pool_size = {{ $p.defaultPoolSize }}
reserve_pool_size = {{ $p.reservePoolSize }}

query_wait_timeout = {{ include "device-identity.seconds" $p.queryWaitTimeout }}
server_idle_timeout = {{ include "device-identity.seconds" $p.serverIdleTimeout }}
server_connect_timeout = {{ include "device-identity.seconds" $p.serverConnectTimeout }}
server_login_retry = {{ include "device-identity.seconds" $p.serverLoginRetry }}

;; pgJDBC and pgbouncer_exporter send extra_float_digits at startup.
ignore_startup_parameters = extra_float_digits
{{- end -}}

{{/* Both roles: PgBouncer logs in to PostgreSQL as the client's user, so each needs its password here. */}}
{{- define "device-identity.pgbouncer.userlist" -}}
{{ printf "%q %q" .Values.database.user (include "device-identity.dbPassword" .) }}
{{ printf "%q %q" .Values.database.auth.user (include "device-identity.authDbPassword" .) }}
{{- end -}}
