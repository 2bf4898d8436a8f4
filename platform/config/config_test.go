package config

import (
	"flag"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestParseBias(t *testing.T) {
	f := func(env map[string]string, args []string, want Bias, wantErr string) {
		t.Helper()
		c, err := Parse(args, func(name string) string { return env[name] })
		switch {
		case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)):
			t.Errorf("Parse(%v, %v): got error %v, want one containing %q", env, args, err, wantErr)
		case wantErr == "" && err != nil:
			t.Errorf("Parse(%v, %v): got error %v, want none", env, args, err)
		case wantErr == "" && c.Bias != want:
			t.Errorf("Parse(%v, %v): got %+v, want %+v", env, args, c.Bias, want)
		}
	}
	f(nil, nil, Bias{}, "") // zero: the runner's defaults
	f(map[string]string{"VIGIL_BIAS_WORKERS": "4", "VIGIL_BIAS_QUEUE": "10", "VIGIL_BIAS_MAX_ROWS": "5000"}, nil,
		Bias{Workers: 4, Queue: 10, MaxRows: 5000}, "")
	f(map[string]string{"VIGIL_BIAS_WORKERS": "4"}, []string{"--bias-workers=8", "--bias-max-rows=100"}, Bias{Workers: 8, MaxRows: 100}, "")
	f(map[string]string{"VIGIL_BIAS_QUEUE": "many"}, nil, Bias{}, "VIGIL_BIAS_QUEUE")
	f(nil, []string{"--bias-max-rows=-1"}, Bias{}, "must not be negative")
}

// TestEveryFlagHasItsVariable sets each flag's variable, as its usage
// names it, and expects the flag to take it as its default.
func TestEveryFlagHasItsVariable(t *testing.T) {
	var help strings.Builder
	Usage(&help, func(string) string { return "" })
	fs := register(&Config{}, func(string) string { return "" }).fs
	n := 0
	fs.VisitAll(func(fl *flag.Flag) {
		n++
		name := envName(fl.Name)
		block := "  --" + fl.Name + " "
		i := strings.Index(help.String(), block)
		if i < 0 || !strings.Contains(strings.SplitN(help.String()[i:], "\n  --", 2)[0], "\n        "+name+" (default ") {
			t.Errorf("--%s: got no %s in its help, want it named", fl.Name, name)
		}
		want := "seven"
		switch fl.Value.(flag.Getter).Get().(type) {
		case time.Duration:
			want = "7s"
		case int, int64:
			want = "7"
		}
		got := register(&Config{}, func(v string) string {
			if v == name {
				return want
			}
			return ""
		}).fs.Lookup(fl.Name).DefValue
		if got != want {
			t.Errorf("--%s with %s=%s: got default %q, want %q", fl.Name, name, want, got, want)
		}
	})
	if n < 25 {
		t.Fatalf("got %d flags, want every flag of serve", n)
	}
}

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s", 500 * time.Millisecond: "500ms", time.Second: "1s", 30 * time.Second: "30s", time.Minute: "1m",
		90 * time.Second: "1m30s", time.Hour: "1h", 90 * time.Minute: "1h30m", time.Hour + time.Second: "1h0m1s",
	} {
		got := Duration(d)
		if got != want {
			t.Errorf("Duration(%d): got %q, want %q", d, got, want)
		}
		if back, err := time.ParseDuration(got); err != nil || back != d {
			t.Errorf("ParseDuration(%q): got %v %v, want %v", got, back, err, d)
		}
	}
}

func TestMetricsToken(t *testing.T) {
	f := func(token, wantErr string) {
		t.Helper()
		c, err := Parse(nil, func(name string) string { return map[string]string{"VIGIL_METRICS_TOKEN": token}[name] })
		switch {
		case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)):
			t.Errorf("token %q: got error %v, want one containing %q", token, err, wantErr)
		case wantErr == "" && (err != nil || c.MetricsToken != token):
			t.Errorf("token %q: got %q %v, want it taken", token, c.MetricsToken, err)
		}
	}
	f("", "")
	f("sixteen-chars-ok", "")
	f("too-short", "at least 16")
}

// TestLogValueDurations logs the configuration as serve does at start:
// durations read as durations, not as nanoseconds.
func TestLogValueDurations(t *testing.T) {
	c, err := Parse(nil, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	slog.New(slog.NewJSONHandler(&b, nil)).Info("starting vigil", "config", c)
	for _, want := range []string{`"auth_cache_ttl":"1s"`, `"request_timeout":"30s"`, `"drift_tick":"1m"`, `"shutdown_grace":"30s"`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("got %s, want %s", b.String(), want)
		}
	}
}

// TestParseExplainWorkers: the variable and the flag set the explanation
// runner's workers; a negative count (no runner in this process) is valid.
func TestParseExplainWorkers(t *testing.T) {
	f := func(env map[string]string, args []string, want int) {
		t.Helper()
		c, err := Parse(args, func(name string) string { return env[name] })
		if err != nil || c.ExplainWorkers != want {
			t.Errorf("Parse(%v, %v): got %d, %v, want %d", env, args, c.ExplainWorkers, err, want)
		}
	}
	f(nil, nil, 0)
	f(map[string]string{"VIGIL_EXPLAIN_WORKERS": "3"}, nil, 3)
	f(map[string]string{"VIGIL_EXPLAIN_WORKERS": "3"}, []string{"--explain-workers=-1"}, -1)
}

// TestVariablesNameEveryRead parses a configuration with a getenv that
// records what it is asked: every variable read must be in Variables (so
// that deployments can be checked against it) and every secret in the
// help's closing line.
func TestVariablesNameEveryRead(t *testing.T) {
	known := map[string]bool{}
	for _, v := range Variables() {
		known[v] = true
	}
	asked := map[string]bool{}
	if _, err := Parse(nil, func(v string) string { asked[v] = true; return "" }); err != nil {
		t.Fatal(err)
	}
	for v := range asked {
		if !known[v] {
			t.Errorf("Parse read %s: got it missing from Variables, want it listed", v)
		}
	}
	var help strings.Builder
	Usage(&help, func(string) string { return "" })
	for _, v := range secrets {
		if !asked[v] {
			t.Errorf("secret %s: got no read of it in Parse, want it read (or dropped from the list)", v)
		}
		if !strings.Contains(help.String(), v) {
			t.Errorf("secret %s: got no mention in vigil serve -h, want it named", v)
		}
	}
}

// TestExportRetention: VIGIL_EXPORT_RETENTION takes spec 1's plans or a
// duration; anything else is refused.
func TestExportRetention(t *testing.T) {
	day := 24 * time.Hour
	for _, c := range []struct {
		in   string
		want time.Duration
		bad  bool
	}{
		{"free", 30 * day, false}, {"starter", 30 * day, false}, {"Professional", 90 * day, false}, {"enterprise", 0, false},
		{"2160h", 90 * day, false}, {"0s", 0, false}, {"-1h", 0, true}, {"gold", 0, true}, {"", 0, true},
	} {
		got, err := ExportRetention(c.in)
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("ExportRetention(%q): got %v, %v, want %v (refused: %v)", c.in, got, err, c.want, c.bad)
		}
	}
	cfg, err := Parse(nil, func(string) string { return "" })
	if err != nil || cfg.ExportRetention != 90*day {
		t.Errorf("got the default retention %v (%v), want the professional plan's 90 days", cfg.ExportRetention, err)
	}
	if _, err := Parse(nil, func(v string) string {
		if v == "VIGIL_EXPORT_RETENTION" {
			return "gold"
		}
		return ""
	}); err == nil {
		t.Error("got no error for VIGIL_EXPORT_RETENTION=gold, want one")
	}
}

// TestParseCounts: each count's default, the variable setting it, and a
// value out of its range refused.
func TestParseCounts(t *testing.T) {
	f := func(name, value string, field func(Config) int, want int, wantErr bool) {
		t.Helper()
		c, err := Parse(nil, func(n string) string {
			if n == name {
				return value
			}
			return ""
		})
		if (err != nil) != wantErr || err == nil && field(c) != want {
			t.Errorf("%s=%q: got %d, %v, want %d (error %v)", name, value, field(c), err, want, wantErr)
		}
	}
	producers := func(c Config) int { return c.KafkaProducers }
	f("VIGIL_KAFKA_PRODUCERS", "", producers, 1, false)
	f("VIGIL_KAFKA_PRODUCERS", "4", producers, 4, false)
	f("VIGIL_KAFKA_PRODUCERS", "16", producers, 16, false)
	f("VIGIL_KAFKA_PRODUCERS", "0", producers, 0, true)
	f("VIGIL_KAFKA_PRODUCERS", "65", producers, 0, true)
	filters := func(c Config) int { return c.ClickHouseIDFilterMB }
	f("VIGIL_CLICKHOUSE_ID_FILTER_MB", "", filters, 256, false)
	f("VIGIL_CLICKHOUSE_ID_FILTER_MB", "0", filters, 0, false)
	f("VIGIL_CLICKHOUSE_ID_FILTER_MB", "1024", filters, 1024, false)
	f("VIGIL_CLICKHOUSE_ID_FILTER_MB", "-1", filters, 0, true)
}
