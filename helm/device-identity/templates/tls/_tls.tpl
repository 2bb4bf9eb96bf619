{{/*
TLS on every hop that carries a credential (values tls.*, docs/security.md "Hop by hop"). Every component's
certificate lives in a kubernetes.io/tls Secret (tls.crt, tls.key, ca.crt): one cert-manager Certificate renders it
(tls.certManager), or the operator names one (tls.existingSecrets). The mount paths and environment names are the
services' contract (IDENTITY_TLS_*, IDENTITY_DB_SSL*): docs/configuration.md.
*/}}

{{/* The components that hold a certificate, and the key of each under tls.existingSecrets. */}}
{{- define "device-identity.tls.components" -}}
{{- dict "auth-service" "authService" "registration-service" "registrationService" "pgbouncer" "pgbouncer" "postgresql" "postgresql" "emqx" "emqx" "emqx-client" "emqxClient" | toJson -}}
{{- end -}}

{{/* Whether a component needs a certificate in this release: (dict "root" $ "component" <name>) -> "true" or "". */}}
{{- define "device-identity.tls.needed" -}}
{{- $v := .root.Values -}}
{{- if $v.tls.enabled -}}
{{- if has .component (list "auth-service" "registration-service" "pgbouncer") -}}true
{{- else if eq .component "postgresql" -}}{{- if $v.postgresql.enabled -}}true{{- end -}}
{{- else if eq .component "emqx" -}}{{- if $v.emqx.enabled -}}true{{- end -}}
{{- else if eq .component "emqx-client" -}}{{- if $v.emqx.clientCertificate -}}true{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The Secret holding a component's certificate: (dict "root" $ "component" <name>). */}}
{{- define "device-identity.tls.secretName" -}}
{{- if .root.Values.tls.certManager.enabled -}}
{{- printf "%s-tls" (include "device-identity.componentName" .) | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- index .root.Values.tls.existingSecrets (index (include "device-identity.tls.components" . | fromJson) .component) -}}
{{- end -}}
{{- end -}}

{{/*
The Secret whose ca.crt the services verify PgBouncer against (IDENTITY_DB_SSLROOTCERT): PgBouncer's own certificate
Secret, whose ca.crt is the CA that signed it. Never tls.database.caSecret: that one is the CA of an external
PostgreSQL, known before the install, while PgBouncer's CA (the chart's own, with cert-manager) exists only after it.
*/}}
{{- define "device-identity.tls.dbCaSecret" -}}
{{- include "device-identity.tls.secretName" (dict "root" . "component" "pgbouncer") -}}
{{- end -}}

{{/*
The Secret whose ca.crt PostgreSQL itself is verified against: by PgBouncer (server_tls_ca_file) and by the
connections straight to PostgreSQL, registration-service's migrations (IDENTITY_SCHEMA_SSLROOTCERT) and its db-roles
init container.
*/}}
{{- define "device-identity.tls.postgresCaSecret" -}}
{{- if .Values.tls.database.caSecret -}}
{{- .Values.tls.database.caSecret -}}
{{- else if .Values.postgresql.enabled -}}
{{- include "device-identity.tls.secretName" (dict "root" . "component" "postgresql") -}}
{{- end -}}
{{- end -}}

{{/* A Service's DNS names, as clients address it: short, with namespace, .svc and the cluster domain. */}}
{{- define "device-identity.tls.serviceDnsNames" -}}
{{- $name := include "device-identity.componentName" . -}}
{{- $ns := .root.Release.Namespace -}}
{{- list $name (printf "%s.%s" $name $ns) (printf "%s.%s.svc" $name $ns) (printf "%s.%s.svc.%s" $name $ns .root.Values.clusterDomain) | toJson -}}
{{- end -}}

{{/* The host EMQX's authenticator calls; it is also the name EMQX checks auth-service's certificate for. */}}
{{- define "device-identity.authHost" -}}
{{- printf "%s.%s.svc" (include "device-identity.componentName" (dict "root" . "component" "auth-service")) .Release.Namespace -}}
{{- end -}}

{{/* Whether PostgreSQL and PgBouncer get the certificate reloader (tls.databaseReload): "true" or "". */}}
{{- define "device-identity.tls.databaseReload" -}}
{{- if and .Values.tls.enabled .Values.tls.databaseReload.enabled -}}true{{- end -}}
{{- end -}}

{{/*
The reloader's command line: (dict "root" $ "command" <sh -c string> "files" <list of paths>). It runs the script
from the ConfigMap mounted at /opt/tls-reload.
*/}}
{{- define "device-identity.tls.reloadArgs" -}}
{{- $args := list "/bin/sh" "/opt/tls-reload/tls-reload.sh" (toString .root.Values.tls.databaseReload.periodSeconds) .command -}}
{{- concat $args .files | toJson -}}
{{- end -}}

{{- define "device-identity.tls.reloadScriptVolume" -}}
- name: tls-reload
  configMap:
    name: {{ include "device-identity.componentName" (dict "root" . "component" "tls-reload") }}
    defaultMode: 0555
{{- end -}}

{{/* "https" when the services serve TLS, else "http": the scheme, and the name of their main container port. */}}
{{- define "device-identity.scheme" -}}
{{- if .Values.tls.enabled -}}https{{- else -}}http{{- end -}}
{{- end -}}

{{/*
The services' TLS and management environment (ConfigMap part): (dict "root" $ "component" <service>). The names are
the services' (their TLS configuration, docs/security.md "Hop by hop").
*/}}
{{- define "device-identity.tls.serviceEnv" -}}
{{- $v := .root.Values -}}
# TLS: HTTPS only on the main port, certificates re-read every reloadPeriod (cert-manager renews them).
IDENTITY_TLS_ENABLED: {{ $v.tls.enabled | quote }}
{{- if $v.tls.enabled }}
IDENTITY_TLS_CERT_FILE: "/etc/device-identity/tls/tls.crt"
IDENTITY_TLS_KEY_FILE: "/etc/device-identity/tls/tls.key"
IDENTITY_TLS_RELOAD_PERIOD: {{ $v.tls.reloadPeriod | quote }}
{{- if eq .component "auth-service" }}
# Mutual TLS from EMQX (emqx.clientCertificate): a client certificate chaining to this CA is required.
IDENTITY_TLS_CLIENT_AUTH: {{ ternary "required" "none" $v.emqx.clientCertificate | quote }}
{{- if $v.emqx.clientCertificate }}
IDENTITY_TLS_CLIENT_CA_FILE: "/etc/device-identity/client-ca/ca.crt"
{{- end }}
{{- end }}
# pgjdbc verifies PgBouncer (and, for migrations, PostgreSQL) against this CA and their host names.
IDENTITY_DB_SSLMODE: {{ $v.tls.database.sslMode | quote }}
IDENTITY_DB_SSLROOTCERT: "/etc/device-identity/db-ca/ca.crt"
{{- if eq .component "registration-service" }}
# Its migrations connect to PostgreSQL itself, whose CA may be another one (tls.database.caSecret).
IDENTITY_SCHEMA_SSLROOTCERT: "/etc/device-identity/schema-ca/ca.crt"
{{- end }}
{{- else }}
IDENTITY_DB_SSLMODE: "disable"
{{- end }}
# Health and metrics on the management interface's own port (plain HTTP, container port "management").
IDENTITY_MANAGEMENT_PORT: {{ $v.management.port | quote }}
{{- end -}}

{{/* The services' certificate volumes: (dict "root" $ "component" <service>). */}}
{{- define "device-identity.tls.serviceVolumes" -}}
{{- $v := .root.Values -}}
{{- if $v.tls.enabled }}
- name: tls
  secret:
    secretName: {{ include "device-identity.tls.secretName" . }}
    items:
      - key: tls.crt
        path: tls.crt
      - key: tls.key
        path: tls.key
    # 0440: the service's user reads it through fsGroup; nobody else.
    defaultMode: 288
- name: db-ca
  secret:
    secretName: {{ include "device-identity.tls.dbCaSecret" .root }}
    items:
      - key: ca.crt
        path: ca.crt
    defaultMode: 292
{{- if eq .component "registration-service" }}
- name: schema-ca
  secret:
    secretName: {{ include "device-identity.tls.postgresCaSecret" .root }}
    items:
      - key: ca.crt
        path: ca.crt
    defaultMode: 292
{{- end }}
{{- if and (eq .component "auth-service") $v.emqx.clientCertificate }}
- name: client-ca
  secret:
    secretName: {{ include "device-identity.tls.secretName" (dict "root" .root "component" "emqx-client") }}
    items:
      - key: ca.crt
        path: ca.crt
    defaultMode: 292
{{- end }}
{{- end }}
{{- end -}}

{{- define "device-identity.tls.serviceMounts" -}}
{{- $v := .root.Values -}}
{{- if $v.tls.enabled }}
- name: tls
  mountPath: /etc/device-identity/tls
  readOnly: true
- name: db-ca
  mountPath: /etc/device-identity/db-ca
  readOnly: true
{{- if eq .component "registration-service" }}
- name: schema-ca
  mountPath: /etc/device-identity/schema-ca
  readOnly: true
{{- end }}
{{- if and (eq .component "auth-service") $v.emqx.clientCertificate }}
- name: client-ca
  mountPath: /etc/device-identity/client-ca
  readOnly: true
{{- end }}
{{- end }}
{{- end -}}

{{/*
The TLS settings EMQX's http authenticator and authorizer use towards auth-service (EMQX 5.8 ssl_client_opts:
emqx/emqx apps/emqx/src/emqx_schema.erl client_ssl_opts_schema/common_ssl_opts_schema): verify_peer against the CA
of auth-service's certificate, with the Service's name as SNI (Erlang's ssl then checks the certificate's host name),
and EMQX's client certificate when emqx.clientCertificate. paths: (dict "ca" .. "cert" .. "key" ..) where EMQX finds
the files. Returns JSON.
*/}}
{{- define "device-identity.emqx.ssl" -}}
{{- $v := .root.Values -}}
{{- if $v.tls.enabled -}}
{{- $ssl := dict "enable" true "verify" "verify_peer" "cacertfile" .paths.ca "server_name_indication" (include "device-identity.authHost" .root) -}}
{{- if $v.emqx.clientCertificate -}}
{{- $_ := set $ssl "certfile" .paths.cert -}}
{{- $_ := set $ssl "keyfile" .paths.key -}}
{{- end -}}
{{- toJson $ssl -}}
{{- else -}}
{{- dict "enable" false | toJson -}}
{{- end -}}
{{- end -}}

{{/* Where the chart's EMQX finds them (templates/emqx/statefulset.yaml mounts them there). */}}
{{- define "device-identity.emqx.sslPaths" -}}
{{- dict "ca" "/opt/emqx/auth-ca/ca.crt" "cert" "/opt/emqx/client-tls/tls.crt" "key" "/opt/emqx/client-tls/tls.key" | toJson -}}
{{- end -}}

{{/* Where an EMQX of your own keeps them (NOTES.txt, docs/emqx.md: copy the Secrets' files there). */}}
{{- define "device-identity.emqx.ownSslPaths" -}}
{{- dict "ca" "/etc/emqx/certs/device-identity/ca.crt" "cert" "/etc/emqx/certs/device-identity/tls.crt" "key" "/etc/emqx/certs/device-identity/tls.key" | toJson -}}
{{- end -}}

{{/*
Refusals (validate.yaml fails with them): a value that leaves a hop carrying a credential in clear, unless
tls.plaintextAllowedBecause names why; a certificate Secret that is needed and not named. JSON list of messages.
*/}}
{{- define "device-identity.validate.tls" -}}
{{- $v := .Values -}}
{{- $errors := list -}}
{{- $optOut := "set tls.plaintextAllowedBecause to the reason (e.g. \"service mesh in strict mTLS\") to render it anyway" -}}
{{- $allowed := $v.tls.plaintextAllowedBecause -}}
{{- if not $allowed -}}
{{- if not $v.tls.enabled -}}
{{- $errors = append $errors (printf "tls: tls.enabled=false leaves every credential hop in clear (device passwords from EMQX to auth-service, registration tokens, bcrypt hashes and verifiers between the services, PgBouncer and PostgreSQL). Keep tls.enabled=true, or %s." $optOut) -}}
{{- else -}}
{{- if ne $v.tls.database.sslMode "verify-full" -}}
{{- $errors = append $errors (printf "tls: tls.database.sslMode=%s does not check that the database is the one named (only verify-full checks the CA and the host name): a server in between would read every hash and verifier. Use verify-full, or %s." $v.tls.database.sslMode $optOut) -}}
{{- end -}}
{{- $k := $v.registrationService.kicks -}}
{{- if and $k.enabled (hasPrefix "http://" $k.emqxApiUrl) -}}
{{- $errors = append $errors (printf "tls: registrationService.kicks.emqxApiUrl=%s is plain HTTP: registration-service's EMQX API key (an administrator's) would cross in clear with every kick. Use EMQX's HTTPS dashboard listener (dashboard.listeners.https, e.g. https://emqx:18084) and name its CA in registrationService.kicks.caSecret, or %s." $k.emqxApiUrl $optOut) -}}
{{- end -}}
{{- if not (has $v.tls.database.pgbouncerClientSslMode (list "require" "verify-ca" "verify-full")) -}}
{{- $errors = append $errors (printf "tls: tls.database.pgbouncerClientSslMode=%s lets the services talk to PgBouncer in clear. Use require (or verify-ca / verify-full), or %s." $v.tls.database.pgbouncerClientSslMode $optOut) -}}
{{- end -}}
{{- end -}}
{{- if and $v.emqx.enabled $v.emqx.listeners.plaintext (has $v.emqx.service.type (list "LoadBalancer" "NodePort")) -}}
{{- $errors = append $errors (printf "tls: emqx.listeners.plaintext=true with emqx.service.type=%s exposes MQTT on 1883 (and WebSocket on 8083) outside the cluster without TLS: devices' passwords would cross in clear. Set emqx.listeners.plaintext=false (devices use 8883), or %s." $v.emqx.service.type $optOut) -}}
{{- end -}}
{{- end -}}
{{- if $v.tls.enabled -}}
{{- if not $v.tls.certManager.enabled -}}
{{- $names := include "device-identity.tls.components" . | fromJson -}}
{{- range $component := keys $names | sortAlpha -}}
{{- if and (include "device-identity.tls.needed" (dict "root" $ "component" $component)) (not (index $v.tls.existingSecrets (index $names $component))) -}}
{{- $errors = append $errors (printf "tls: tls.certManager.enabled=false but tls.existingSecrets.%s is empty: name the kubernetes.io/tls Secret (tls.crt, tls.key, ca.crt) of %s, or set tls.certManager.enabled=true." (index $names $component) $component) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $ing := $v.registrationService.ingress -}}
{{- if $ing.enabled -}}
{{- if not $ing.host -}}
{{- $errors = append $errors "tls: registrationService.ingress.enabled=true but registrationService.ingress.host is empty: name the host callers use (the Ingress's rule and its TLS certificate are for it)." -}}
{{- else if and (not $ing.tlsSecret) (not $allowed) -}}
{{- $errors = append $errors (printf "tls: registrationService.ingress.enabled=true without registrationService.ingress.tlsSecret: registration tokens and device passwords would reach the ingress in clear. Name the kubernetes.io/tls Secret for %s (or let cert-manager fill it through the Ingress's annotations), or %s." $ing.host $optOut) -}}
{{- end -}}
{{- end -}}
{{- with $v.emqx.clientCertificateNamespace -}}
{{- $where := printf "emqx.clientCertificateNamespace=%s" . -}}
{{- if $v.emqx.enabled -}}
{{- $errors = append $errors (printf "tls: %s is for an EMQX of your own (emqx.enabled=false); the chart's EMQX mounts the certificate from the release's namespace. Leave it empty." $where) -}}
{{- else if not $v.emqx.clientCertificate -}}
{{- $errors = append $errors (printf "tls: %s but emqx.clientCertificate=false: there is no client certificate to issue. Set emqx.clientCertificate=true, or leave the namespace empty." $where) -}}
{{- else if not $v.tls.certManager.enabled -}}
{{- $errors = append $errors (printf "tls: %s needs cert-manager (tls.certManager.enabled=true): with tls.existingSecrets the certificate is yours to place in that namespace." $where) -}}
{{- else if or (not $v.tls.certManager.issuerRef.name) (ne $v.tls.certManager.issuerRef.kind "ClusterIssuer") -}}
{{- $errors = append $errors (printf "tls: %s needs tls.certManager.issuerRef of kind ClusterIssuer: a cert-manager Certificate in another namespace cannot use an Issuer of the release's namespace (the chart's own CA included). Name a CA ClusterIssuer of your own there (docs/kubernetes.md, \"Your own EMQX\")." $where) -}}
{{- end -}}
{{- end -}}
{{- if and (not $v.postgresql.enabled) (not $v.tls.database.caSecret) -}}
{{- $errors = append $errors "tls: postgresql.enabled=false but tls.database.caSecret is empty: PgBouncer (server_tls_sslmode=verify-full) and registration-service's migrations verify your PostgreSQL against a CA the chart cannot know. Put that CA into a Secret's ca.crt (kubectl create secret generic identity-db-ca --from-file=ca.crt=your-postgresql-ca.pem) and name it in tls.database.caSecret; PgBouncer's CA is not needed in it." -}}
{{- end -}}
{{- end -}}
{{- toJson $errors -}}
{{- end -}}
