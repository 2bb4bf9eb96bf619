{{/*
auth-service's own database role and the verified-credential fast path's keys (README "Security" in the
repository, and this chart's README for key rotation).

auth-service connects as database.auth.user, a role that may only SELECT device_credentials and UPDATE its two
verifier columns (registration-service's V2 migration grants exactly that, to the role named by
IDENTITY_AUTH_DB_USER, and fails when the role does not exist). The role's credentials live in their own Secret,
<fullname>-db-auth (keys username, password), apart from the owner's <fullname>-db.
*/}}

{{- define "device-identity.authDbSecretName" -}}
{{- include "device-identity.componentName" (dict "root" . "component" "db-auth") -}}
{{- end -}}

{{/* database.auth.password, or generated on first install and kept across upgrades. */}}
{{- define "device-identity.authDbPassword" -}}
{{- if .Values.database.auth.password -}}
{{- .Values.database.auth.password -}}
{{- else -}}
{{- include "device-identity.generated" (dict "root" . "secret" (include "device-identity.authDbSecretName" .) "key" "password" "cacheKey" "authDbPassword") -}}
{{- end -}}
{{- end -}}

{{/* The Secret whose key "keys" holds the fast path's key set: authService.fastPath.existingSecret, or the chart's. */}}
{{- define "device-identity.fastPathKeysSecretName" -}}
{{- if .Values.authService.fastPath.existingSecret -}}
{{- .Values.authService.fastPath.existingSecret -}}
{{- else -}}
{{- include "device-identity.componentName" (dict "root" . "component" "fastpath-keys") -}}
{{- end -}}
{{- end -}}

{{/* The id of the key the chart generates on first install. */}}
{{- define "device-identity.fastPathGeneratedKeyId" -}}k1{{- end -}}

{{/*
The chart's key set (only without existingSecret): "k1:<base64 of 32 random bytes>" on first install (sprig's
randBytes returns the bytes base64-encoded); on every upgrade what the Secret holds, so an upgrade never invalidates a
verifier, and a key added to or removed from the Secret with kubectl during a rotation stays as it was edited.
*/}}
{{- define "device-identity.fastPathKeys" -}}
{{- $first := printf "%s:%s" (include "device-identity.fastPathGeneratedKeyId" .) (randBytes 32) -}}
{{- include "device-identity.generated" (dict "root" . "secret" (include "device-identity.fastPathKeysSecretName" .) "key" "keys" "cacheKey" "fastPathKeys" "random" $first) -}}
{{- end -}}

{{/* Whether the chart renders (and so owns) the key Secret. */}}
{{- define "device-identity.fastPathGeneratesKeys" -}}
{{- if and .Values.authService.fastPath.enabled (not .Values.authService.fastPath.existingSecret) -}}true{{- end -}}
{{- end -}}

{{/*
auth-service's secret environment: its role's credentials and, with the fast path on, the key set. The names are the
ones the service reads (auth-service application.properties, AuthConfig.FastPath).
*/}}
{{- define "device-identity.authService.secretEnv" -}}
- name: IDENTITY_DB_USER
  valueFrom:
    secretKeyRef:
      name: {{ include "device-identity.authDbSecretName" . }}
      key: username
- name: IDENTITY_DB_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "device-identity.authDbSecretName" . }}
      key: password
{{- if .Values.authService.fastPath.enabled }}
- name: IDENTITY_AUTH_FAST_PATH_KEYS
  valueFrom:
    secretKeyRef:
      name: {{ include "device-identity.fastPathKeysSecretName" . }}
      key: keys
{{- end }}
{{- end -}}

{{/* What auth-service's checksum/secret covers: its role's credentials and the chart's keys (an existingSecret is the
owner's to roll, like the registration tokens'). */}}
{{- define "device-identity.authService.secretChecksumParts" -}}
{{- $parts := list .Values.database.auth.user (include "device-identity.authDbPassword" .) -}}
{{- if include "device-identity.fastPathGeneratesKeys" . -}}
{{- $parts = append $parts (include "device-identity.fastPathKeys" .) -}}
{{- end -}}
{{- join "|" $parts -}}
{{- end -}}

{{/* The bundled PostgreSQL's roles and registration-service's wait for them: postgresql/_roles.tpl. */}}

{{/*
Checks for auth-service's role and the fast path, as a JSON list of messages (validate.yaml fails with them). A key
set the chart can see (its own Secret, as generated or as edited with kubectl) is checked the way the service parses
it, so that a rotation mistake is refused here instead of stalling the rollout. An existingSecret is not read at
render time (`helm template` and GitOps renderers cannot): the service refuses to start on a bad one, and the
Deployment's maxUnavailable 0 keeps the old pods serving meanwhile. The messages name key ids, never keys.
*/}}
{{- define "device-identity.validate.fastPath" -}}
{{- $v := .Values -}}
{{- $errors := list -}}
{{- if eq $v.database.auth.user $v.database.user -}}
{{- $errors = append $errors (printf "database: database.auth.user %q is the owner role database.user: auth-service must connect as its own role, which may only read credentials and write verifiers. Choose another database.auth.user." $v.database.auth.user) -}}
{{- end -}}
{{- $fp := $v.authService.fastPath -}}
{{- if $fp.enabled -}}
{{- if $fp.existingSecret -}}
{{- /* The operator's Secret: nothing to read here (see above). */ -}}
{{- else -}}
{{- $secret := include "device-identity.fastPathKeysSecretName" . -}}
{{- $keys := include "device-identity.fastPathKeys" . | trim -}}
{{- $ids := list -}}
{{- if not $keys -}}
{{- $errors = append $errors (printf "fast path: authService.fastPath.enabled is true but the Secret %s holds no key under \"keys\": auth-service would refuse to start. Put a key set back into it (id:base64key, see the chart's README \"Rotating the fast-path key\"), or set authService.fastPath.existingSecret, or authService.fastPath.enabled=false." $secret) -}}
{{- else -}}
{{- range $i, $entry := splitList "," $keys -}}
{{- $entry = trim $entry -}}
{{- $id := trim (index (splitList ":" $entry) 0) -}}
{{- $ids = append $ids $id -}}
{{- if not (regexMatch "^[A-Za-z0-9._-]{1,32}:[A-Za-z0-9+/]+={0,2}$" $entry) -}}
{{- $errors = append $errors (printf "fast path: key #%d in the Secret %s is not of the form id:base64key with an id of 1..32 of A-Z a-z 0-9 . _ -." (add $i 1) $secret) -}}
{{- else -}}
{{- /* Decoded length from the base64 length, as Java's decoder reads it (padding optional). */ -}}
{{- $b64 := trimSuffix "=" (trimSuffix "=" (trimPrefix (printf "%s:" $id) $entry)) -}}
{{- if eq (mod (len $b64) 4) 1 -}}
{{- $errors = append $errors (printf "fast path: key %q in the Secret %s is not valid base64." $id $secret) -}}
{{- else if lt (div (mul (len $b64) 3) 4) 32 -}}
{{- $errors = append $errors (printf "fast path: key %q in the Secret %s is shorter than 32 bytes (openssl rand -base64 32)." $id $secret) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if ne (len $ids) (len (uniq $ids)) -}}
{{- $errors = append $errors (printf "fast path: the Secret %s lists a key id twice (%s)." $secret (join ", " $ids)) -}}
{{- end -}}
{{- end -}}
{{- if $fp.currentKey -}}
{{- if and $ids (not (has $fp.currentKey $ids)) -}}
{{- $errors = append $errors (printf "fast path: authService.fastPath.currentKey %q is not in the key set of the Secret %s (ids: %s): add the key to the Secret first (the chart's README \"Rotating the fast-path key\")." $fp.currentKey $secret (join ", " $ids)) -}}
{{- end -}}
{{- else if gt (len $ids) 1 -}}
{{- $errors = append $errors (printf "fast path: the Secret %s holds several keys (%s): set authService.fastPath.currentKey to the one new verifiers are written under." $secret (join ", " $ids)) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- toJson $errors -}}
{{- end -}}
