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

{{/* The namespace of every namespaced object: namespaceOverride, else the release namespace. */}}
{{- define "external-dns-py.namespace" -}}
{{- default .Release.Namespace .Values.namespaceOverride }}
{{- end }}

{{/* The namespace the sources watch with namespaced=true (and where their Role lives). */}}
{{- define "external-dns-py.sourceNamespace" -}}
{{- default (include "external-dns-py.namespace" .) .Values.sourceNamespace }}
{{- end }}

{{/* The provider's name: upstream accepts `provider: aws` as well as `provider: {name: aws}`. */}}
{{- define "external-dns-py.providerName" -}}
{{- if kindIs "map" .Values.provider }}
{{- .Values.provider.name | default "aws" }}
{{- else }}
{{- .Values.provider | default "aws" }}
{{- end }}
{{- end }}

{{/* provider.webhook as a map ({} when provider is a string). */}}
{{- define "external-dns-py.webhook" -}}
{{- if kindIs "map" .Values.provider }}
{{- toYaml (.Values.provider.webhook | default dict) }}
{{- else }}
{{- toYaml dict }}
{{- end }}
{{- end }}

{{/* "true" when a webhook provider sidecar runs beside external-dns (provider webhook with an image). */}}
{{- define "external-dns-py.webhookSidecar" -}}
{{- $webhook := include "external-dns-py.webhook" . | fromYaml }}
{{- if and (eq (include "external-dns-py.providerName" .) "webhook") (($webhook.image | default dict).repository) }}
{{- "true" }}
{{- end }}
{{- end }}

{{/* "true" when extraArgs point the webhook provider at a URL of their own (a provider running elsewhere). */}}
{{- define "external-dns-py.externalWebhookUrl" -}}
{{- range (include "external-dns-py.extraArgs" . | fromYamlArray) }}
{{- if hasPrefix "--webhook-provider-url=" . }}
{{- "true" }}
{{- end }}
{{- end }}
{{- end }}

{{/* The sources that run, as a YAML list: `sources` and any --source=NAME in extraArgs (upstream allows
`sources: []` with the sources given there); RBAC is granted for all of them. */}}
{{- define "external-dns-py.sources" -}}
{{- $out := .Values.sources | default list }}
{{- range (include "external-dns-py.extraArgs" . | fromYamlArray) }}
{{- if regexMatch "^--source=." (toString .) }}
{{- $out = append $out (trimPrefix "--source=" (toString .)) }}
{{- end }}
{{- end }}
{{- toYaml ($out | uniq) }}
{{- end }}

{{/* The service source's --service-type-filter as a YAML list: serviceTypeFilter; with namespaced and none
given, every type but NodePort (NodePort targets are Node addresses, which only cluster-scoped RBAC can
read: as upstream's chart, a namespaced release publishes no NodePort Services and needs no ClusterRole). */}}
{{- define "external-dns-py.serviceTypeFilter" -}}
{{- if .Values.serviceTypeFilter }}
{{- toYaml .Values.serviceTypeFilter }}
{{- else if and .Values.namespaced (has "service" (include "external-dns-py.sources" . | fromYamlArray)) }}
{{- toYaml (list "ClusterIP" "LoadBalancer" "ExternalName") }}
{{- else }}
{{- toYaml list }}
{{- end }}
{{- end }}

{{/* extraArgs as a YAML list of "--flag=value" strings, from a list or an upstream-style map
(flag -> value; a list value repeats the flag; null, "" or true give a bare "--flag"). Each value goes
through `tpl` as upstream's chart does, so `{{ .Release.Name }}` renders and a --fqdn-template is written
escaped, as upstream documents: --fqdn-template={{ `{{.Name}}.example.org` }}. */}}
{{- define "external-dns-py.extraArgs" -}}
{{- $out := list }}
{{- $extra := .Values.extraArgs }}
{{- if kindIs "map" $extra }}
{{- range $k, $v := $extra }}
{{- $flag := printf "--%s" (trimPrefix "--" $k) }}
{{- if kindIs "slice" $v }}
{{- range $v }}
{{- $out = append $out (printf "%s=%s" $flag (tpl (toString .) $)) }}
{{- end }}
{{- else if or (kindIs "invalid" $v) (eq (toString $v) "") (eq (toString $v) "true") }}
{{- $out = append $out $flag }}
{{- else }}
{{- $out = append $out (printf "%s=%s" $flag (tpl (toString $v) $)) }}
{{- end }}
{{- end }}
{{- else }}
{{- range $extra }}
{{- $out = append $out (tpl (toString .) $) }}
{{- end }}
{{- end }}
{{- toYaml $out }}
{{- end }}

{{/* Flags whose value is a secret (masked by the program's config log line): given in extraArgs or a
webhook sidecar's args they render, and NOTES.txt warns. tests/charts checks this list against the parser. */}}
{{- define "external-dns-py.secretFlags" -}}
{{- toYaml (list "aws-assume-role-external-id" "pdns-api-key" "rfc2136-kerberos-password" "rfc2136-tsig-secret" "txt-encrypt-aes-key") }}
{{- end }}

{{/* The secret flags found in a YAML list of args (argument: the list). */}}
{{- define "external-dns-py.secretArgsIn" -}}
{{- $found := list }}
{{- $secrets := include "external-dns-py.secretFlags" . | fromYamlArray }}
{{- range (index . 0) }}
{{- $name := regexReplaceAll "^--(no-)?([a-z0-9-]+)(=.*)?$" (toString .) "${2}" }}
{{- if has $name $secrets }}
{{- $found = append $found (printf "--%s" $name) }}
{{- end }}
{{- end }}
{{- toYaml ($found | uniq) }}
{{- end }}

{{/* A ServiceMonitor endpoint's scrape settings from a serviceMonitor-shaped map (empty ones left out). */}}
{{- define "external-dns-py.scrapeSettings" -}}
{{- with .interval }}
interval: {{ . }}
{{- end }}
{{- with .scrapeTimeout }}
scrapeTimeout: {{ . }}
{{- end }}
{{- with .scheme }}
scheme: {{ . }}
{{- end }}
{{- with .tlsConfig }}
tlsConfig:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .bearerTokenFile }}
bearerTokenFile: {{ . }}
{{- end }}
{{- with .relabelings }}
relabelings:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .metricRelabelings }}
metricRelabelings:
  {{- toYaml . | nindent 2 }}
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
{{- fail (printf "replicaCount: %v needs leader election: set leaderElection.enabled=true (one replica then writes, the others wait to take over); two replicas without it would both write DNS records" .Values.replicaCount) }}
{{- end }}
{{- if and .Values.txtPrefix .Values.txtSuffix }}
{{- fail "txtPrefix and txtSuffix are mutually exclusive: set one of them (as upstream's chart, and --txt-prefix / --txt-suffix)" }}
{{- end }}
{{- if and .Values.txtEncrypt.enabled (not .Values.txtEncrypt.aesKeySecretRef.name) }}
{{- fail "txtEncrypt.enabled needs txtEncrypt.aesKeySecretRef.name and .key (a Secret holding the AES key)" }}
{{- end }}
{{- $provider := include "external-dns-py.providerName" . }}
{{- $webhook := include "external-dns-py.webhook" . | fromYaml }}
{{- if and (eq $provider "webhook") (not (include "external-dns-py.webhookSidecar" .)) (not (include "external-dns-py.externalWebhookUrl" .)) }}
{{- fail "provider.name=webhook needs provider.webhook.image.repository (the webhook provider sidecar), or --webhook-provider-url in extraArgs for a webhook provider running elsewhere" }}
{{- end }}
{{- /* rfc2136.* values are optional: upstream's tutorial configures RFC2136 through extraArgs alone. */}}
{{- if and (eq $provider "rfc2136") .Values.rfc2136.host }}
{{- if and (not .Values.rfc2136.insecure) (or (not .Values.rfc2136.tsigKeyname) (not .Values.rfc2136.tsigSecretRef.name)) }}
{{- fail "provider.name=rfc2136 needs rfc2136.tsigKeyname and rfc2136.tsigSecretRef (name, key), or rfc2136.insecure=true" }}
{{- end }}
{{- end }}
{{- if and (eq $provider "cloudflare") (or (and .Values.cloudflare.apiTokenSecretRef.name (not .Values.cloudflare.apiTokenSecretRef.key)) (and .Values.cloudflare.apiKeySecretRef.name (or (not .Values.cloudflare.apiKeySecretRef.key) (not .Values.cloudflare.email)))) }}
{{- fail "cloudflare.apiTokenSecretRef needs name and key; cloudflare.apiKeySecretRef needs name, key and cloudflare.email" }}
{{- end }}
{{- if and (eq $provider "google") .Values.google.serviceAccountSecretRef.name (not .Values.google.serviceAccountSecretRef.key) }}
{{- fail "google.serviceAccountSecretRef needs name and key (the key file's key in the Secret)" }}
{{- end }}
{{- /* pdns.* values are optional too: upstream configures PowerDNS through extraArgs and env. */}}
{{- if and (eq $provider "pdns") .Values.pdns.server }}
{{- if or (not .Values.pdns.apiKeySecretRef.name) (not .Values.pdns.apiKeySecretRef.key) }}
{{- fail "pdns.server needs pdns.apiKeySecretRef (name, key): the Secret holding the PowerDNS API key" }}
{{- end }}
{{- with .Values.pdns.tls }}
{{- if and (or .caKey .clientCertKey .clientCertKeyKey) (not .secretName) }}
{{- fail "pdns.tls.caKey / clientCertKey / clientCertKeyKey need pdns.tls.secretName (the Secret holding them)" }}
{{- end }}
{{- if ne (empty .clientCertKey) (empty .clientCertKeyKey) }}
{{- fail "pdns.tls.clientCertKey and pdns.tls.clientCertKeyKey must be given together" }}
{{- end }}
{{- end }}
{{- if and .Values.pdns.tls.secretName (hasPrefix "http://" .Values.pdns.server) }}
{{- fail "pdns.tls needs an https:// pdns.server" }}
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
{{- $a = append $a (printf "--namespace=%s" (include "external-dns-py.sourceNamespace" $)) }}
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
{{- range (include "external-dns-py.serviceTypeFilter" . | fromYamlArray) }}
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
{{- with .Values.annotationPrefix }}
{{- $a = append $a (printf "--annotation-prefix=%s" .) }}
{{- end }}
{{- $gatewaySources := false }}
{{- range (include "external-dns-py.sources" . | fromYamlArray) }}{{- if hasPrefix "gateway-" . }}{{- $gatewaySources = true }}{{- end }}{{- end }}
{{- if .Values.gatewayNamespace }}
{{- $a = append $a (printf "--gateway-namespace=%s" .Values.gatewayNamespace) }}
{{- else if and .Values.namespaced $gatewaySources }}
{{- /* namespaced: the Role lets the sources read Gateways of their own namespace only */}}
{{- $a = append $a (printf "--gateway-namespace=%s" (include "external-dns-py.sourceNamespace" .)) }}
{{- end }}
{{- if .Values.enableGatewayListenerSets }}
{{- $a = append $a "--gateway-listener-sets" }}
{{- end }}
{{- if and .Values.sourceNamespace (not .Values.namespaced) }}
{{- $a = append $a (printf "--namespace=%s" .Values.sourceNamespace) }}
{{- end }}
{{- $provider := include "external-dns-py.providerName" . }}
{{- $a = append $a (printf "--provider=%s" $provider) }}
{{- if eq $provider "aws" }}
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
{{- else if and (eq $provider "rfc2136") .Values.rfc2136.host }}
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
{{- else if and (eq $provider "pdns") .Values.pdns.server }}
{{- with .Values.pdns }}
{{- $a = append $a (printf "--pdns-server=%s" .server) }}
{{- $a = append $a (printf "--pdns-server-id=%s" .serverId) }}
{{- if .skipTlsVerify }}
{{- $a = append $a "--pdns-skip-tls-verify" }}
{{- end }}
{{- with .tls.caKey }}
{{- $a = append $a (printf "--tls-ca=/etc/external-dns/pdns-tls/%s" .) }}
{{- end }}
{{- with .tls.clientCertKey }}
{{- $a = append $a (printf "--tls-client-cert=/etc/external-dns/pdns-tls/%s" .) }}
{{- end }}
{{- with .tls.clientCertKeyKey }}
{{- $a = append $a (printf "--tls-client-cert-key=/etc/external-dns/pdns-tls/%s" .) }}
{{- end }}
{{- end }}
{{- else if eq $provider "cloudflare" }}
{{- with .Values.cloudflare }}
{{- if .proxied }}
{{- $a = append $a "--cloudflare-proxied" }}
{{- end }}
{{- $a = append $a (printf "--cloudflare-dns-records-per-page=%v" .dnsRecordsPerPage) }}
{{- with .recordComment }}
{{- $a = append $a (printf "--cloudflare-record-comment=%s" .) }}
{{- end }}
{{- with .regionKey }}
{{- $a = append $a (printf "--cloudflare-region-key=%s" .) }}
{{- end }}
{{- end }}
{{- else if eq $provider "google" }}
{{- with .Values.google }}
{{- with .project }}
{{- $a = append $a (printf "--google-project=%s" .) }}
{{- end }}
{{- with .zoneVisibility }}
{{- $a = append $a (printf "--google-zone-visibility=%s" .) }}
{{- end }}
{{- $a = append $a (printf "--google-batch-change-size=%v" .batchChangeSize) }}
{{- $a = append $a (printf "--google-batch-change-interval=%s" .batchChangeInterval) }}
{{- end }}
{{- else if has $provider (list "azure" "azure-private-dns") }}
{{- with .Values.azure }}
{{- with .resourceGroup }}
{{- $a = append $a (printf "--azure-resource-group=%s" .) }}
{{- end }}
{{- with .subscriptionId }}
{{- $a = append $a (printf "--azure-subscription-id=%s" .) }}
{{- end }}
{{- with .userAssignedIdentityClientId }}
{{- $a = append $a (printf "--azure-user-assigned-identity-client-id=%s" .) }}
{{- end }}
{{- end }}
{{- else if and (include "external-dns-py.webhookSidecar" .) (not (include "external-dns-py.externalWebhookUrl" .)) }}
{{- /* the sidecar's URL, unless extraArgs give one (the flag is then rendered once, theirs) */}}
{{- $a = append $a "--webhook-provider-url=http://localhost:8888" }}
{{- end }}
{{- if .Values.leaderElection.enabled }}
{{- $a = append $a "--leader-elect" }}
{{- $a = append $a (printf "--leader-elect-namespace=%s" (include "external-dns-py.namespace" .)) }}
{{- $a = append $a (printf "--leader-elect-name=%s" (include "external-dns-py.leaseName" .)) }}
{{- $a = append $a (printf "--leader-elect-lease-duration=%s" .Values.leaderElection.leaseDuration) }}
{{- $a = append $a (printf "--leader-elect-renew-deadline=%s" .Values.leaderElection.renewDeadline) }}
{{- $a = append $a (printf "--leader-elect-retry-period=%s" .Values.leaderElection.retryPeriod) }}
{{- end }}
{{- range (include "external-dns-py.extraArgs" . | fromYamlArray) }}
{{- $a = append $a . }}
{{- end }}
{{- toYaml $a }}
{{- end }}

{{/* The external-dns container's env: credentials from Secrets, then .Values.env. */}}
{{- define "external-dns-py.env" -}}
{{- $provider := include "external-dns-py.providerName" . }}
{{- if and (eq $provider "aws") .Values.aws.region }}
- name: AWS_DEFAULT_REGION
  value: {{ .Values.aws.region | quote }}
{{- end }}
{{- if and (eq $provider "aws") .Values.aws.credentials.secretName }}
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
{{- if and (eq $provider "rfc2136") .Values.rfc2136.host (not .Values.rfc2136.insecure) }}
- name: EXTERNAL_DNS_RFC2136_TSIG_SECRET
  valueFrom:
    secretKeyRef:
      name: {{ .Values.rfc2136.tsigSecretRef.name }}
      key: {{ .Values.rfc2136.tsigSecretRef.key }}
{{- end }}
{{- if and (eq $provider "pdns") .Values.pdns.server }}
- name: EXTERNAL_DNS_PDNS_API_KEY
  valueFrom:
    secretKeyRef:
      name: {{ .Values.pdns.apiKeySecretRef.name }}
      key: {{ .Values.pdns.apiKeySecretRef.key }}
{{- end }}
{{- if eq $provider "cloudflare" }}
{{- with .Values.cloudflare.apiTokenSecretRef }}
{{- if .name }}
- name: CF_API_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ .name }}
      key: {{ .key }}
{{- end }}
{{- end }}
{{- if .Values.cloudflare.apiKeySecretRef.name }}
- name: CF_API_KEY
  valueFrom:
    secretKeyRef:
      name: {{ .Values.cloudflare.apiKeySecretRef.name }}
      key: {{ .Values.cloudflare.apiKeySecretRef.key }}
- name: CF_API_EMAIL
  value: {{ .Values.cloudflare.email | quote }}
{{- end }}
{{- end }}
{{- if include "external-dns-py.googleKey" . }}
- name: GOOGLE_APPLICATION_CREDENTIALS
  value: /etc/external-dns/google/{{ .Values.google.serviceAccountSecretRef.key }}
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
{{- /* What the service source watches for its --service-type-filter (all types when empty), as
external_dns.sources.rbac.service_informer_resources: Services; Pods and EndpointSlices for ClusterIP or
NodePort; Nodes for NodePort. */}}
{{- $typeFilter := include "external-dns-py.serviceTypeFilter" . | fromYamlArray }}
{{- $serviceWatches := list "services" }}
{{- if or (not $typeFilter) (has "ClusterIP" $typeFilter) (has "NodePort" $typeFilter) }}
{{- $serviceWatches = concat $serviceWatches (list "pods" "endpointslices") }}
{{- end }}
{{- if or (not $typeFilter) (has "NodePort" $typeFilter) }}
{{- $serviceWatches = append $serviceWatches "nodes" }}
{{- end }}
{{- $gatewaySources := false }}
{{- range (include "external-dns-py.sources" . | fromYamlArray) }}
{{- if hasPrefix "gateway-" . }}{{- $gatewaySources = true }}{{- end }}
{{- if not (hasKey $all.sources .) }}
{{- fail (printf "sources: %q has no RBAC rules (known: %s)" . (keys $all.sources | sortAlpha | join ", ")) }}
{{- end }}
{{- $name := . }}
{{- range (get $all.sources .) }}
{{- if or (ne $name "service") (has (first .resources) $serviceWatches) }}
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
{{- /* --gateway-listener-sets: the gateway sources read ListenerSets in every namespace (a Gateway may admit
another namespace's), so the rule is cluster-wide, namespaced or not (upstream's chart 1.21 grants it in its
ClusterRole too, when gateway sources are on). */}}
{{- if and .Values.enableGatewayListenerSets $gatewaySources }}
{{- $cluster = concat $cluster $all.gatewayListenerSets }}
{{- end }}
{{- toYaml (dict "namespaced" $namespaced "cluster" $cluster) }}
{{- end }}

{{/* affinity and topologySpreadConstraints as upstream renders them: a pod (anti-)affinity term or a spread
constraint without a labelSelector gets one matching this release's pods (argument: the root context). */}}
{{- define "external-dns-py.affinity" -}}
{{- $selector := dict "matchLabels" (include "external-dns-py.selectorLabels" . | fromYaml) }}
{{- $affinity := deepCopy (.Values.affinity | default dict) }}
{{- range $kind := list "podAffinity" "podAntiAffinity" }}
{{- with (get $affinity $kind) }}
{{- range (get . "requiredDuringSchedulingIgnoredDuringExecution" | default list) }}
{{- if not (hasKey . "labelSelector") }}
{{- $_ := set . "labelSelector" $selector }}
{{- end }}
{{- end }}
{{- range (get . "preferredDuringSchedulingIgnoredDuringExecution" | default list) }}
{{- with .podAffinityTerm }}
{{- if not (hasKey . "labelSelector") }}
{{- $_ := set . "labelSelector" $selector }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- toYaml $affinity }}
{{- end }}

{{- define "external-dns-py.topologySpreadConstraints" -}}
{{- $selector := dict "matchLabels" (include "external-dns-py.selectorLabels" . | fromYaml) }}
{{- $out := list }}
{{- range (deepCopy (.Values.topologySpreadConstraints | default list)) }}
{{- if not (hasKey . "labelSelector") }}
{{- $_ := set . "labelSelector" $selector }}
{{- end }}
{{- $out = append $out . }}
{{- end }}
{{- toYaml $out }}
{{- end }}

{{/* "true" when a Google service-account key file is mounted from google.serviceAccountSecretRef. */}}
{{- define "external-dns-py.googleKey" -}}
{{- if and (eq (include "external-dns-py.providerName" .) "google") .Values.google.serviceAccountSecretRef.name }}true{{ end }}
{{- end }}

{{- define "external-dns-py.azureConfig" -}}
{{- if and (has (include "external-dns-py.providerName" .) (list "azure" "azure-private-dns")) .Values.azure.configSecretName }}true{{ end }}
{{- end }}

{{/* "true" when the PowerDNS TLS client files are mounted from pdns.tls.secretName. */}}
{{- define "external-dns-py.pdnsTls" -}}
{{- if and (eq (include "external-dns-py.providerName" .) "pdns") .Values.pdns.server .Values.pdns.tls.secretName }}true{{ end }}
{{- end }}
