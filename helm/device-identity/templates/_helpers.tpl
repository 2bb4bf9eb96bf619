{{/* ----- Names and labels ---------------------------------------------------------------------------------- */}}

{{- define "device-identity.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "device-identity.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Name of one component's objects: (dict "root" $ "component" "auth-service") */}}
{{- define "device-identity.componentName" -}}
{{- printf "%s-%s" (include "device-identity.fullname" .root) .component | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "device-identity.selectorLabels" -}}
app.kubernetes.io/name: {{ include "device-identity.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "device-identity.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "device-identity.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/part-of: device-identity
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
{{- end -}}

{{- define "device-identity.image" -}}
{{- printf "%s:%s" .image.repository (default .root.Chart.AppVersion (toString .image.tag)) -}}
{{- end -}}

{{/* Pods labelled so are admitted by the NetworkPolicies: load-test Jobs and the `helm test` Pod carry them. */}}
{{- define "device-identity.authnClientLabel" -}}device-identity.io/authn-client{{- end -}}
{{- define "device-identity.registrationClientLabel" -}}device-identity.io/registration-client{{- end -}}

{{/* ----- Hosts ------------------------------------------------------------------------------------------------ */}}

{{/* "true" when the chart's PostgreSQL is a CloudNativePG Cluster (postgresql.cnpg.enabled), else "". */}}
{{- define "device-identity.cnpg" -}}
{{- if and .Values.postgresql.enabled .Values.postgresql.cnpg.enabled -}}true{{- end -}}
{{- end -}}

{{/* The CloudNativePG Pooler in front of the -ro Service (postgresql.cnpg.standbyReads); also its Service's name. */}}
{{- define "device-identity.cnpg.readPooler" -}}
{{- include "device-identity.componentName" (dict "root" . "component" "pgbouncer-ro") -}}
{{- end -}}

{{/* The primary: the StatefulSet's Service, the Cluster's -rw Service (it follows a failover), or external.host. */}}
{{- define "device-identity.postgresHost" -}}
{{- if include "device-identity.cnpg" . -}}
{{- printf "%s-rw" (include "device-identity.componentName" (dict "root" . "component" "postgresql")) -}}
{{- else if .Values.postgresql.enabled -}}
{{- include "device-identity.componentName" (dict "root" . "component" "postgresql") -}}
{{- else -}}
{{- required "postgresql.external.host must be set when postgresql.enabled=false" .Values.postgresql.external.host -}}
{{- end -}}
{{- end -}}

{{- define "device-identity.postgresPort" -}}
{{- if .Values.postgresql.enabled -}}{{ .Values.postgresql.port }}{{- else -}}{{ .Values.postgresql.external.port }}{{- end -}}
{{- end -}}

{{- define "device-identity.authUrl" -}}
{{- printf "%s://%s:%d" (include "device-identity.scheme" .) (include "device-identity.authHost" .) (int .Values.authService.port) -}}
{{- end -}}

{{/* ----- Secrets that are generated once and kept across upgrades -------------------------------------------- */}}

{{/*
A generated value is looked up in the Secret the release already has, so an upgrade keeps it; on first install it is
random. It is cached in .Values so that every template of one render sees the same value (the database password
appears in the services' Secret, PgBouncer's userlist and PostgreSQL's Secret).
Args: (dict "root" $ "secret" <name> "key" <key> "cacheKey" <name>), optionally "random" <first-install value>
(default: 32 random alphanumerics).
*/}}
{{- define "device-identity.generated" -}}
{{- $cache := default dict .root.Values._generated -}}
{{- if not (hasKey $cache .cacheKey) -}}
{{- $value := .random | default (randAlphaNum 32) -}}
{{- $existing := lookup "v1" "Secret" .root.Release.Namespace .secret -}}
{{- if and $existing $existing.data (hasKey $existing.data .key) -}}
{{- $value = index $existing.data .key | b64dec -}}
{{- end -}}
{{- $_ := set $cache .cacheKey $value -}}
{{- $_ := set .root.Values "_generated" $cache -}}
{{- end -}}
{{- index $cache .cacheKey -}}
{{- end -}}

{{- define "device-identity.dbSecretName" -}}
{{- include "device-identity.componentName" (dict "root" . "component" "db") -}}
{{- end -}}

{{/*
The database password is rendered only when the chart owns it (database.password, or generated for the bundled
PostgreSQL). With database.existingSecret nothing may call this: the pods read that Secret (dbPasswordSecretName /
dbPasswordSecretKey). An external database without a password source renders "" here, so that the validation's
message (templates/_validate.tpl), not a generated password, is what the user sees.
*/}}
{{- define "device-identity.dbPassword" -}}
{{- if .Values.database.existingSecret -}}
{{- fail "device-identity.dbPassword called with database.existingSecret set (a chart bug)" -}}
{{- else if .Values.database.password -}}
{{- .Values.database.password -}}
{{- else if not .Values.postgresql.enabled -}}
{{- else -}}
{{- include "device-identity.generated" (dict "root" . "secret" (include "device-identity.dbSecretName" .) "key" "password" "cacheKey" "dbPassword") -}}
{{- end -}}
{{- end -}}

{{/* Where the pods read the database password: database.existingSecret, or the chart's own Secret. */}}
{{- define "device-identity.dbPasswordSecretName" -}}
{{- default (include "device-identity.dbSecretName" .) .Values.database.existingSecret -}}
{{- end -}}

{{- define "device-identity.dbPasswordSecretKey" -}}
{{- if .Values.database.existingSecret -}}{{ .Values.database.existingSecretKey }}{{- else -}}password{{- end -}}
{{- end -}}

{{/* A checksum of the database password for pod annotations; "" when it lives in an existingSecret. */}}
{{- define "device-identity.dbPasswordChecksum" -}}
{{- if not .Values.database.existingSecret -}}{{ include "device-identity.dbPassword" . | sha256sum }}{{- end -}}
{{- end -}}

{{- define "device-identity.tokensSecretName" -}}
{{- if .Values.registrationService.existingSecret -}}
{{- .Values.registrationService.existingSecret -}}
{{- else -}}
{{- include "device-identity.componentName" (dict "root" . "component" "registration-tokens") -}}
{{- end -}}
{{- end -}}

{{/*
The registration API's tokens (registrationService.tokens) as a JSON list of {id, scopes, token}. A token left out is
generated once and kept across upgrades under the key token-<id> of the tokens Secret. Upgrading from the chart
before token ids: that Secret's "tokens" then holds one bare generated token, which the first entry without a token
takes over, so that callers keep working.
*/}}
{{- define "device-identity.registrationTokenList" -}}
{{- $root := . -}}
{{- $secret := include "device-identity.tokensSecretName" . -}}
{{- $out := list -}}
{{- range $i, $t := .Values.registrationService.tokens -}}
{{- if not (kindIs "map" $t) -}}
{{- fail (printf "registrationService.tokens[%d] is a plain string, the format before token ids. Each entry is now {id, scopes, token}: e.g. - id: admin / scopes: [read, write, superuser, import-replace] / token: <the old token> (leave token out to have one generated); docs/security.md, Registration tokens" $i) -}}
{{- end -}}
{{- $token := $t.token -}}
{{- if not $token -}}
{{- $first := "" -}}
{{- if eq $i 0 -}}
{{- $old := include "device-identity.generated" (dict "root" $root "secret" $secret "key" "tokens" "cacheKey" "tokensBeforeIds" "random" "-") -}}
{{- if and (ne $old "-") (not (contains ":" $old)) (not (contains "," $old)) -}}
{{- $first = $old -}}
{{- end -}}
{{- end -}}
{{- $token = include "device-identity.generated" (dict "root" $root "secret" $secret "key" (printf "token-%s" $t.id) "cacheKey" (printf "token-%s" $t.id) "random" $first) -}}
{{- end -}}
{{- $out = append $out (dict "id" $t.id "scopes" $t.scopes "token" $token) -}}
{{- end -}}
{{- toJson $out -}}
{{- end -}}

{{/* REGISTRATION_TOKENS: <id>:<scope>+<scope>:<token>, comma-separated, as registration-service reads it. */}}
{{- define "device-identity.registrationTokens" -}}
{{- $entries := list -}}
{{- range (include "device-identity.registrationTokenList" . | fromJsonArray) -}}
{{- $entries = append $entries (printf "%s:%s:%s" .id (join "+" .scopes) .token) -}}
{{- end -}}
{{- join "," $entries -}}
{{- end -}}

{{- define "device-identity.emqxDashboardPassword" -}}
{{- if .Values.emqx.dashboard.password -}}
{{- .Values.emqx.dashboard.password -}}
{{- else -}}
{{- include "device-identity.generated" (dict "root" . "secret" (include "device-identity.componentName" (dict "root" . "component" "emqx")) "key" "dashboard-password" "cacheKey" "emqxDashboard") -}}
{{- end -}}
{{- end -}}

{{- define "device-identity.emqxNodeCookie" -}}
{{- if .Values.emqx.nodeCookie -}}
{{- .Values.emqx.nodeCookie -}}
{{- else -}}
{{- include "device-identity.generated" (dict "root" . "secret" (include "device-identity.componentName" (dict "root" . "component" "emqx")) "key" "node-cookie" "cacheKey" "emqxCookie") -}}
{{- end -}}
{{- end -}}

{{/*
The kick of revoked and re-keyed devices (registrationService.kicks, docs/security.md#revocation), as JSON:
enabled, url (EMQX's REST API), secret (a Secret with "key" and "secret"), own (the chart generates that Secret and
bootstraps the key into the EMQX it deploys), caSecret (a Secret whose ca.crt EMQX's API certificate is verified
against; absent: the JVM's trust store). An EMQX of this chart: its Service's dashboard port (https on 18084 with
tls.enabled, verified against the CA of EMQX's certificate), the key
"registration-service" with a secret generated once and kept across upgrades. Your own EMQX: kicks.emqxApiUrl with
kicks.existingSecret (checked in _validate.tpl).
*/}}
{{- define "device-identity.kicks" -}}
{{- $k := .Values.registrationService.kicks -}}
{{- $emqx := include "device-identity.componentName" (dict "root" . "component" "emqx") -}}
{{- if and $k.enabled $k.emqxApiUrl -}}
{{- $kick := dict "enabled" true "url" $k.emqxApiUrl "secret" $k.existingSecret "own" false -}}
{{- with $k.caSecret -}}
{{- $_ := set $kick "caSecret" . -}}
{{- end -}}
{{- $kick | toJson -}}
{{- else if and $k.enabled .Values.emqx.enabled -}}
{{- $scheme := ternary "https" "http" .Values.tls.enabled -}}
{{- $kick := dict "enabled" true "url" (printf "%s://%s-dashboard.%s.svc.%s:%s" $scheme $emqx .Release.Namespace .Values.clusterDomain (include "device-identity.emqxDashboardPort" .)) "secret" (include "device-identity.emqxApiSecretName" .) "own" true -}}
{{- if .Values.tls.enabled -}}
{{- $_ := set $kick "caSecret" (include "device-identity.tls.secretName" (dict "root" . "component" "emqx")) -}}
{{- end -}}
{{- $kick | toJson -}}
{{- else -}}
{{- dict "enabled" false "own" false | toJson -}}
{{- end -}}
{{- end -}}

{{/*
EMQX's dashboard and REST API port: 18084 over HTTPS (dashboard.listeners.https, with EMQX's certificate) when
tls.enabled, and then the plain 18083 listener is off; 18083 over HTTP otherwise. Names from EMQX 5.8.9's
apps/emqx_dashboard/src/emqx_dashboard_schema.erl (fields "http"/"https", bind 0 = off).
*/}}
{{- define "device-identity.emqxDashboardPort" -}}
{{- ternary "18084" "18083" .Values.tls.enabled -}}
{{- end -}}

{{- define "device-identity.emqxApiSecretName" -}}
{{- include "device-identity.componentName" (dict "root" . "component" "emqx-api") -}}
{{- end -}}

{{/* The name of the API key registration-service uses at the chart's EMQX (basic auth user; not a secret). */}}
{{- define "device-identity.emqxApiKey" -}}registration-service{{- end -}}

{{- define "device-identity.emqxApiSecret" -}}
{{- if .Values.registrationService.kicks.apiSecret -}}
{{- .Values.registrationService.kicks.apiSecret -}}
{{- else -}}
{{- include "device-identity.generated" (dict "root" . "secret" (include "device-identity.emqxApiSecretName" .) "key" "secret" "cacheKey" "emqxApiSecret") -}}
{{- end -}}
{{- end -}}

{{/* ----- Arithmetic on values ------------------------------------------------------------------------------- */}}

{{/* A duration ("100ms", "4s", "1m", "2h") in milliseconds. Helm has no duration type, so values use this form. */}}
{{- define "device-identity.millis" -}}
{{- $s := toString . -}}
{{- if regexMatch "^[0-9]+ms$" $s -}}
{{- trimSuffix "ms" $s | int64 -}}
{{- else if regexMatch "^[0-9]+s$" $s -}}
{{- mul (trimSuffix "s" $s | int64) 1000 -}}
{{- else if regexMatch "^[0-9]+m$" $s -}}
{{- mul (trimSuffix "m" $s | int64) 60000 -}}
{{- else if regexMatch "^[0-9]+h$" $s -}}
{{- mul (trimSuffix "h" $s | int64) 3600000 -}}
{{- else -}}
{{- fail (printf "cannot read the duration %q: write a whole number with ms, s, m or h (100ms, 4s, 1m)" $s) -}}
{{- end -}}
{{- end -}}

{{/* A duration in whole seconds, for PgBouncer's ini (1.18 reads plain seconds). */}}
{{- define "device-identity.seconds" -}}
{{- $ms := include "device-identity.millis" . | int64 -}}
{{- if mod $ms 1000 -}}
{{- fail (printf "PgBouncer takes whole seconds: %q is not" (toString .)) -}}
{{- end -}}
{{- div $ms 1000 -}}
{{- end -}}

{{/* A CPU quantity ("2", 2, "1500m", 0.5) in millicores. */}}
{{- define "device-identity.cpuMillis" -}}
{{- $s := toString . -}}
{{- if regexMatch "^[0-9]+m$" $s -}}
{{- trimSuffix "m" $s | int64 -}}
{{- else if regexMatch "^[0-9]+(\\.[0-9]+)?$" $s -}}
{{- mulf (float64 $s) 1000 | ceil | int64 -}}
{{- else -}}
{{- fail (printf "cannot read the CPU quantity %q (use 2, \"1500m\" or 0.5)" $s) -}}
{{- end -}}
{{- end -}}

{{/*
The numbers one service runs with, derived from its values; every template and check reads them from here.
Args: (dict "root" $ "svc" .Values.authService "key" "authService"). Returns JSON:
  cpuLimitMillis (resources.limits.cpu in millicores, 0 when unset), deadlineMs, maxWaitMs, concurrency, queue,
  admitted (concurrency + queue), minReplicas, maxReplicas, pool
The bcrypt queue is a cap on waiting hashes derived from the longest wait admission allows (overload.bcrypt.maxWait),
not from the deadline: ceil(maxWait / bcrypt.millis) x concurrency, the services' own default.
*/}}
{{- define "device-identity.sizing" -}}
{{- $svc := .svc -}}
{{- $b := $svc.overload.bcrypt -}}
{{- $deadlineMs := include "device-identity.millis" $svc.overload.deadline | int64 -}}
{{- $maxWaitMs := include "device-identity.millis" $b.maxWait | int64 -}}
{{- $bcryptMs := .root.Values.bcrypt.millis | int64 -}}
{{- $cpu := "" -}}
{{- if and $svc.resources $svc.resources.limits -}}{{- $cpu = $svc.resources.limits.cpu -}}{{- end -}}
{{- $cpuLimitMillis := 0 -}}
{{- if $cpu -}}{{- $cpuLimitMillis = include "device-identity.cpuMillis" $cpu | int64 -}}{{- end -}}
{{- $concurrency := 0 -}}
{{- if $b.concurrency -}}
{{- $concurrency = $b.concurrency | int64 -}}
{{- else -}}
{{- if not $cpu -}}
{{- fail (printf "%s: set resources.limits.cpu (bcrypt concurrency follows it) or overload.bcrypt.concurrency" .key) -}}
{{- end -}}
{{- $concurrency = div (add $cpuLimitMillis 999) 1000 -}}
{{- end -}}
{{- $queue := 0 -}}
{{- if kindIs "invalid" $b.queue -}}
{{- $queue = mul (div (add $maxWaitMs $bcryptMs -1) $bcryptMs) $concurrency -}}
{{- else -}}
{{- $queue = $b.queue | int64 -}}
{{- end -}}
{{- $min := $svc.replicas | int64 -}}
{{- $max := $svc.replicas | int64 -}}
{{- if $svc.autoscaling.enabled -}}
{{- $min = $svc.autoscaling.minReplicas | int64 -}}
{{- $max = $svc.autoscaling.maxReplicas | int64 -}}
{{- end -}}
{{- dict "cpuLimitMillis" $cpuLimitMillis "deadlineMs" $deadlineMs "maxWaitMs" $maxWaitMs "concurrency" $concurrency "queue" $queue "admitted" (add $concurrency $queue) "minReplicas" $min "maxReplicas" $max "pool" ($svc.db.poolMaxSize | int64) | toJson -}}
{{- end -}}

{{- define "device-identity.authSizing" -}}
{{- include "device-identity.sizing" (dict "root" . "svc" .Values.authService "key" "authService") -}}
{{- end -}}

{{- define "device-identity.registrationSizing" -}}
{{- include "device-identity.sizing" (dict "root" . "svc" .Values.registrationService "key" "registrationService") -}}
{{- end -}}

{{/*
EMQX's authn in-flight capacity against what the auth tier admits (README "The values that matter"). Returns JSON:
  nodes, pipelining, headroomPercent, maxReplicas, perReplica (concurrency + queue), admitted (maxReplicas x
  perReplica), required (ceil(admitted x (100 + headroomPercent) / 100)), poolSize (emqx.authn.poolSize, or when
  empty ceil(required / (nodes x pipelining))), derived (bool), inflight (nodes x poolSize x pipelining)
The rule: inflight >= required, so EMQX can always send more than the auth tier admits at the largest replica count
the HPA may choose (fewer replicas admit less): the excess reaches a replica that refuses it at once instead of
waiting in EMQX's unbounded per-connection queue, where EMQX's request_timeout runs out.
*/}}
{{- define "device-identity.authnInFlight" -}}
{{- $auth := include "device-identity.authSizing" . | fromJson -}}
{{- $a := .Values.emqx.authn -}}
{{- $nodes := .Values.emqx.replicas | int64 -}}
{{- $pipelining := $a.pipelining | int64 -}}
{{- $headroom := $a.inFlightHeadroomPercent | int64 -}}
{{- $maxReplicas := $auth.maxReplicas | int64 -}}
{{- $perReplica := $auth.admitted | int64 -}}
{{- $admitted := mul $maxReplicas $perReplica -}}
{{- $required := div (add (mul $admitted (add 100 $headroom)) 99) 100 -}}
{{- $derived := kindIs "invalid" $a.poolSize -}}
{{- $poolSize := 0 -}}
{{- if $derived -}}
{{- $perNode := mul $nodes $pipelining -}}
{{- $poolSize = max 1 (div (add $required $perNode -1) $perNode) -}}
{{- else -}}
{{- $poolSize = $a.poolSize | int64 -}}
{{- end -}}
{{- dict "nodes" $nodes "pipelining" $pipelining "headroomPercent" $headroom "maxReplicas" $maxReplicas "concurrency" ($auth.concurrency | int64) "queue" ($auth.queue | int64) "perReplica" $perReplica "admitted" $admitted "required" $required "poolSize" $poolSize "derived" $derived "inflight" (mul $nodes $poolSize $pipelining) | toJson -}}
{{- end -}}

{{/* ----- Security contexts ---------------------------------------------------------------------------------- */}}

{{- define "device-identity.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
capabilities:
  drop: ["ALL"]
{{- end -}}

{{- define "device-identity.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ .uid }}
runAsGroup: {{ .uid }}
fsGroup: {{ .uid }}
seccompProfile:
  type: RuntimeDefault
{{- end -}}
