{{/*
EMQX's authentication chain and authorization sources, built once and used twice: as JSON (valid HOCON) in the
StatefulSet's EMQX_* environment, and as HOCON in NOTES.txt for users who bring their own EMQX. The request
bodies are the contract auth-service implements (README "What the answers mean"): every value a quoted string placeholder.
*/}}
{{- define "device-identity.emqx.authenticator" -}}
{{- $a := .Values.emqx.authn -}}
{{- $inflight := include "device-identity.authnInFlight" . | fromJson -}}
{{- $body := dict "clientid" "${clientid}" "username" "${username}" "password" "${password}" "peerhost" "${peerhost}" "cert_common_name" "${cert_common_name}" -}}
{{- dict "mechanism" "password_based" "backend" "http" "enable" true "method" "post" "url" (printf "%s/mqtt/authn" (include "device-identity.authUrl" .)) "headers" (dict "content-type" "application/json") "body" $body "pool_size" ($inflight.poolSize | int64) "enable_pipelining" ($a.pipelining | int64) "connect_timeout" $a.connectTimeout "request_timeout" $a.requestTimeout "ssl" (include "device-identity.emqx.ssl" (dict "root" . "paths" (include "device-identity.emqx.sslPaths" . | fromJson)) | fromJson) | toJson -}}
{{- end -}}

{{- define "device-identity.emqx.authzSources" -}}
{{- $z := .Values.emqx.authz -}}
{{- $sources := list -}}
{{- if $z.enabled -}}
{{- $body := dict "clientid" "${clientid}" "username" "${username}" "peerhost" "${peerhost}" "action" "${action}" "topic" "${topic}" "qos" "${qos}" "retain" "${retain}" -}}
{{- $sources = append $sources (dict "type" "http" "enable" true "method" "post" "url" (printf "%s/mqtt/authz" (include "device-identity.authUrl" .)) "headers" (dict "content-type" "application/json") "body" $body "pool_size" ($z.poolSize | int64) "enable_pipelining" ($z.pipelining | int64) "connect_timeout" $z.connectTimeout "request_timeout" $z.requestTimeout "ssl" (include "device-identity.emqx.ssl" (dict "root" . "paths" (include "device-identity.emqx.sslPaths" . | fromJson)) | fromJson)) -}}
{{- end -}}
{{- toJson $sources -}}
{{- end -}}

{{/* The same settings as HOCON, for an EMQX this chart does not deploy (printed by NOTES.txt). */}}
{{- define "device-identity.emqx.hocon" -}}
{{- $a := .Values.emqx.authn -}}
{{- $z := .Values.emqx.authz -}}
{{- $inflight := include "device-identity.authnInFlight" . | fromJson -}}
{{- $ssl := include "device-identity.emqx.ssl" (dict "root" . "paths" (include "device-identity.emqx.ownSslPaths" . | fromJson)) | fromJson -}}
authentication = [
  {
    mechanism = password_based
    backend = http
    enable = true
    method = post
    url = "{{ include "device-identity.authUrl" . }}/mqtt/authn"
    headers { "content-type" = "application/json" }
    body {
      clientid = "${clientid}"
      username = "${username}"
      password = "${password}"
      peerhost = "${peerhost}"
      cert_common_name = "${cert_common_name}"
    }
    pool_size = {{ $inflight.poolSize | int64 }}
    enable_pipelining = {{ $a.pipelining }}
    connect_timeout = "{{ $a.connectTimeout }}"
    request_timeout = "{{ $a.requestTimeout }}"
    {{- include "device-identity.emqx.sslHocon" $ssl | nindent 4 }}
  }
]

authorization {
  no_match = deny
  deny_action = ignore
  cache { enable = true, max_size = {{ $z.cache.maxSize }}, ttl = "{{ $z.cache.ttl }}" }
  # Replaces the default acl.conf source, which ends in allow-all.
  sources = [
{{- if $z.enabled }}
    {
      type = http
      enable = true
      method = post
      url = "{{ include "device-identity.authUrl" . }}/mqtt/authz"
      headers { "content-type" = "application/json" }
      body {
        clientid = "${clientid}"
        username = "${username}"
        peerhost = "${peerhost}"
        action = "${action}"
        topic = "${topic}"
        qos = "${qos}"
        retain = "${retain}"
      }
      pool_size = {{ $z.poolSize }}
      enable_pipelining = {{ $z.pipelining }}
      connect_timeout = "{{ $z.connectTimeout }}"
      request_timeout = "{{ $z.requestTimeout }}"
      {{- include "device-identity.emqx.sslHocon" $ssl | nindent 6 }}
    }
{{- end }}
  ]
}
{{- end -}}

{{/*
The ssl block as HOCON (an EMQX of your own): https to auth-service, verified against the chart's CA and auth-service's
name, with EMQX's client certificate for mutual TLS. The files are the Secrets' (NOTES.txt says which to copy where).
*/}}
{{- define "device-identity.emqx.sslHocon" -}}
{{- if .enable -}}
ssl {
  enable = true
  verify = verify_peer
  cacertfile = "{{ .cacertfile }}"
  server_name_indication = "{{ .server_name_indication }}"
  {{- if .certfile }}
  certfile = "{{ .certfile }}"
  keyfile = "{{ .keyfile }}"
  {{- end }}
}
{{- else -}}
ssl { enable = false }
{{- end -}}
{{- end -}}
