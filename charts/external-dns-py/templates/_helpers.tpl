{{/* Names, labels, the container args and the RBAC rules of the external-dns-py chart. */}}

{{- define "external-dns-py.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "external-dns-py.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "external-dns-py.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "external-dns-py.selectorLabels" -}}
app.kubernetes.io/name: {{ include "external-dns-py.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "external-dns-py.labels" -}}
helm.sh/chart: {{ include "external-dns-py.chart" . }}
{{ include "external-dns-py.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "external-dns-py.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "external-dns-py.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "external-dns-py.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{- define "external-dns-py.leaseName" -}}
{{- default (include "external-dns-py.fullname" .) .Values.leaderElection.leaseName }}
{{- end }}

{{/* Checks of value combinations the schema cannot express. */}}
{{- define "external-dns-py.validate" -}}
{{- if and (gt (int .Values.replicaCount) 1) (not .Values.leaderElection.enabled) }}
{{- fail "replicaCount > 1 needs leaderElection.enabled=true (two replicas without leader election would both write DNS records)" }}
{{- end }}
{{- if and .Values.txtEncrypt.enabled (not .Values.txtEncrypt.aesKeySecretRef.name) }}
{{- fail "txtEncrypt.enabled needs txtEncrypt.aesKeySecretRef.name and .key (a Secret holding the AES key)" }}
{{- end }}
{{- if and (eq .Values.provider.name "webhook") (not .Values.provider.webhook.image.repository) }}
{{- fail "provider.name=webhook needs provider.webhook.image.repository (the webhook provider sidecar)" }}
{{- end }}
{{- if eq .Values.provider.name "rfc2136" }}
{{- if not .Values.rfc2136.host }}
{{- fail "provider.name=rfc2136 needs rfc2136.host (the DNS server(s) to update)" }}
{{- end }}
{{- if and (not .Values.rfc2136.insecure) (or (not .Values.rfc2136.tsigKeyname) (not .Values.rfc2136.tsigSecretRef.name)) }}
{{- fail "provider.name=rfc2136 needs rfc2136.tsigKeyname and rfc2136.tsigSecretRef (name, key), or rfc2136.insecure=true" }}
{{- end }}
{{- end }}
{{- end }}

{{/* The external-dns container's args, as a YAML list (toYaml quotes every value that needs it). */}}
{{- define "external-dns-py.args" -}}
{{- $a := list (printf "--metrics-address=:%v" .Values.service.port) }}
{{- $a = append $a (printf "--log-level=%s" .Values.logLevel) }}
{{- $a = append $a (printf "--log-format=%s" .Values.logFormat) }}
{{- $a = append $a (printf "--interval=%s" .Values.interval) }}
{{- if .Values.triggerLoopOnEvent }}
{{- $a = append $a "--events" }}
{{- end }}
{{- range .Values.sources }}
{{- $a = append $a (printf "--source=%s" .) }}
{{- end }}
{{- if .Values.namespaced }}
{{- $a = append $a (printf "--namespace=%s" $.Release.Namespace) }}
{{- end }}
{{- $a = append $a (printf "--policy=%s" .Values.policy) }}
{{- $a = append $a (printf "--registry=%s" .Values.registry) }}
{{- with .Values.txtOwnerId }}
{{- $a = append $a (printf "--txt-owner-id=%s" .) }}
{{- end }}
{{- with .Values.txtPrefix }}
{{- $a = append $a (printf "--txt-prefix=%s" .) }}
{{- end }}
{{- with .Values.txtSuffix }}
{{- $a = append $a (printf "--txt-suffix=%s" .) }}
{{- end }}
{{- if .Values.txtEncrypt.enabled }}
{{- $a = append $a "--txt-encrypt-enabled" }}
{{- end }}
{{- range .Values.domainFilters }}
{{- $a = append $a (printf "--domain-filter=%s" .) }}
{{- end }}
{{- range .Values.excludeDomains }}
{{- $a = append $a (printf "--exclude-domains=%s" .) }}
{{- end }}
{{- range .Values.serviceTypeFilter }}
{{- $a = append $a (printf "--service-type-filter=%s" .) }}
{{- end }}
{{- range .Values.managedRecordTypes }}
{{- $a = append $a (printf "--managed-record-types=%s" .) }}
{{- end }}
{{- with .Values.labelFilter }}
{{- $a = append $a (printf "--label-filter=%s" .) }}
{{- end }}
{{- with .Values.annotationFilter }}
{{- $a = append $a (printf "--annotation-filter=%s" .) }}
{{- end }}
{{- $a = append $a (printf "--provider=%s" .Values.provider.name) }}
{{- if eq .Values.provider.name "aws" }}
{{- with .Values.aws }}
{{- with .zoneType }}
{{- $a = append $a (printf "--aws-zone-type=%s" .) }}
{{- end }}
{{- range .zoneTags }}
{{- $a = append $a (printf "--aws-zone-tags=%s" .) }}
{{- end }}
{{- range .zoneIdFilters }}
{{- $a = append $a (printf "--zone-id-filter=%s" .) }}
{{- end }}
{{- with .assumeRoleArn }}
{{- $a = append $a (printf "--aws-assume-role=%s" .) }}
{{- end }}
{{- if .preferCNAME }}
{{- $a = append $a "--aws-prefer-cname" }}
{{- end }}
{{- $a = append $a (printf "--aws-batch-change-size=%v" .batchChangeSize) }}
{{- end }}
{{- else if eq .Values.provider.name "rfc2136" }}
{{- with .Values.rfc2136 }}
{{- range .host }}
{{- $a = append $a (printf "--rfc2136-host=%s" .) }}
{{- end }}
{{- $a = append $a (printf "--rfc2136-port=%v" .port) }}
{{- range .zones }}
{{- $a = append $a (printf "--rfc2136-zone=%s" .) }}
{{- end }}
{{- if .insecure }}
{{- $a = append $a "--rfc2136-insecure" }}
{{- else }}
{{- $a = append $a (printf "--rfc2136-tsig-keyname=%s" .tsigKeyname) }}
{{- $a = append $a (printf "--rfc2136-tsig-secret-alg=%s" .tsigSecretAlg) }}
{{- end }}
{{- $a = append $a (printf "--rfc2136-axfr=%t" .axfr) }}
{{- if .useTls }}
{{- $a = append $a "--rfc2136-use-tls" }}
{{- end }}
{{- if .skipTlsVerify }}
{{- $a = append $a "--rfc2136-skip-tls-verify" }}
{{- end }}
{{- with .minTTL }}
{{- $a = append $a (printf "--rfc2136-min-ttl=%s" .) }}
{{- end }}
{{- $a = append $a (printf "--rfc2136-batch-change-size=%v" .batchChangeSize) }}
{{- end }}
{{- else if eq .Values.provider.name "webhook" }}
{{- $a = append $a "--webhook-provider-url=http://localhost:8888" }}
{{- end }}
{{- if .Values.leaderElection.enabled }}
{{- $a = append $a "--leader-elect" }}
{{- $a = append $a (printf "--leader-elect-namespace=%s" .Release.Namespace) }}
{{- $a = append $a (printf "--leader-elect-name=%s" (include "external-dns-py.leaseName" .)) }}
{{- $a = append $a (printf "--leader-elect-lease-duration=%s" .Values.leaderElection.leaseDuration) }}
{{- $a = append $a (printf "--leader-elect-renew-deadline=%s" .Values.leaderElection.renewDeadline) }}
{{- $a = append $a (printf "--leader-elect-retry-period=%s" .Values.leaderElection.retryPeriod) }}
{{- end }}
{{- range .Values.extraArgs }}
{{- $a = append $a . }}
{{- end }}
{{- toYaml $a }}
{{- end }}

{{/* The external-dns container's env: credentials from Secrets, then .Values.env. */}}
{{- define "external-dns-py.env" -}}
{{- if and (eq .Values.provider.name "aws") .Values.aws.region }}
- name: AWS_DEFAULT_REGION
  value: {{ .Values.aws.region | quote }}
{{- end }}
{{- if and (eq .Values.provider.name "aws") .Values.aws.credentials.secretName }}
- name: AWS_ACCESS_KEY_ID
  valueFrom:
    secretKeyRef:
      name: {{ .Values.aws.credentials.secretName }}
      key: {{ .Values.aws.credentials.accessKeyIdKey }}
- name: AWS_SECRET_ACCESS_KEY
  valueFrom:
    secretKeyRef:
      name: {{ .Values.aws.credentials.secretName }}
      key: {{ .Values.aws.credentials.secretAccessKeyKey }}
{{- end }}
{{- if and (eq .Values.provider.name "rfc2136") (not .Values.rfc2136.insecure) }}
- name: EXTERNAL_DNS_RFC2136_TSIG_SECRET
  valueFrom:
    secretKeyRef:
      name: {{ .Values.rfc2136.tsigSecretRef.name }}
      key: {{ .Values.rfc2136.tsigSecretRef.key }}
{{- end }}
{{- if .Values.txtEncrypt.enabled }}
- name: EXTERNAL_DNS_TXT_ENCRYPT_AES_KEY
  valueFrom:
    secretKeyRef:
      name: {{ .Values.txtEncrypt.aesKeySecretRef.name }}
      key: {{ .Values.txtEncrypt.aesKeySecretRef.key }}
{{- end }}
{{- with .Values.env }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
RBAC rules of the enabled sources, from files/rbac-rules.yaml (generated from the code's
rules_for_sources; tests/charts checks they agree). Output: a YAML map with "namespaced" and "cluster"
rule lists (cluster: rules on cluster-scoped resources, which a Role cannot grant).
*/}}
{{- define "external-dns-py.rules" -}}
{{- $all := .Files.Get "files/rbac-rules.yaml" | fromYaml }}
{{- $clusterScoped := $all.clusterScopedResources | default list }}
{{- $seen := dict }}
{{- $namespaced := list }}
{{- $cluster := list }}
{{- $rules := list }}
{{- range $all.always }}
{{- $rules = append $rules . }}
{{- end }}
{{- /* The service source watches only Services when --service-type-filter has neither ClusterIP nor
NodePort (external_dns.sources.rbac.service_informer_resources). */}}
{{- $typeFilter := .Values.serviceTypeFilter | default list }}
{{- $servicesOnly := and $typeFilter (not (has "ClusterIP" $typeFilter)) (not (has "NodePort" $typeFilter)) }}
{{- range .Values.sources }}
{{- if not (hasKey $all.sources .) }}
{{- fail (printf "sources: %q has no RBAC rules (known: %s)" . (keys $all.sources | sortAlpha | join ", ")) }}
{{- end }}
{{- $name := . }}
{{- range (get $all.sources .) }}
{{- if or (ne $name "service") (not $servicesOnly) (has "services" .resources) }}
{{- $rules = append $rules . }}
{{- end }}
{{- end }}
{{- end }}
{{- range $rules }}
{{- $key := toJson . }}
{{- if not (hasKey $seen $key) }}
{{- $_ := set $seen $key true }}
{{- $isCluster := false }}
{{- range .resources }}
{{- if has . $clusterScoped }}
{{- $isCluster = true }}
{{- end }}
{{- end }}
{{- if $isCluster }}
{{- $cluster = append $cluster . }}
{{- else }}
{{- $namespaced = append $namespaced . }}
{{- end }}
{{- end }}
{{- end }}
{{- toYaml (dict "namespaced" $namespaced "cluster" $cluster) }}
{{- end }}
