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

{{/* The external-dns container's args: one flag per line, rendered as a YAML list. */}}
{{- define "external-dns-py.args" -}}
- --metrics-address=:{{ .Values.service.port }}
- --log-level={{ .Values.logLevel }}
- --log-format={{ .Values.logFormat }}
- --interval={{ .Values.interval }}
{{- if .Values.triggerLoopOnEvent }}
- --events
{{- end }}
{{- range .Values.sources }}
- --source={{ . }}
{{- end }}
{{- if .Values.namespaced }}
- --namespace={{ .Release.Namespace }}
{{- end }}
- --policy={{ .Values.policy }}
- --registry={{ .Values.registry }}
{{- if .Values.txtOwnerId }}
- --txt-owner-id={{ .Values.txtOwnerId }}
{{- end }}
{{- if .Values.txtPrefix }}
- --txt-prefix={{ .Values.txtPrefix }}
{{- end }}
{{- if .Values.txtSuffix }}
- --txt-suffix={{ .Values.txtSuffix }}
{{- end }}
{{- if .Values.txtEncrypt.enabled }}
- --txt-encrypt-enabled
{{- end }}
{{- range .Values.domainFilters }}
- --domain-filter={{ . }}
{{- end }}
{{- range .Values.excludeDomains }}
- --exclude-domains={{ . }}
{{- end }}
{{- range .Values.serviceTypeFilter }}
- --service-type-filter={{ . }}
{{- end }}
{{- range .Values.managedRecordTypes }}
- --managed-record-types={{ . }}
{{- end }}
{{- if .Values.labelFilter }}
- --label-filter={{ .Values.labelFilter }}
{{- end }}
{{- if .Values.annotationFilter }}
- --annotation-filter={{ .Values.annotationFilter }}
{{- end }}
- --provider={{ .Values.provider.name }}
{{- if eq .Values.provider.name "aws" }}
{{- with .Values.aws }}
{{- if .zoneType }}
- --aws-zone-type={{ .zoneType }}
{{- end }}
{{- range .zoneTags }}
- --aws-zone-tags={{ . }}
{{- end }}
{{- range .zoneIdFilters }}
- --zone-id-filter={{ . }}
{{- end }}
{{- if .assumeRoleArn }}
- --aws-assume-role={{ .assumeRoleArn }}
{{- end }}
{{- if .preferCNAME }}
- --aws-prefer-cname
{{- end }}
- --aws-batch-change-size={{ .batchChangeSize }}
{{- end }}
{{- else if eq .Values.provider.name "rfc2136" }}
{{- with .Values.rfc2136 }}
{{- range .host }}
- --rfc2136-host={{ . }}
{{- end }}
- --rfc2136-port={{ .port }}
{{- range .zones }}
- --rfc2136-zone={{ . }}
{{- end }}
{{- if .insecure }}
- --rfc2136-insecure
{{- else }}
- --rfc2136-tsig-keyname={{ .tsigKeyname }}
- --rfc2136-tsig-secret-alg={{ .tsigSecretAlg }}
{{- end }}
- --rfc2136-axfr={{ .axfr }}
{{- if .useTls }}
- --rfc2136-use-tls
{{- end }}
{{- if .skipTlsVerify }}
- --rfc2136-skip-tls-verify
{{- end }}
{{- if .minTTL }}
- --rfc2136-min-ttl={{ .minTTL }}
{{- end }}
- --rfc2136-batch-change-size={{ .batchChangeSize }}
{{- end }}
{{- else if eq .Values.provider.name "webhook" }}
- --webhook-provider-url=http://localhost:8888
{{- end }}
{{- if .Values.leaderElection.enabled }}
- --leader-elect
- --leader-elect-namespace={{ .Release.Namespace }}
- --leader-elect-name={{ include "external-dns-py.leaseName" . }}
- --leader-elect-lease-duration={{ .Values.leaderElection.leaseDuration }}
- --leader-elect-renew-deadline={{ .Values.leaderElection.renewDeadline }}
- --leader-elect-retry-period={{ .Values.leaderElection.retryPeriod }}
{{- end }}
{{- range .Values.extraArgs }}
- {{ . | quote }}
{{- end }}
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
