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
      envFrom:
        - configMapRef:
            name: {{ include "vigil.fullname" $root }}
        - secretRef:
            name: {{ include "vigil.secretName" $root }}
      readinessProbe:
        httpGet: {path: /readyz, port: http}
        periodSeconds: 5
        failureThreshold: 3
      livenessProbe:
        httpGet: {path: /healthz, port: http}
        initialDelaySeconds: 10
        periodSeconds: 10
        failureThreshold: 6
      startupProbe:
        httpGet: {path: /healthz, port: http}
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
      {{- if and (eq .role "api") (or .values.exports.existingClaim .values.exports.create) }}
      persistentVolumeClaim:
        claimName: {{ .values.exports.existingClaim | default (printf "%s-exports" (include "vigil.fullname" $root)) }}
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
