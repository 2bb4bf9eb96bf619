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
;; The console's users are PgBouncer's own (pgbouncer.console), never the application's roles.
admin_users = {{ .Values.pgbouncer.console.adminUser }}
stats_users = {{ .Values.pgbouncer.console.statsUser }}

{{- if .Values.tls.enabled }}

;; TLS. Clients (the services) must use TLS; PgBouncer proves itself with its certificate. Towards
;; PostgreSQL it verifies the server's CA and host name (the [databases] host above). Keys as in PgBouncer 1.18
;; (src/main.c). Renewed files are read on RELOAD (SIGHUP): templates/pgbouncer/deployment.yaml.
client_tls_sslmode = {{ .Values.tls.database.pgbouncerClientSslMode }}
client_tls_key_file = /etc/pgbouncer-tls/tls.key
client_tls_cert_file = /etc/pgbouncer-tls/tls.crt
{{- if has .Values.tls.database.pgbouncerClientSslMode (list "verify-ca" "verify-full") }}
client_tls_ca_file = /etc/pgbouncer-tls/ca.crt
{{- end }}
server_tls_sslmode = verify-full
server_tls_ca_file = /etc/pgbouncer-db-ca/ca.crt
{{- end }}

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
{{ include "device-identity.pgbouncer.consoleUserlist" . }}
{{- end -}}

{{/* PgBouncer's console users (pgbouncer.console): only in its userlist, with their own passwords. */}}
{{- define "device-identity.pgbouncer.consoleUserlist" -}}
{{ printf "%q %q" .Values.pgbouncer.console.adminUser (include "device-identity.pgbouncer.adminPassword" .) }}
{{ printf "%q %q" .Values.pgbouncer.console.statsUser (include "device-identity.pgbouncer.statsPassword" .) }}
{{- end -}}

{{- define "device-identity.pgbouncer.adminPassword" -}}
{{- if .Values.pgbouncer.console.adminPassword -}}
{{- .Values.pgbouncer.console.adminPassword -}}
{{- else -}}
{{- include "device-identity.generated" (dict "root" . "secret" (include "device-identity.componentName" (dict "root" . "component" "pgbouncer")) "key" "admin-password" "cacheKey" "pgbouncerAdminPassword") -}}
{{- end -}}
{{- end -}}

{{- define "device-identity.pgbouncer.statsPassword" -}}
{{- if .Values.pgbouncer.console.statsPassword -}}
{{- .Values.pgbouncer.console.statsPassword -}}
{{- else -}}
{{- include "device-identity.generated" (dict "root" . "secret" (include "device-identity.componentName" (dict "root" . "component" "pgbouncer")) "key" "stats-password" "cacheKey" "pgbouncerStatsPassword") -}}
{{- end -}}
{{- end -}}

{{/* The exporter's connection to the console (as the stats user); over TLS when PgBouncer requires it of clients. */}}
{{- define "device-identity.pgbouncer.exporterUrl" -}}
{{- printf "postgres://%s:%s@127.0.0.1:%d/pgbouncer?sslmode=%s" (.Values.pgbouncer.console.statsUser | urlquery) (include "device-identity.pgbouncer.statsPassword" . | urlquery) (int .Values.pgbouncer.port) (ternary "require" "disable" .Values.tls.enabled) -}}
{{- end -}}
