{{/* The chart's name, trimmed to Kubernetes' 63 characters. */}}
{{- define "vigil.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The release's full name: the release, or release-chart when they differ. */}}
{{- define "vigil.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Labels of every object. */}}
{{- define "vigil.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "vigil.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Selector labels of one role's pods: call with (dict "root" $ "role" "api"). */}}
{{- define "vigil.selector" -}}
app.kubernetes.io/name: {{ include "vigil.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .role }}
{{- end -}}

{{/* The claim the API pods keep exports on: empty when they go to a bucket or nowhere shared. */}}
{{- define "vigil.exportsClaim" -}}
{{- with .Values.api.exports -}}
{{- if not .s3.endpoint -}}
{{- if .existingClaim -}}
{{- .existingClaim -}}
{{- else if .create -}}
{{- printf "%s-exports" (include "vigil.fullname" $) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The Secret the pods read their secrets from. */}}
{{- define "vigil.secretName" -}}
{{- .Values.secrets.existingSecret | default (include "vigil.fullname" .) -}}
{{- end -}}

{{- define "vigil.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- .Values.serviceAccount.name | default (include "vigil.fullname" .) -}}
{{- else -}}
{{- .Values.serviceAccount.name | default "default" -}}
{{- end -}}
{{- end -}}

{{/*
The pod template of one role: call with (dict "root" $ "role" "api" "values" .Values.api).
Both roles read the same configuration and Secret; --roles picks what the process runs.
*/}}
{{- define "vigil.pod" -}}
{{- $root := .root -}}
metadata:
  labels:
    {{- include "vigil.selector" . | nindent 4 }}
  annotations:
    checksum/config: {{ include (print $root.Template.BasePath "/configmap.yaml") $root | sha256sum }}
    {{- if not $root.Values.secrets.existingSecret }}
    checksum/secret: {{ include (print $root.Template.BasePath "/secret.yaml") $root | sha256sum }}
    {{- end }}
    {{- if $root.Values.metrics.listener.enabled }}
    prometheus.io/scrape: "true"
    prometheus.io/port: {{ $root.Values.metrics.listener.port | quote }}
    prometheus.io/path: /metrics
    {{- end }}
    {{- with .values.podAnnotations }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  serviceAccountName: {{ include "vigil.serviceAccountName" $root }}
  automountServiceAccountToken: false
  {{- with $root.Values.imagePullSecrets }}
  imagePullSecrets:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  securityContext:
    runAsNonRoot: true
    runAsUser: 65532
    runAsGroup: 65532
    fsGroup: 65532
    seccompProfile: {type: RuntimeDefault}
  # SIGTERM drains: in-flight requests finish and accepted events are durable before exit.
  terminationGracePeriodSeconds: 45
  containers:
    - name: vigil
      image: "{{ $root.Values.image.repository }}:{{ $root.Values.image.tag | default $root.Chart.AppVersion }}"
      imagePullPolicy: {{ $root.Values.image.pullPolicy }}
      args: ["serve", "--roles", "{{ .role }}"]
      ports:
        - name: http
          containerPort: 8080
        {{- if $root.Values.metrics.listener.enabled }}
        - name: metrics
          containerPort: {{ $root.Values.metrics.listener.port }}
        {{- end }}
      envFrom:
        - configMapRef:
            name: {{ include "vigil.fullname" $root }}
        - secretRef:
            name: {{ include "vigil.secretName" $root }}
      # Ready unless the role can do nothing useful (the event log or PostgreSQL unreachable);
      # a ClickHouse or Redis outage leaves it ready, reported degraded in /readyz?verbose.
      readinessProbe:
        httpGet: {path: /readyz, port: http}
        periodSeconds: 5
        failureThreshold: 3
      # Alive while the process serves: never restarted for an engine's outage.
      livenessProbe:
        httpGet: {path: /livez, port: http}
        initialDelaySeconds: 10
        periodSeconds: 10
        failureThreshold: 6
      startupProbe:
        httpGet: {path: /livez, port: http}
        periodSeconds: 2
        failureThreshold: 60
      securityContext:
        allowPrivilegeEscalation: false
        readOnlyRootFilesystem: true
        capabilities: {drop: ["ALL"]}
      resources:
        {{- toYaml .values.resources | nindent 8 }}
      volumeMounts:
        - {name: data, mountPath: /data}
        - {name: tmp, mountPath: /tmp}
  volumes:
    - name: tmp
      emptyDir: {}
    - name: data
      {{- $claim := include "vigil.exportsClaim" $root }}
      {{- if and (eq .role "api") $claim }}
      persistentVolumeClaim:
        claimName: {{ $claim }}
      {{- else }}
      emptyDir: {}
      {{- end }}
  {{- with .values.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .values.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .values.affinity }}
  affinity:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end -}}
