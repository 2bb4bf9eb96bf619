{{/*
auth-service and registration-service are deployed the same way; these templates take
(dict "root" $ "component" "auth-service" "key" "authService") and are rendered from auth-service.yaml and
registration-service.yaml.
*/}}

{{/* The environment both Quarkus services read (non-secret part); see the services' application.properties. */}}
{{- define "device-identity.service.configmap" -}}
{{- $root := .root -}}
{{- $svc := index $root.Values .key -}}
{{- $sizing := include "device-identity.sizing" (dict "root" $root "svc" $svc "key" .key) | fromJson -}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "device-identity.componentName" . }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "device-identity.labels" . | nindent 4 }}
data:
  {{- if eq .component "auth-service" }}
  AUTH_PORT: {{ $svc.port | quote }}
  {{- else }}
  REGISTRATION_PORT: {{ $svc.port | quote }}
  {{- end }}
  # Reads and writes go through PgBouncer (transaction pooling).
  IDENTITY_DB_HOST: {{ include "device-identity.componentName" (dict "root" $root "component" "pgbouncer") | quote }}
  IDENTITY_DB_PORT: {{ $root.Values.pgbouncer.port | quote }}
  IDENTITY_DB_NAME: {{ $root.Values.database.name | quote }}
  {{- if and (eq .component "auth-service") (include "device-identity.cnpg" $root) $root.Values.postgresql.cnpg.standbyReads.enabled }}
  # Credential reads may go to a synchronous standby, through the Pooler in front of the -ro Service; the service
  # falls back to the primary whenever the standby could miss a revocation (docs/database-ha.md).
  IDENTITY_DB_STANDBY_READS_ENABLED: "true"
  IDENTITY_DB_STANDBY_HOST: {{ include "device-identity.cnpg.readPooler" $root | quote }}
  IDENTITY_DB_STANDBY_PORT: "5432"
  {{- end }}
  {{- if ne .component "auth-service" }}
  IDENTITY_DB_USER: {{ $root.Values.database.user | quote }}
  {{- end }}
  {{- $cpuLimitMillis := $sizing.cpuLimitMillis | int64 }}
  {{- if and $svc.jvm $svc.jvm.c1BelowOneCpu (gt $cpuLimitMillis 0) (lt $cpuLimitMillis 1000) }}
  # Below one CPU, C1 alone (jvm.c1BelowOneCpu). Read by JVM images (run-java.sh appends it to the java command line,
  # replacing the image's own value, repeated here); a native image has no JIT and ignores it.
  JAVA_OPTS_APPEND: "-Djava.util.logging.manager=org.jboss.logmanager.LogManager -XX:TieredStopAtLevel=1"
  {{- end }}
  QUARKUS_DATASOURCE_JDBC_MAX_SIZE: {{ $svc.db.poolMaxSize | quote }}
  QUARKUS_DATASOURCE_JDBC_ACQUISITION_TIMEOUT: {{ $svc.db.acquisitionTimeout | quote }}
  IDENTITY_OVERLOAD_DEADLINE: {{ $svc.overload.deadline | quote }}
  # Admission to bcrypt by waiting time: up to MAX_WAIT while the queue drains within INTERVAL, TARGET_WAIT (default
  # two measured hash times) once it stays non-empty; the rest is refused at once. Derived unless set explicitly:
  # concurrency = ceil(resources.limits.cpu), queue (a hard cap) = ceil(maxWait / bcrypt.millis) x concurrency.
  IDENTITY_OVERLOAD_BCRYPT_CONCURRENCY: {{ $sizing.concurrency | int64 | quote }}
  IDENTITY_OVERLOAD_BCRYPT_QUEUE: {{ $sizing.queue | int64 | quote }}
  IDENTITY_OVERLOAD_BCRYPT_EXPECTED_DURATION: {{ printf "%dms" ($root.Values.bcrypt.millis | int64) | quote }}
  IDENTITY_OVERLOAD_BCRYPT_MAX_WAIT: {{ $svc.overload.bcrypt.maxWait | quote }}
  IDENTITY_OVERLOAD_BCRYPT_INTERVAL: {{ $svc.overload.bcrypt.interval | quote }}
  {{- with $svc.overload.bcrypt.targetWait }}
  IDENTITY_OVERLOAD_BCRYPT_TARGET_WAIT: {{ . | quote }}
  {{- end }}
  {{- if eq .component "auth-service" }}
  IDENTITY_AUTH_UNKNOWN_DEVICE: {{ $svc.unknownDevice | quote }}
  # Every allow carries expire_at within this (docs/security.md#revocation).
  IDENTITY_AUTH_MAX_SESSION_LIFE: {{ $svc.maxSessionLife | quote }}
  IDENTITY_AUTH_RATE_LIMIT_ATTEMPTS: {{ $svc.rateLimit.attempts | quote }}
  IDENTITY_AUTH_RATE_LIMIT_PERIOD: {{ $svc.rateLimit.period | quote }}
  IDENTITY_AUTH_RATE_LIMIT_ENABLED: {{ $svc.rateLimit.enabled | quote }}
  IDENTITY_AUTH_RATE_LIMIT_CLIENT_ATTEMPTS: {{ $svc.rateLimit.clientAttempts | int64 | quote }}
  IDENTITY_AUTH_RATE_LIMIT_SOURCE_FAILURES: {{ $svc.rateLimit.sourceFailures | int64 | quote }}
  IDENTITY_AUTH_RATE_LIMIT_SOURCE_GUESSES: {{ $svc.rateLimit.sourceGuesses | int64 | quote }}
  IDENTITY_AUTH_RATE_LIMIT_MAX_TRACKED_DEVICES: {{ $svc.rateLimit.maxTrackedDevices | int64 | quote }}
  # The verified-credential fast path; the key set (IDENTITY_AUTH_FAST_PATH_KEYS) and this service's own database
  # role (IDENTITY_DB_USER / IDENTITY_DB_PASSWORD) come from Secrets (_fastpath.tpl).
  IDENTITY_AUTH_FAST_PATH_ENABLED: {{ $svc.fastPath.enabled | quote }}
  {{- if and $svc.fastPath.enabled $svc.fastPath.currentKey }}
  IDENTITY_AUTH_FAST_PATH_CURRENT_KEY: {{ $svc.fastPath.currentKey | quote }}
  {{- end }}
  # registration-service owns the schema.
  IDENTITY_SCHEMA_MIGRATE: "false"
  {{- else }}
  # Flyway migrates directly against PostgreSQL at start-up, never through PgBouncer (transaction pooling breaks
  # advisory locks and cached plans after DDL). The NetworkPolicy lets this service, and only it, reach PostgreSQL.
  IDENTITY_SCHEMA_MIGRATE: "true"
  IDENTITY_SCHEMA_HOST: {{ include "device-identity.postgresHost" $root | quote }}
  IDENTITY_SCHEMA_PORT: {{ include "device-identity.postgresPort" $root | quote }}
  # The role V2 grants auth-service's privileges to (the Flyway placeholder authRole); it must exist before migrating.
  IDENTITY_AUTH_DB_USER: {{ $root.Values.database.auth.user | quote }}
  # Shortest device password accepted (values registrationService.minPasswordLength; docs/security.md).
  IDENTITY_REGISTRATION_MIN_PASSWORD_LENGTH: {{ $svc.minPasswordLength | quote }}
  {{- end }}
  {{- $kicks := include "device-identity.kicks" $root | fromJson }}
  {{- include "device-identity.tls.serviceEnv" . | nindent 2 }}
  {{- if and (eq .component "registration-service") $kicks.enabled }}
  # Revocations and password changes kick the device's live session through EMQX's REST API (the key and secret
  # come from a Secret).
  IDENTITY_KICKS_EMQX_API_URL: {{ $kicks.url | quote }}
  {{- if $kicks.caSecret }}
  # EMQX's API certificate must chain to this CA (re-read when the Secret's ca.crt changes).
  IDENTITY_KICKS_EMQX_API_CA_FILE: "/etc/device-identity/emqx-api-ca/ca.crt"
  {{- end }}
  {{- end }}
{{- end -}}

{{/* Secrets the pods read at start; tokens from an existingSecret are the owner's to roll. */}}
{{- define "device-identity.service.secretChecksum" -}}
{{- $secrets := list -}}
{{- if eq .component "auth-service" -}}
{{- $secrets = append $secrets (include "device-identity.authService.secretChecksumParts" .root) -}}
{{- else -}}
{{- $secrets = append $secrets (include "device-identity.dbPasswordChecksum" .root) -}}
{{- end -}}
{{- if and (eq .component "registration-service") (not .root.Values.registrationService.existingSecret) -}}
{{- $secrets = append $secrets (include "device-identity.registrationTokens" .root) -}}
{{- end -}}
{{- if and (eq .component "registration-service") (include "device-identity.kicks" .root | fromJson).own -}}
{{- $secrets = append $secrets (include "device-identity.emqxApiSecret" .root) -}}
{{- end -}}
{{- if and (eq .component "registration-service") .root.Values.postgresql.enabled -}}
{{- /* Its init container sets auth-service's role password. */ -}}
{{- $secrets = append $secrets (include "device-identity.authDbPassword" .root) -}}
{{- end -}}
{{- join "|" $secrets | sha256sum -}}
{{- end -}}

{{- define "device-identity.service.deployment" -}}
{{- $root := .root -}}
{{- $svc := index $root.Values .key -}}
{{- $ctx := . -}}
{{- $kicks := include "device-identity.kicks" $root | fromJson -}}
{{- $kickCa := and (eq .component "registration-service") $kicks.caSecret -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "device-identity.componentName" . }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "device-identity.labels" . | nindent 4 }}
spec:
  {{- if not $svc.autoscaling.enabled }}
  replicas: {{ $svc.replicas }}
  {{- end }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "device-identity.selectorLabels" . | nindent 6 }}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      # Never below the current capacity during a rollout: the auth tier's admitted work is sized per replica.
      maxUnavailable: 0
      maxSurge: 1
  template:
    metadata:
      labels:
        {{- include "device-identity.labels" . | nindent 8 }}
      annotations:
        # Roll the pods when their configuration or secrets change (env is read only at start).
        checksum/config: {{ include "device-identity.service.configmap" . | sha256sum }}
        checksum/secret: {{ include "device-identity.service.secretChecksum" . }}
        {{- with $svc.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      automountServiceAccountToken: false
      {{- with $root.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        # 185 is the user of the Quarkus/UBI OpenJDK base images.
        {{- include "device-identity.podSecurityContext" (dict "uid" 185) | nindent 8 }}
      {{- if and (eq .component "registration-service") $root.Values.postgresql.enabled }}
      # auth-service's role must exist before this service migrates (_fastpath.tpl).
      initContainers:
        {{- include "device-identity.authRoleInitContainer" $root | nindent 8 }}
      {{- end }}
      containers:
        - name: {{ .component }}
          image: {{ include "device-identity.image" (dict "root" $root "image" $svc.image) | quote }}
          imagePullPolicy: {{ $svc.image.pullPolicy }}
          ports:
            # HTTPS only when tls.enabled (the port's name says which): /mqtt/authn, /mqtt/authz, /v1/devices.
            - name: {{ include "device-identity.scheme" $root }}
              containerPort: {{ $svc.port }}
              protocol: TCP
            # Health and metrics, plain HTTP, nothing else (management.port).
            - name: management
              containerPort: {{ $root.Values.management.port }}
              protocol: TCP
          envFrom:
            - configMapRef:
                name: {{ include "device-identity.componentName" . }}
          env:
            {{- if eq .component "auth-service" }}
            {{- include "device-identity.authService.secretEnv" $root | nindent 12 }}
            {{- else }}
            - name: IDENTITY_DB_PASSWORD
              valueFrom:
                secretKeyRef:
                  name: {{ include "device-identity.dbPasswordSecretName" $root }}
                  key: {{ include "device-identity.dbPasswordSecretKey" $root }}
            {{- end }}
            {{- if eq .component "registration-service" }}
            - name: REGISTRATION_TOKENS
              valueFrom:
                secretKeyRef:
                  name: {{ include "device-identity.tokensSecretName" $root }}
                  key: tokens
            {{- if $kicks.enabled }}
            - name: IDENTITY_KICKS_EMQX_API_KEY
              valueFrom:
                secretKeyRef:
                  name: {{ $kicks.secret }}
                  key: key
            - name: IDENTITY_KICKS_EMQX_API_SECRET
              valueFrom:
                secretKeyRef:
                  name: {{ $kicks.secret }}
                  key: secret
            {{- end }}
            {{- end }}
            {{- with $svc.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          startupProbe:
            httpGet:
              path: /q/health/started
              port: management
            periodSeconds: 2
            failureThreshold: 60
          livenessProbe:
            httpGet:
              path: /q/health/live
              port: management
            periodSeconds: 10
            timeoutSeconds: 2
            failureThreshold: 3
          readinessProbe:
            httpGet:
              path: /q/health/ready
              port: management
            periodSeconds: 5
            timeoutSeconds: 2
            failureThreshold: 2
          resources:
            {{- toYaml $svc.resources | nindent 12 }}
          securityContext:
            {{- include "device-identity.containerSecurityContext" . | nindent 12 }}
          volumeMounts:
            # The root filesystem is read-only; the JVM and Vert.x need a scratch directory.
            - name: tmp
              mountPath: /tmp
            {{- include "device-identity.tls.serviceMounts" . | nindent 12 }}
            {{- if $kickCa }}
            - name: emqx-api-ca
              mountPath: /etc/device-identity/emqx-api-ca
              readOnly: true
            {{- end }}
      volumes:
        - name: tmp
          emptyDir:
            sizeLimit: 64Mi
        {{- include "device-identity.tls.serviceVolumes" . | nindent 8 }}
        {{- if $kickCa }}
        - name: emqx-api-ca
          secret:
            secretName: {{ $kickCa }}
            items:
              - key: ca.crt
                path: ca.crt
            defaultMode: 292
        {{- end }}
      {{- with $svc.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $svc.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $svc.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $svc.topologySpread }}
      # Soft by default (ScheduleAnyway): spread where the cluster allows it, schedule anyway where it does not.
      topologySpreadConstraints:
        {{- range . }}
        - topologyKey: {{ .topologyKey }}
          maxSkew: {{ .maxSkew | default 1 }}
          whenUnsatisfiable: {{ .whenUnsatisfiable | default "ScheduleAnyway" }}
          labelSelector:
            matchLabels:
              {{- include "device-identity.selectorLabels" $ctx | nindent 14 }}
        {{- end }}
      {{- end }}
{{- end -}}

{{- define "device-identity.service.service" -}}
{{- $svc := index .root.Values .key -}}
{{- $service := $svc.service | default dict -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "device-identity.componentName" . }}
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "device-identity.labels" . | nindent 4 }}
  {{- with $service.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  type: {{ $service.type | default "ClusterIP" }}
  {{- with $service.loadBalancerSourceRanges }}
  loadBalancerSourceRanges:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  selector:
    {{- include "device-identity.selectorLabels" . | nindent 4 }}
  ports:
    - name: {{ include "device-identity.scheme" .root }}
      port: {{ $svc.port }}
      targetPort: {{ include "device-identity.scheme" .root }}
      protocol: TCP
    # Scraped by the ServiceMonitor (metrics.serviceMonitor).
    - name: management
      port: {{ .root.Values.management.port }}
      targetPort: management
      protocol: TCP
{{- end -}}

{{- define "device-identity.service.hpa" -}}
{{- $svc := index .root.Values .key -}}
{{- if $svc.autoscaling.enabled -}}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ include "device-identity.componentName" . }}
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "device-identity.labels" . | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ include "device-identity.componentName" . }}
  minReplicas: {{ $svc.autoscaling.minReplicas }}
  # The connection invariants are checked at this maximum.
  maxReplicas: {{ $svc.autoscaling.maxReplicas }}
  metrics:
    # bcrypt is CPU: CPU utilisation is the load signal.
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ $svc.autoscaling.targetCPUUtilizationPercentage }}
{{- end -}}
{{- end -}}

{{- define "device-identity.service.pdb" -}}
{{- $svc := index .root.Values .key -}}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "device-identity.componentName" . }}
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "device-identity.labels" . | nindent 4 }}
spec:
  {{- if hasKey $svc.pdb "maxUnavailable" }}
  maxUnavailable: {{ $svc.pdb.maxUnavailable }}
  {{- else }}
  minAvailable: {{ $svc.pdb.minAvailable }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "device-identity.selectorLabels" . | nindent 6 }}
{{- end -}}

{{- define "device-identity.service.all" -}}
{{ include "device-identity.service.configmap" . }}
---
{{ include "device-identity.service.deployment" . }}
---
{{ include "device-identity.service.service" . }}
---
{{ include "device-identity.service.pdb" . }}
{{- $hpa := include "device-identity.service.hpa" . }}
{{- if $hpa }}
---
{{ $hpa }}
{{- end }}
{{- end -}}
