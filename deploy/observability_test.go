package deploy_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"

	"github.com/vigilhq/vigil/app"
	"github.com/vigilhq/vigil/platform/config"
)

// ruleFile is a Prometheus rule file, as much of it as Prometheus checks.
type ruleFile struct {
	Groups []struct {
		Name  string `yaml:"name"`
		Rules []struct {
			Alert       string            `yaml:"alert"`
			Record      string            `yaml:"record"`
			Expr        string            `yaml:"expr"`
			For         string            `yaml:"for"`
			Labels      map[string]string `yaml:"labels"`
			Annotations map[string]string `yaml:"annotations"`
		} `yaml:"rules"`
	} `yaml:"groups"`
}

// dashboard is the part of a Grafana dashboard's JSON that holds queries.
type dashboard struct {
	Title  string  `json:"title"`
	UID    string  `json:"uid"`
	Panels []panel `json:"panels"`
}

type panel struct {
	Title   string  `json:"title"`
	Panels  []panel `json:"panels"` // a row's
	Targets []struct {
		RefID string `json:"refId"`
		Expr  string `json:"expr"`
	} `json:"targets"`
}

// TestAlertRulesAndDashboard reads deploy/prometheus/vigil-rules.yaml and
// deploy/grafana/vigil-dashboard.json as Prometheus and Grafana would,
// and checks that every metric and label their queries name is in a real
// /metrics scrape of a running Vigil.
func TestAlertRulesAndDashboard(t *testing.T) {
	families := scrape(t)
	exprs := map[string]string{} // where: expression
	b, err := os.ReadFile("prometheus/vigil-rules.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var rules ruleFile
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&rules); err != nil {
		t.Fatalf("vigil-rules.yaml: %v", err)
	}
	alertName := regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
	names := map[string]bool{}
	for _, g := range rules.Groups {
		if g.Name == "" || len(g.Rules) == 0 {
			t.Errorf("got group %q with %d rules, want a name and rules", g.Name, len(g.Rules))
		}
		for _, r := range g.Rules {
			if !alertName.MatchString(r.Alert) || r.Record != "" || names[r.Alert] {
				t.Errorf("got alert %q (record %q), want a unique CamelCase alert name", r.Alert, r.Record)
			}
			names[r.Alert] = true
			if r.For != "" {
				if _, err := model.ParseDuration(r.For); err != nil {
					t.Errorf("%s: for %q: %v", r.Alert, r.For, err)
				}
			}
			if !slices.Contains([]string{"info", "warning", "critical"}, r.Labels["severity"]) || r.Annotations["summary"] == "" {
				t.Errorf("%s: got labels %v and annotations %v, want a severity and a summary", r.Alert, r.Labels, r.Annotations)
			}
			exprs["rule "+r.Alert] = r.Expr
		}
	}
	b, err = os.ReadFile("grafana/vigil-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("vigil-dashboard.json: %v", err)
	}
	if d.Title == "" || d.UID == "" || len(d.Panels) == 0 {
		t.Fatalf("got dashboard %q uid %q with %d panels, want a title, a uid and panels", d.Title, d.UID, len(d.Panels))
	}
	var walk func(ps []panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			walk(p.Panels)
			for _, q := range p.Targets {
				exprs["panel "+p.Title+" "+q.RefID] = q.Expr
			}
		}
	}
	walk(d.Panels)
	if len(exprs) < 10 {
		t.Fatalf("got %d queries, want the rules' and the dashboard's", len(exprs))
	}
	for where, expr := range exprs {
		checkExpr(t, where, expr, families)
	}
}

// selector finds each metric a query names and the label names of its
// selector, if any.
var selector = regexp.MustCompile(`\b(vigil_[a-z0-9_]+)(\{([^}]*)\})?`)

// checkExpr checks that expr is well formed as far as brackets and range
// durations go, and that each metric and selector label it names is in
// families.
func checkExpr(t *testing.T, where, expr string, families map[string]*dto.MetricFamily) {
	t.Helper()
	if expr == "" {
		t.Errorf("%s: got no expression", where)
		return
	}
	var open []rune
	pairs := map[rune]rune{')': '(', ']': '[', '}': '{'}
	for _, r := range expr {
		switch r {
		case '(', '[', '{':
			open = append(open, r)
		case ')', ']', '}':
			if len(open) == 0 || open[len(open)-1] != pairs[r] {
				t.Errorf("%s: unbalanced %q in %s", where, r, expr)
				return
			}
			open = open[:len(open)-1]
		}
	}
	if len(open) != 0 {
		t.Errorf("%s: unclosed %q in %s", where, string(open), expr)
	}
	for _, m := range regexp.MustCompile(`\[([^\]]+)\]`).FindAllStringSubmatch(expr, -1) {
		if _, err := model.ParseDuration(m[1]); err != nil {
			t.Errorf("%s: range [%s]: %v", where, m[1], err)
		}
	}
	found := selector.FindAllStringSubmatch(expr, -1)
	if len(found) == 0 {
		t.Errorf("%s: got no vigil_ metric in %s", where, expr)
	}
	for _, m := range found {
		name, labels := m[1], m[3]
		f := families[name]
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if base, ok := strings.CutSuffix(name, suffix); f == nil && ok && families[base].GetType() == dto.MetricType_HISTOGRAM {
				f = families[base]
			}
		}
		if f == nil {
			t.Errorf("%s: got metric %s, which /metrics does not serve", where, name)
			continue
		}
		have := map[string]bool{"le": true}
		for _, series := range f.GetMetric() {
			for _, l := range series.GetLabel() {
				have[l.GetName()] = true
			}
		}
		for _, matcher := range strings.Split(labels, ",") {
			label, _, _ := strings.Cut(matcher, "=")
			label = strings.TrimRight(strings.TrimSpace(label), "!")
			if label != "" && !have[label] {
				t.Errorf("%s: got label %s of %s, which its series do not carry", where, label, name)
			}
		}
	}
}

// scrape starts Vigil on the embedded default, logs a prediction (so that
// the event log has an end and the consumer lag a series) and returns its
// /metrics, parsed.
func scrape(t *testing.T) map[string]*dto.MetricFamily {
	t.Helper()
	cfg, err := config.Parse(nil, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg.Addr, cfg.DataDir, cfg.MasterKeyFile = "127.0.0.1:0", filepath.Join(dir, "data"), filepath.Join(dir, "master.key")
	cfg.AdminPassword = "correct horse battery staple"
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, err := app.New(ctx, cfg, slog.New(slog.NewJSONHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(runCtx) }()
	t.Cleanup(func() {
		stop()
		<-done
		a.Close()
	})
	base := "http://" + a.Addr()
	post := func(path, token string, body any) map[string]any {
		j, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", base+"/api/v1"+path, strings.NewReader(string(j)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(res.Body).Decode(&out)
		if res.StatusCode != http.StatusOK && res.StatusCode != http.StatusCreated {
			t.Fatalf("POST %s: got %d %v", path, res.StatusCode, out)
		}
		return out
	}
	token, _ := post("/auth/login", "", map[string]any{"username": "admin", "password": cfg.AdminPassword})["access_token"].(string)
	modelID, _ := post("/models", token, map[string]any{"name": "churn", "version": "1", "model_type": "classification"})["id"].(string)
	post("/predictions/log", token, map[string]any{"model_id": modelID, "input_data": map[string]any{"x": 1}, "output_data": map[string]any{"y": 1}})
	res, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: got %d, want 200", res.StatusCode)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(res.Body)
	if err != nil {
		t.Fatalf("/metrics: %v", err)
	}
	return families
}
