package deploy_test

import (
	"bytes"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/platform/secretbox"
	"github.com/vigilhq/vigil/platform/testenv"
)

const chart = "helm/vigil"

// kubeVersion is the cluster version the chart is rendered for (a helm
// built from its module reports v1.20 otherwise, below the chart's floor).
const kubeVersion = "1.31.0"

// required are the values a release needs when the chart makes its Secret.
var required = []string{
	`engines.kafkaBrokers=kafka-0.kafka:9092\,kafka-1.kafka:9092`, // helm --set splits at a bare comma
	"engines.postgresURL=postgres://vigil:pw@pg:5432/vigil?sslmode=require",
	"engines.clickhouseURL=clickhouse://vigil:pw@ch:9000/vigil",
	"engines.redisURL=redis://:pw@redis:6379/0",
	"secrets.adminPassword=a long passphrase of the operator",
	"secrets.masterKey=" + masterKey,
}

// masterKey is a key line as vigil keygen prints it, of these tests only.
const masterKey = "20261207-52be:mNSyua1ZvZX79WMeRoxar44dS4JOn947xvwa4WE+xyU="

// helm runs the helm that engines.sh built with args; it returns stdout,
// or the error with stderr.
func helm(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(testenv.URL(t, testenv.Helm), args...)
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		return out.String(), errors.New(errs.String())
	}
	return out.String(), nil
}

// template is `helm template` of the chart with sets: the manifests, or
// the error saying why the chart refused.
func template(t *testing.T, sets ...string) (string, error) {
	t.Helper()
	args := []string{"template", "rel", chart, "--namespace", "monitoring", "--kube-version", kubeVersion}
	for _, s := range sets {
		args = append(args, "--set", s)
	}
	return helm(t, args...)
}

// render is `helm template` of the chart with sets, as Kubernetes objects.
func render(t *testing.T, sets ...string) []object {
	t.Helper()
	out, err := template(t, sets...)
	if err != nil {
		t.Fatalf("helm template %v: %v", sets, err)
	}
	var objs []object
	dec := yaml.NewDecoder(strings.NewReader(out))
	for {
		var o object
		err := dec.Decode(&o)
		if errors.Is(err, io.EOF) {
			return objs
		}
		if err != nil {
			t.Fatalf("helm template gave YAML that does not parse: %v\n%s", err, out)
		}
		if o.Kind != "" {
			objs = append(objs, o)
		}
	}
}

// object is the part of a Kubernetes object the tests read.
type object struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name        string            `yaml:"name"`
		Labels      map[string]string `yaml:"labels"`
		Annotations map[string]string `yaml:"annotations"`
	} `yaml:"metadata"`
	Data       map[string]string `yaml:"data"`
	StringData map[string]string `yaml:"stringData"`
	Spec       struct {
		Replicas *int `yaml:"replicas"`
		Selector struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"selector"`
		Endpoints []struct {
			Port          string `yaml:"port"`
			Authorization *struct {
				Credentials struct {
					Name string `yaml:"name"`
					Key  string `yaml:"key"`
				} `yaml:"credentials"`
			} `yaml:"authorization"`
		} `yaml:"endpoints"`
		Ports []struct {
			Name string `yaml:"name"`
		} `yaml:"ports"`
		Template struct {
			Metadata struct {
				Labels      map[string]string `yaml:"labels"`
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"metadata"`
			Spec podSpec `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type podSpec struct {
	SecurityContext struct {
		RunAsNonRoot bool `yaml:"runAsNonRoot"`
		RunAsUser    int  `yaml:"runAsUser"`
	} `yaml:"securityContext"`
	Containers []struct {
		Image   string   `yaml:"image"`
		Args    []string `yaml:"args"`
		EnvFrom []struct {
			ConfigMapRef *struct{ Name string } `yaml:"configMapRef"`
			SecretRef    *struct{ Name string } `yaml:"secretRef"`
		} `yaml:"envFrom"`
		Ports []struct {
			Name string `yaml:"name"`
		} `yaml:"ports"`
		ReadinessProbe  probe `yaml:"readinessProbe"`
		LivenessProbe   probe `yaml:"livenessProbe"`
		StartupProbe    probe `yaml:"startupProbe"`
		SecurityContext struct {
			ReadOnlyRootFilesystem   bool  `yaml:"readOnlyRootFilesystem"`
			AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
		} `yaml:"securityContext"`
	} `yaml:"containers"`
	Volumes []struct {
		Name                  string `yaml:"name"`
		PersistentVolumeClaim *struct {
			ClaimName string `yaml:"claimName"`
		} `yaml:"persistentVolumeClaim"`
	} `yaml:"volumes"`
}

type probe struct {
	HTTPGet struct {
		Path string `yaml:"path"`
	} `yaml:"httpGet"`
}

// find returns the objects of kind, by name.
func find(objs []object, kind string) map[string]object {
	m := map[string]object{}
	for _, o := range objs {
		if o.Kind == kind {
			m[o.Metadata.Name] = o
		}
	}
	return m
}

func TestHelmLint(t *testing.T) {
	args := []string{"lint", "--strict", "--kube-version", kubeVersion, chart}
	for _, s := range required {
		args = append(args, "--set", s)
	}
	if out, err := helm(t, args...); err != nil {
		t.Fatalf("helm lint --strict: %v\n%s", err, out)
	}
}

// TestHelmTemplate renders the chart as an operator would install it and
// checks what runs: two Deployments scaled apart, readiness on /readyz
// and liveness on /livez, a Service for each role, the
// secrets from a Secret, non-root pods, and only variables Vigil reads.
func TestHelmTemplate(t *testing.T) {
	objs := render(t, append(required, "api.replicas=3", "processor.replicas=5", "env.VIGIL_LOG_LEVEL=debug")...)
	deps := find(objs, "Deployment")
	for role, replicas := range map[string]int{"api": 3, "processor": 5} {
		d, ok := deps["rel-vigil-"+role]
		if !ok {
			t.Fatalf("got Deployments %v, want rel-vigil-%s", keys(deps), role)
		}
		if d.Spec.Replicas == nil || *d.Spec.Replicas != replicas {
			t.Errorf("%s: got replicas %v, want %d", role, d.Spec.Replicas, replicas)
		}
		if got := d.Spec.Selector.MatchLabels["app.kubernetes.io/component"]; got != role {
			t.Errorf("%s: got selector component %q, want %q", role, got, role)
		}
		pod := d.Spec.Template.Spec
		if !pod.SecurityContext.RunAsNonRoot || pod.SecurityContext.RunAsUser == 0 {
			t.Errorf("%s: got pod security %+v, want a non-root user", role, pod.SecurityContext)
		}
		c := pod.Containers[0]
		if strings.Join(c.Args, " ") != "serve --roles "+role {
			t.Errorf("%s: got args %q, want serve --roles %s", role, c.Args, role)
		}
		if c.ReadinessProbe.HTTPGet.Path != "/readyz" || c.LivenessProbe.HTTPGet.Path != "/livez" || c.StartupProbe.HTTPGet.Path != "/livez" {
			t.Errorf("%s: got readiness %q liveness %q startup %q, want /readyz, /livez, /livez", role,
				c.ReadinessProbe.HTTPGet.Path, c.LivenessProbe.HTTPGet.Path, c.StartupProbe.HTTPGet.Path)
		}
		if !c.SecurityContext.ReadOnlyRootFilesystem || c.SecurityContext.AllowPrivilegeEscalation == nil || *c.SecurityContext.AllowPrivilegeEscalation {
			t.Errorf("%s: got container security %+v, want a read-only root and no privilege escalation", role, c.SecurityContext)
		}
		var fromSecret, fromConfig bool
		for _, e := range c.EnvFrom {
			fromSecret = fromSecret || e.SecretRef != nil && e.SecretRef.Name == "rel-vigil"
			fromConfig = fromConfig || e.ConfigMapRef != nil && e.ConfigMapRef.Name == "rel-vigil"
		}
		if !fromSecret || !fromConfig {
			t.Errorf("%s: got envFrom secret %v config %v, want both rel-vigil", role, fromSecret, fromConfig)
		}
	}

	known := map[string]bool{}
	for _, v := range config.Variables() {
		known[v] = true
	}
	cm, secret := find(objs, "ConfigMap")["rel-vigil"], find(objs, "Secret")["rel-vigil"]
	for what, m := range map[string]map[string]string{"ConfigMap": cm.Data, "Secret": secret.StringData} {
		if len(m) == 0 {
			t.Errorf("got no %s rel-vigil with data, want one", what)
		}
		for k := range m {
			if !known[k] {
				t.Errorf("%s key %s: got a variable vigil serve does not read, want one of config.Variables", what, k)
			}
		}
	}
	if cm.Data["VIGIL_LOG_LEVEL"] != "debug" || cm.Data["VIGIL_KAFKA_BROKERS"] != "kafka-0.kafka:9092,kafka-1.kafka:9092" {
		t.Errorf("got ConfigMap %v, want the brokers and env.VIGIL_LOG_LEVEL", cm.Data)
	}
	for _, k := range []string{"VIGIL_POSTGRES_URL", "VIGIL_CLICKHOUSE_URL", "VIGIL_REDIS_URL", "VIGIL_ADMIN_PASSWORD"} {
		if secret.StringData[k] == "" {
			t.Errorf("Secret: got no %s, want it there (URLs hold passwords)", k)
		}
		if cm.Data[k] != "" {
			t.Errorf("ConfigMap: got %s in the clear, want it in the Secret only", k)
		}
	}
	if got := secret.StringData["VIGIL_MASTER_KEY"]; got != masterKey {
		t.Errorf("Secret: got master key %q, want the one given", got)
	}
	if _, err := secretbox.Parse(masterKey); err != nil {
		t.Errorf("the tests' master key: %v", err)
	}
	if secret.Metadata.Annotations["helm.sh/resource-policy"] != "keep" {
		t.Errorf("Secret: got annotations %v, want it kept on uninstall (it holds the master key)", secret.Metadata.Annotations)
	}
	svcs := find(objs, "Service")
	for name, role := range map[string]string{"rel-vigil": "api", "rel-vigil-processor": "processor"} {
		if got := svcs[name].Metadata.Labels["app.kubernetes.io/component"]; got != role {
			t.Errorf("got Services %v, %s of component %q, want one of %s", keys(svcs), name, got, role)
		}
	}
	if n := len(find(objs, "PodDisruptionBudget")); n != 2 {
		t.Errorf("got %d PodDisruptionBudgets, want one per role", n)
	}
}

// TestHelmRendersTheSame: rendered without a cluster, as Argo CD does,
// the chart gives the same manifests every time: it never draws a key.
func TestHelmRendersTheSame(t *testing.T) {
	for _, sets := range [][]string{required, {"engines.kafkaBrokers=kafka:9092", "secrets.existingSecret=vigil-prod"}} {
		first, err := template(t, sets...)
		if err != nil {
			t.Fatal(err)
		}
		second, err := template(t, sets...)
		if err != nil {
			t.Fatal(err)
		}
		if first != second {
			t.Errorf("%v: got two renderings that differ, want the same bytes", sets)
		}
	}
}

// TestHelmMetrics: the ServiceMonitor scrapes both roles' Services with
// the Secret's metrics token by default, or the open metrics listener,
// whose port the pods announce in scrape annotations.
func TestHelmMetrics(t *testing.T) {
	objs := render(t, append(required, "metrics.serviceMonitor.enabled=true", "secrets.metricsToken=scrape-me")...)
	sm, ok := find(objs, "ServiceMonitor")["rel-vigil"]
	if !ok || len(sm.Spec.Endpoints) != 1 {
		t.Fatalf("got ServiceMonitors %v, want rel-vigil with one endpoint", keys(find(objs, "ServiceMonitor")))
	}
	e := sm.Spec.Endpoints[0]
	if e.Port != "http" || e.Authorization == nil || e.Authorization.Credentials.Name != "rel-vigil" ||
		e.Authorization.Credentials.Key != "VIGIL_METRICS_TOKEN" {
		t.Errorf("got endpoint %+v, want port http with the token from Secret rel-vigil key VIGIL_METRICS_TOKEN", e)
	}
	if got := find(objs, "Secret")["rel-vigil"].StringData["VIGIL_METRICS_TOKEN"]; got != "scrape-me" {
		t.Errorf("got Secret VIGIL_METRICS_TOKEN %q, want scrape-me", got)
	}

	objs = render(t, append(required, "metrics.serviceMonitor.enabled=true", "metrics.listener.enabled=true")...)
	if e := find(objs, "ServiceMonitor")["rel-vigil"].Spec.Endpoints; len(e) != 1 || e[0].Port != "metrics" || e[0].Authorization != nil {
		t.Errorf("got endpoints %+v, want port metrics without a token", e)
	}
	if got := find(objs, "ConfigMap")["rel-vigil"].Data["VIGIL_METRICS_ADDR"]; got != "0.0.0.0:9090" {
		t.Errorf("got VIGIL_METRICS_ADDR %q, want 0.0.0.0:9090", got)
	}
	for name, d := range find(objs, "Deployment") {
		a := d.Spec.Template.Metadata.Annotations
		if a["prometheus.io/scrape"] != "true" || a["prometheus.io/port"] != "9090" {
			t.Errorf("%s: got annotations %v, want prometheus.io/scrape and port 9090", name, a)
		}
	}
	for name, svc := range find(objs, "Service") {
		var metrics bool
		for _, p := range svc.Spec.Ports {
			metrics = metrics || p.Name == "metrics"
		}
		if !metrics {
			t.Errorf("%s: got no port metrics, want one", name)
		}
	}
}

// TestHelmExistingSecret: with secrets.existingSecret the chart makes no
// Secret and the pods read the named one.
func TestHelmExistingSecret(t *testing.T) {
	objs := render(t, "engines.kafkaBrokers=kafka:9092", "secrets.existingSecret=vigil-prod")
	if s := find(objs, "Secret"); len(s) != 0 {
		t.Errorf("got Secrets %v, want none", keys(s))
	}
	for name, d := range find(objs, "Deployment") {
		var named bool
		for _, e := range d.Spec.Template.Spec.Containers[0].EnvFrom {
			named = named || e.SecretRef != nil && e.SecretRef.Name == "vigil-prod"
		}
		if !named {
			t.Errorf("%s: got no secretRef vigil-prod, want it", name)
		}
	}
}

// TestHelmExportsVolume: by default generated exports are on a shared
// ReadWriteMany claim that the API pods mount (never an emptyDir of each
// replica); with a bucket, no claim.
func TestHelmExportsVolume(t *testing.T) {
	claim := func(d object) string {
		for _, v := range d.Spec.Template.Spec.Volumes {
			if v.Name == "data" && v.PersistentVolumeClaim != nil {
				return v.PersistentVolumeClaim.ClaimName
			}
		}
		return ""
	}
	objs := render(t, required...)
	if _, ok := find(objs, "PersistentVolumeClaim")["rel-vigil-exports"]; !ok {
		t.Fatalf("got no PersistentVolumeClaim rel-vigil-exports by default")
	}
	deps := find(objs, "Deployment")
	if got := claim(deps["rel-vigil-api"]); got != "rel-vigil-exports" {
		t.Errorf("api: got data claim %q, want rel-vigil-exports", got)
	}
	if got := claim(deps["rel-vigil-processor"]); got != "" {
		t.Errorf("processor: got data claim %q, want none", got)
	}

	objs = render(t, append(required, "api.exports.s3.endpoint=https://s3.example.com", "api.exports.s3.bucket=reports",
		"api.exports.s3.accessKeyID=AKID", "api.exports.s3.secretAccessKey=SECRET")...)
	if pvcs := find(objs, "PersistentVolumeClaim"); len(pvcs) != 0 {
		t.Errorf("with a bucket: got claims %v, want none", keys(pvcs))
	}
	if got := claim(find(objs, "Deployment")["rel-vigil-api"]); got != "" {
		t.Errorf("with a bucket: got data claim %q, want none", got)
	}
	cm, secret := find(objs, "ConfigMap")["rel-vigil"].Data, find(objs, "Secret")["rel-vigil"].StringData
	if cm["VIGIL_EXPORT_S3_ENDPOINT"] != "https://s3.example.com" || cm["VIGIL_EXPORT_S3_BUCKET"] != "reports" ||
		secret["VIGIL_EXPORT_S3_SECRET_ACCESS_KEY"] != "SECRET" || cm["VIGIL_EXPORT_S3_SECRET_ACCESS_KEY"] != "" {
		t.Errorf("with a bucket: got ConfigMap %v and the secret key %q, want the bucket's settings and its key in the Secret only",
			cm, secret["VIGIL_EXPORT_S3_SECRET_ACCESS_KEY"])
	}
}

// TestHelmRefuses: a release that cannot work fails at render time,
// saying what is missing.
func TestHelmRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		sets []string
		want string
	}{
		{"no brokers", []string{"secrets.existingSecret=s"}, "engines.kafkaBrokers is required"},
		{"no admin password", []string{"engines.kafkaBrokers=k:9092", "engines.postgresURL=postgres://p", "engines.clickhouseURL=clickhouse://c",
			"secrets.masterKey=" + masterKey}, "secrets.adminPassword is required"},
		{"no postgres", []string{"engines.kafkaBrokers=k:9092", "secrets.adminPassword=x", "secrets.masterKey=" + masterKey}, "engines.postgresURL is required"},
		{"no master key", []string{"engines.kafkaBrokers=k:9092", "engines.postgresURL=postgres://p", "engines.clickhouseURL=clickhouse://c",
			"secrets.adminPassword=x"}, "secrets.masterKey is required (vigil keygen prints one"},
		{"replicas without shared exports", []string{"secrets.existingSecret=s", "engines.kafkaBrokers=k:9092", "api.exports.create=false"},
			"api.exports: 2 API replicas need one store of exports"},
		{"service monitor without a way in", []string{"engines.kafkaBrokers=k:9092", "engines.postgresURL=postgres://p",
			"engines.clickhouseURL=clickhouse://c", "secrets.adminPassword=x", "secrets.masterKey=" + masterKey,
			"metrics.serviceMonitor.enabled=true"}, "metrics.serviceMonitor needs a way in"},
		{"not a Vigil variable", []string{"secrets.existingSecret=s", "engines.kafkaBrokers=k:9092", "env.LOG_LEVEL=debug"}, "every variable of Vigil starts with VIGIL_"},
	} {
		args := []string{"template", "rel", chart, "--kube-version", kubeVersion}
		for _, s := range c.sets {
			args = append(args, "--set", s)
		}
		if _, err := helm(t, args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got error %v, want one saying %q", c.name, err, c.want)
		}
	}
}

func keys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
