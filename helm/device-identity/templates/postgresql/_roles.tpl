{{/*
The bundled PostgreSQL's roles. The image makes POSTGRES_USER a superuser; that is "postgres" here, with a
generated password of its own (Secret <fullname>-postgresql-admin), and pg_hba refuses it over the network: it only
bootstraps. The runtime roles are not superusers: the owner database.user (registration-service, Flyway; it owns the
database, so it may create the schema) and auth-service's database.auth.user (SELECT and two UPDATE columns, granted by
V2). The "roles" container of the PostgreSQL pod creates or updates both over the pod's Unix socket at every start of
the pod (a changed password rolls it), then idles; registration-service's init container waits until they exist.
*/}}

{{- define "device-identity.postgresAdminSecretName" -}}
{{- include "device-identity.componentName" (dict "root" . "component" "postgresql-admin") -}}
{{- end -}}

{{- define "device-identity.postgresAdminPassword" -}}
{{- if .Values.postgresql.adminPassword -}}
{{- .Values.postgresql.adminPassword -}}
{{- else -}}
{{- include "device-identity.generated" (dict "root" . "secret" (include "device-identity.postgresAdminSecretName" .) "key" "password" "cacheKey" "postgresAdminPassword") -}}
{{- end -}}
{{- end -}}

{{/*
The PostgreSQL pod's "roles" container. A volume made by a chart before this one has the owner as its bootstrap
superuser and no "postgres" role: the owner (trusted on the socket) then creates "postgres" first, and the ALTER ROLE
below takes the owner's superuser away. Idempotent; retried while the server starts. \getenv needs psql 15+.
*/}}
{{- define "device-identity.postgresRolesContainer" -}}
{{- $pg := .Values.postgresql -}}
- name: roles
  image: {{ include "device-identity.image" (dict "root" . "image" $pg.image) | quote }}
  imagePullPolicy: {{ $pg.image.pullPolicy }}
  command: ["/bin/sh", "-c"]
  args:
    - |
      set -eu
      until pg_isready -q; do sleep 2; done
      # Database "postgres" exists from initdb on; "identity" only once the entrypoint has made it.
      until out=$(psql -X -q -d postgres -U postgres -c 'SELECT 1' 2>&1); do
        case "$out" in
          *'role "postgres" does not exist'*)
            echo "no role postgres: a volume of an older chart, whose superuser is $OWNER_USER; creating postgres"
            psql -X -q -v ON_ERROR_STOP=1 -d postgres -U "$OWNER_USER" -c 'CREATE ROLE postgres SUPERUSER LOGIN' || sleep 2 ;;
          *) sleep 2 ;;
        esac
      done
      until psql -X -q -v ON_ERROR_STOP=1 -U postgres <<'SQL'
      \getenv owner OWNER_USER
      \getenv owner_password OWNER_PASSWORD
      \getenv auth_user AUTH_DB_USER
      \getenv auth_password AUTH_DB_PASSWORD
      \getenv db PGDATABASE
      SELECT format('CREATE ROLE %I LOGIN', :'owner') WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'owner')\gexec
      ALTER ROLE :"owner" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'owner_password';
      ALTER DATABASE :"db" OWNER TO :"owner";
      SELECT format('CREATE ROLE %I LOGIN', :'auth_user') WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'auth_user')\gexec
      ALTER ROLE :"auth_user" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'auth_password';
      SQL
      do sleep 2; done
      echo "roles $OWNER_USER and $AUTH_DB_USER are in place, neither a superuser"
      {{- if include "device-identity.tls.databaseReload" . }}
      # Then it stays to make PostgreSQL serve a renewed certificate (tls.databaseReload): pg_reload_conf() over the
      # socket when the mounted files change; new connections get it, nothing restarts.
      exec /bin/sh /opt/tls-reload/tls-reload.sh {{ .Values.tls.databaseReload.periodSeconds }} "psql -X -q -v ON_ERROR_STOP=1 -d postgres -U postgres -c 'SELECT pg_reload_conf()'" /etc/postgresql-tls/tls.crt /etc/postgresql-tls/tls.key
      {{- else }}
      trap 'exit 0' TERM INT
      while :; do sleep 3600 & wait $!; done
      {{- end }}
  env:
    # The pod's Unix socket (the shared "run" volume): trusted inside the pod only (pg_hba.conf).
    - name: PGHOST
      value: /var/run/postgresql
    - name: PGPORT
      value: {{ $pg.port | quote }}
    - name: PGDATABASE
      value: {{ .Values.database.name | quote }}
    - name: OWNER_USER
      value: {{ .Values.database.user | quote }}
    - name: OWNER_PASSWORD
      valueFrom:
        secretKeyRef:
          name: {{ include "device-identity.dbPasswordSecretName" . }}
          key: {{ include "device-identity.dbPasswordSecretKey" . }}
    - name: AUTH_DB_USER
      valueFrom:
        secretKeyRef:
          name: {{ include "device-identity.authDbSecretName" . }}
          key: username
    - name: AUTH_DB_PASSWORD
      valueFrom:
        secretKeyRef:
          name: {{ include "device-identity.authDbSecretName" . }}
          key: password
  resources:
    requests:
      cpu: 10m
      memory: 16Mi
    limits:
      cpu: 200m
      memory: 64Mi
  securityContext:
    {{- include "device-identity.containerSecurityContext" . | nindent 4 }}
  volumeMounts:
    - name: run
      mountPath: /var/run/postgresql
    - name: tmp
      mountPath: /tmp
    {{- if include "device-identity.tls.databaseReload" . }}
    - name: tls
      mountPath: /etc/postgresql-tls
      readOnly: true
    - name: tls-reload
      mountPath: /opt/tls-reload
      readOnly: true
    {{- end }}
{{- end -}}

{{/*
registration-service's init container with the bundled PostgreSQL: waits, logged in as the owner (over TLS, verified
like its datasources), until auth-service's role exists and neither role is a superuser, because V2 grants to that
role and fails without it.
*/}}
{{- define "device-identity.authRoleInitContainer" -}}
{{- $pg := .Values.postgresql -}}
- name: db-roles
  image: {{ include "device-identity.image" (dict "root" . "image" $pg.image) | quote }}
  imagePullPolicy: {{ $pg.image.pullPolicy }}
  command: ["/bin/sh", "-c"]
  args:
    - |
      set -eu
      attempt=1
      until psql -X -q -t -v ON_ERROR_STOP=1 <<'SQL'
      \getenv auth_user AUTH_DB_USER
      SELECT 1 / count(*) FROM pg_roles WHERE rolname = :'auth_user' AND NOT rolsuper;
      SELECT 1 / (1 - count(*)) FROM pg_roles WHERE rolname = current_user AND rolsuper;
      SQL
      do
        if [ "$attempt" -ge 90 ]; then
          echo "the roles $PGUSER and $AUTH_DB_USER are not in place (non-superusers) in $PGDATABASE on $PGHOST:$PGPORT" >&2
          exit 1
        fi
        attempt=$((attempt + 1))
        sleep 2
      done
      echo "roles $PGUSER and $AUTH_DB_USER are in place"
  env:
    - name: PGHOST
      value: {{ include "device-identity.postgresHost" . | quote }}
    - name: PGPORT
      value: {{ include "device-identity.postgresPort" . | quote }}
    - name: PGDATABASE
      value: {{ .Values.database.name | quote }}
    - name: PGCONNECT_TIMEOUT
      value: "3"
    {{- if .Values.tls.enabled }}
    - name: PGSSLMODE
      value: {{ .Values.tls.database.sslMode | quote }}
    - name: PGSSLROOTCERT
      value: /etc/device-identity/schema-ca/ca.crt
    {{- end }}
    - name: PGUSER
      valueFrom:
        secretKeyRef:
          name: {{ include "device-identity.dbSecretName" . }}
          key: username
    - name: PGPASSWORD
      valueFrom:
        secretKeyRef:
          name: {{ include "device-identity.dbPasswordSecretName" . }}
          key: {{ include "device-identity.dbPasswordSecretKey" . }}
    - name: AUTH_DB_USER
      valueFrom:
        secretKeyRef:
          name: {{ include "device-identity.authDbSecretName" . }}
          key: username
  resources:
    requests:
      cpu: 10m
      memory: 16Mi
    limits:
      cpu: 200m
      memory: 64Mi
  securityContext:
    {{- include "device-identity.containerSecurityContext" . | nindent 4 }}
  volumeMounts:
    # The root filesystem is read-only; the pod's scratch volume, in case the shell needs a file for the here-document.
    - name: tmp
      mountPath: /tmp
    {{- if .Values.tls.enabled }}
    - name: schema-ca
      mountPath: /etc/device-identity/schema-ca
      readOnly: true
    {{- end }}
{{- end -}}

{{/* PgBouncer's console users are not the application's roles (and not each other). JSON list of messages. */}}
{{- define "device-identity.validate.roles" -}}
{{- $v := .Values -}}
{{- $errors := list -}}
{{- $c := $v.pgbouncer.console -}}
{{- $app := list $v.database.user $v.database.auth.user "postgres" -}}
{{- range $key, $user := dict "adminUser" $c.adminUser "statsUser" $c.statsUser -}}
{{- if has $user $app -}}
{{- $errors = append $errors (printf "roles: pgbouncer.console.%s %q is a database role (database.user, database.auth.user or postgres): PgBouncer's console users must be its own, so that reading its statistics or pausing it never needs the application's password. Choose another name." $key $user) -}}
{{- end -}}
{{- end -}}
{{- if eq $c.adminUser $c.statsUser -}}
{{- $errors = append $errors (printf "roles: pgbouncer.console.adminUser and statsUser are both %q: the exporter (stats) must not hold the admin's powers. Choose two names." $c.adminUser) -}}
{{- end -}}
{{- toJson $errors -}}
{{- end -}}
