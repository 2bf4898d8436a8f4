package app

import (
	"context"
	"flag"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"github.com/vigilhq/vigil/drift"
	"github.com/vigilhq/vigil/platform/testenv"
)

var updateScreenshots = flag.Bool("update", false, "write the dashboard's screenshots to web/testdata/screenshots")

// browser is a headless Chromium tab on a Vigil under test.
type browser struct {
	t     *testing.T
	ctx   context.Context
	root  string
	shots string
	// updated is where -update writes the screenshots
	// (web/testdata/screenshots unless a test says otherwise).
	updated string
	mu      sync.Mutex
	// problems are the page's uncaught exceptions, console errors and
	// CSP violations, none of which the dashboard may cause.
	problems []string
}

func openBrowser(t *testing.T, root string) *browser {
	t.Helper()
	path := testenv.URL(t, testenv.Chromium)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 900), chromedp.Flag("disable-gpu", true), chromedp.UserDataDir(t.TempDir()))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	tab, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	b := &browser{t: t, root: root, shots: t.TempDir(), updated: filepath.Join("..", "web", "testdata", "screenshots")}
	// The first call starts the browser, on a context without a deadline
	// (a deadline there would stop the browser); the steps have one.
	err := chromedp.Listen(tab, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			b.problems = append(b.problems, "exception: "+(&chromedp.ExceptionError{ExceptionDetails: e.ExceptionDetails}).Error())
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError {
				b.problems = append(b.problems, fmt.Sprintf("console error: %v", e.Args))
			}
		case *log.EventEntryAdded:
			// The failed login answers 401 on purpose.
			if e.Entry.Level == log.EntryLevelError && !strings.Contains(e.Entry.Text, "401") {
				b.problems = append(b.problems, fmt.Sprintf("%s: %s %s", e.Entry.Source, e.Entry.Text, e.Entry.URL))
			}
		}
	})
	if err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	ctx, cancelTime := context.WithTimeout(tab, 4*time.Minute)
	t.Cleanup(cancelTime)
	b.ctx = ctx
	if _, err := chromedp.Call(ctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("enable the log domain: %v", err)
	}
	return b
}

func (b *browser) run(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		b.t.Fatalf("browser: %v", err)
	}
}

// visit goes to the hash route and waits for its page to have loaded.
func (b *browser) visit(hash, pageName string) {
	b.t.Helper()
	b.run(chromedp.Evaluate[chromedp.Void]("location.hash = "+strconv.Quote(hash)), b.loaded(pageName))
}

func (b *browser) loaded(pageName string) chromedp.Action[chromedp.Void] {
	return chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#view[data-page=%q][data-ready]`, pageName)))
}

func (b *browser) click(selector string) chromedp.Action[chromedp.Void] {
	return chromedp.Click(chromedp.CSS(selector))
}

// texts is the text of every element the CSS selector matches, now.
func (b *browser) texts(selector string) []string {
	b.t.Helper()
	out, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](fmt.Sprintf(
		`Array.from(document.querySelectorAll(%s), e => e.textContent.trim())`, strconv.Quote(selector))))
	if err != nil {
		b.t.Fatalf("browser: %v", err)
	}
	return out
}

// text is the text of the one element the selector matches.
func (b *browser) text(selector string) string {
	b.t.Helper()
	got := b.texts(selector)
	if len(got) != 1 {
		b.t.Fatalf("%s: got %d elements %q, want one", selector, len(got), got)
	}
	return got[0]
}

// until waits until the JavaScript condition holds.
func (b *browser) until(what, condition string) {
	b.t.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[chromedp.Void](condition, chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		b.t.Fatalf("%s: %s did not hold within 30 s: %v", what, condition, err)
	}
}

// shot writes the page's screenshot to the test's folder and, with
// -update, to <b.updated>/<name>.png.
func (b *browser) shot(name string) {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(filepath.Join(b.shots, name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	if *updateScreenshots {
		if err := os.MkdirAll(b.updated, 0o755); err != nil {
			b.t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(b.updated, name+".png"), png, 0o644); err != nil {
			b.t.Fatal(err)
		}
	}
}

func (b *browser) checkProblems() {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		b.t.Errorf("the page reported %s", p)
	}
}

// shown is how the dashboard writes a number of the API (dom.js num):
// grouped thousands, at most two decimals; null is "no data".
func shown(v any) string {
	f, ok := v.(float64)
	if !ok {
		return "no data"
	}
	s := strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64)
	whole, frac, _ := strings.Cut(s, ".")
	for i := len(whole) - 3; i > 0 && whole[i-1] != '-'; i -= 3 {
		whole = whole[:i] + "," + whole[i:]
	}
	if frac != "" {
		return whole + "." + frac
	}
	return whole
}

// first is the first item of the list under key.
func first(t *testing.T, r response, key string) map[string]any {
	t.Helper()
	items, _ := r.at(key).([]any)
	if len(items) == 0 {
		t.Fatalf("got %s, want a %s list with an item", r.raw, key)
	}
	return items[0].(map[string]any)
}

// seedDriftReport stores a data-drift report of the model as the drift
// schedule does (through the store: the schedule needs a day of traffic).
func (s *server) seedDriftReport(t *testing.T, token, model string, score float64) {
	t.Helper()
	orgID := s.do("GET", "/auth/me", token, nil).want(t, 200).str("user.organization_id")
	now := time.Now().UTC().Truncate(time.Hour)
	start, end := now.Add(-48*time.Hour), now.Add(-24*time.Hour)
	p := 0.001
	r := drift.Report{ID: uuid.NewString(), OrgID: orgID, ModelID: model, DriftType: drift.TypeData,
		WindowStart: now.Add(-time.Hour), WindowEnd: now,
		Reference:     drift.Reference{Type: drift.ReferenceWindow, Start: &start, End: &end},
		DriftDetected: true, OverallDriftScore: score, Severity: drift.High,
		Features: map[string]drift.ReportFeature{"income": {FeatureResult: drift.FeatureResult{DriftDetected: true, DriftScore: score,
			PValue: &p, Method: drift.KS, Severity: drift.High, Threshold: 0.05, Statistic: score, Type: drift.Numeric,
			TypeSource: "inferred", MethodSource: "default", SampleSize: drift.Sides{Reference: 100, Current: 100}}}},
		Skipped: []string{}, Problems: map[string]string{}, CreatedAt: time.Now().UTC()}
	if err := s.app.store.CreateDriftReport(t.Context(), r); err != nil {
		t.Fatalf("CreateDriftReport: %v", err)
	}
}

// TestDashboardUI drives the web dashboard in headless Chromium as a
// person would: logs in, visits every page and checks that each figure on
// screen is the API's, acknowledges an alert in the inbox, watches the
// overview's count move on the live channel, and asks for an export.
func TestDashboardUI(t *testing.T) {
	cfg := testConfig(t)
	cfg.DashboardInterval = 200 * time.Millisecond
	s := start(t, cfg)
	root := strings.TrimSuffix(s.base, "/api/v1")
	admin := s.admin()

	// The data, through the API (the drift report and the alert as the
	// processors write them).
	model := s.model(admin, "credit", "1")
	other := s.model(admin, "churn", "2")
	batch := func(n int, latency float64) {
		items := make([]map[string]any, n)
		for i := range items {
			items[i] = map[string]any{"input_data": map[string]any{"income": 1000 + i}, "output_data": map[string]any{"approved": i % 2},
				"latency_ms": latency + float64(i)}
		}
		s.do("POST", "/predictions/log/batch", admin, map[string]any{"model_id": model, "predictions": items}).want(t, 201)
	}
	batch(5, 20)
	s.waitStored(t, admin, model, 5)
	s.seedDriftReport(t, admin, model, 0.42)
	rule := s.do("POST", "/alerts/rules", admin, slowRule(model)).want(t, 201).str("id")
	alert := s.fire(t, admin, rule, model)
	entry := s.do("POST", "/risk-register", admin, map[string]any{"title": "Income drift <script>alert(1)</script>", "category": "drift",
		"likelihood": 4, "impact": 3, "model_ids": []string{model}, "description": "Applicants' incomes moved."}).want(t, 201).str("id")
	s.do("PATCH", "/risk-register/"+entry, admin, map[string]any{"status": "assessed", "status_reason": "reviewed"}).want(t, 200)
	template := first(t, s.do("GET", "/export/templates", admin, nil).want(t, 200), "templates")["id"].(string)
	today := time.Now().UTC().Format(time.DateOnly)
	export := s.do("POST", "/export/exports", admin, map[string]any{"template_id": template, "model_ids": []string{model},
		"format": "html", "start": today, "end": today}).want(t, 202).str("export_id")
	waitFor(t, "the export completed", func() bool {
		return s.do("GET", "/export/exports/"+export, admin, nil).want(t, 200).str("status") == "completed"
	})

	b := openBrowser(t, root)

	// The page and its assets: the CSP, the caches.
	res, err := http.Get(root + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self';") || strings.Contains(csp, "unsafe") ||
		res.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("index: got CSP %q, Cache-Control %q, want scripts from 'self' only and no-cache", csp, res.Header.Get("Cache-Control"))
	}

	// Login: a wrong password says so; the right one opens the overview.
	b.run(chromedp.Navigate(root+"/"), b.loaded("login"))
	b.run(chromedp.SendKeys(chromedp.CSS("#username"), "admin"), chromedp.SendKeys(chromedp.CSS("#password"), "wrong password"),
		b.click("#login-submit"))
	b.until("the login error", `document.getElementById('login-error').textContent.length > 0`)
	b.run(chromedp.SetValue(chromedp.CSS("#password"), adminPassword), b.click("#login-submit"),
		b.loaded("overview"))

	// Overview: every figure is the API's, then live.
	stats := s.do("GET", "/dashboard/statistics", admin, nil).want(t, 200)
	for _, name := range []string{"models.total", "models.active", "models.inactive", "predictions.total", "predictions.today",
		"predictions.avg_per_day", "alerts.active", "alerts.acknowledged", "alerts.resolved", "drift.models_with_drift", "drift.high_severity"} {
		if got, want := b.text(fmt.Sprintf(`[data-figure=%q]`, name)), shown(stats.at(name)); got != want {
			t.Errorf("overview %s: got %q, want %q (the API's)", name, got, want)
		}
	}
	b.until("the live state", `document.getElementById('live-state').textContent === 'live'`)
	b.shot("overview")
	batch(3, 30)
	b.until("the overview counting the new predictions", `document.querySelector('[data-figure="predictions.total"]').textContent === '8'`)
	s.waitStored(t, admin, model, 8)

	// Models: per model the day's volume, latency and drift.
	b.visit("#/models", "models")
	for _, m := range []string{model, other} {
		st := s.do("GET", "/predictions/models/"+m+"/stats", admin, nil).want(t, 200)
		trend := s.do("GET", "/drift/trend?days=30&model_id="+m, admin, nil).want(t, 200)
		var latest any
		if data, _ := trend.at("data").([]any); len(data) > 0 {
			latest = data[len(data)-1].(map[string]any)["overall_drift_score"]
		}
		row := fmt.Sprintf(`[data-table=models] tr[data-id=%q] `, m)
		for col, want := range map[string]string{"total_predictions": shown(st.at("total_predictions")),
			"avg_latency_ms": shown(st.at("avg_latency_ms")), "p95_latency_ms": shown(st.at("p95_latency_ms")), "drift_score": shown(latest)} {
			if got := b.text(row + `[data-col=` + col + `]`); got != want {
				t.Errorf("models page, %s of %s: got %q, want %q", col, m, got, want)
			}
		}
	}
	if got := b.texts(fmt.Sprintf(`tr[data-id=%q] svg[data-chart]`, model)); len(got) != 3 {
		t.Errorf("models page: got %d charts for the model with data, want volume, latency and drift", len(got))
	}
	if got := b.texts(fmt.Sprintf(`tr[data-id=%q] [data-col=drift_score]`, other)); len(got) != 1 || got[0] != "no data" {
		t.Errorf("models page: the model without drift reports shows %q, want no data", got)
	}
	b.shot("models")

	// A model's page.
	b.run(b.click(fmt.Sprintf(`a[href="#/models/%s"]`, model)), b.loaded("model"))
	st := s.do("GET", "/predictions/models/"+model+"/stats", admin, nil).want(t, 200)
	if got := b.text(`[data-figure="stats.total_predictions"]`); got != shown(st.at("total_predictions")) {
		t.Errorf("model page: got %s predictions, want %s", got, shown(st.at("total_predictions")))
	}
	recent := s.do("GET", "/predictions/models/"+model+"/recent?limit=20", admin, nil).want(t, 200)
	var ids []string
	for _, p := range recent.list {
		ids = append(ids, p.(map[string]any)["prediction_id"].(string))
	}
	if got := b.texts(`[data-table=predictions] [data-col=prediction_id]`); strings.Join(got, ",") != strings.Join(ids, ",") {
		t.Errorf("model page: got predictions %v, want %v", got, ids)
	}
	if got := b.texts(`[data-table=drift-reports] [data-col=overall_drift_score]`); len(got) != 1 || got[0] != "0.42" {
		t.Errorf("model page: got drift scores %q, want the report's 0.42", got)
	}
	for _, section := range []string{"bias", "explanations"} {
		if got := b.texts(fmt.Sprintf(`[data-section=%s] .empty`, section)); len(got) != 1 || got[0] != "no data" {
			t.Errorf("model page, %s: got %q, want no data", section, got)
		}
	}
	score := s.do("GET", "/trust-score/models/"+model, admin, nil).want(t, 200)
	if got := b.text(`[data-figure="trust.score"]`); got != shown(score.at("trust_score")) {
		t.Errorf("model page: got trust score %q, want %q", got, shown(score.at("trust_score")))
	}
	history := s.do("GET", "/trust-score/models/"+model+"/history?days=90", admin, nil).want(t, 200)
	points, _ := history.at("data_points").([]any)
	if got := b.texts(`[data-table=trust-history] tbody tr`); len(got) != len(points) || len(points) == 0 {
		t.Errorf("model page: got %d trust snapshots, want the API's %d (at least one: the drift report)", len(got), len(points))
	}
	b.shot("model")

	// Alerts: acknowledge in the inbox.
	b.visit("#/alerts", "alerts")
	row := fmt.Sprintf(`[data-table=alerts] tr[data-id=%q] `, alert)
	if got := b.text(row + `[data-col=status]`); got != "open" {
		t.Fatalf("alerts: got status %q, want open", got)
	}
	b.run(b.click(row + `button[data-action=acknowledge]`))
	b.until("the alert acknowledged", fmt.Sprintf(`document.querySelector(%s).textContent === 'acknowledged'`, strconv.Quote(row+`[data-col=status]`)))
	if got := s.do("GET", "/alerts/instances/"+alert, admin, nil).want(t, 200).str("status"); got != "acknowledged" {
		t.Errorf("after the click the API says %q, want acknowledged", got)
	}
	b.shot("alerts")
	// Snooze, then resolve: the row follows the API's answer.
	for _, move := range []struct{ action, status string }{{"snooze", "snoozed"}, {"resolve", "resolved"}} {
		b.run(b.click(row + `button[data-action=` + move.action + `]`))
		b.until("the alert "+move.status, fmt.Sprintf(`document.querySelector(%s).textContent === %q`, strconv.Quote(row+`[data-col=status]`), move.status))
		if got := s.do("GET", "/alerts/instances/"+alert, admin, nil).want(t, 200).str("status"); got != move.status {
			t.Errorf("after %s the API says %q, want %s", move.action, got, move.status)
		}
	}
	if got := b.texts(row + `button:not([disabled])`); len(got) != 0 {
		t.Errorf("a resolved alert offers %q, want no move", got)
	}

	// Risk register: the heat map, the list, the entry and its history.
	b.visit("#/risks", "risks")
	portfolio := s.do("GET", "/risk-register/portfolio", admin, nil).want(t, 200)
	for _, c := range portfolio.at("heatmap").([]any) {
		cell := c.(map[string]any)
		sel := fmt.Sprintf(`[data-cell="%v/%v"]`, cell["likelihood"], cell["impact"])
		if got := b.text(sel); got != shown(cell["count"]) {
			t.Errorf("heat map %s: got %q, want %s", sel, got, shown(cell["count"]))
		}
	}
	if got := b.text(`[data-figure="risks.open_count"]`); got != shown(portfolio.at("open_count")) {
		t.Errorf("open entries: got %q, want %s", got, shown(portfolio.at("open_count")))
	}
	if got := b.text(fmt.Sprintf(`tr[data-id=%q] [data-col=title]`, entry)); got != "Income drift <script>alert(1)</script>" {
		t.Errorf("risk title: got %q, want the title as text", got)
	}
	b.shot("risks")
	b.run(b.click(fmt.Sprintf(`a[href="#/risks/%s"]`, entry)), b.loaded("risk"))
	got := s.do("GET", "/risk-register/"+entry, admin, nil).want(t, 200)
	for field, want := range map[string]string{"status": got.str("status"), "category": got.str("category"), "description": got.str("description"),
		"score": fmt.Sprintf("%v × %v = %v", got.at("likelihood"), got.at("impact"), got.at("risk_score"))} {
		if shown := b.text(fmt.Sprintf(`[data-field=%q]`, field)); shown != want {
			t.Errorf("risk entry %s: got %q, want %q", field, shown, want)
		}
	}
	events := s.do("GET", "/risk-register/"+entry+"/history", admin, nil).want(t, 200).at("events").([]any)
	var actions []string
	for _, e := range events {
		actions = append(actions, e.(map[string]any)["event_action"].(string))
	}
	if got := b.texts(`[data-table=risk-history] [data-col=event_action]`); strings.Join(got, ",") != strings.Join(actions, ",") || len(got) < 2 {
		t.Errorf("risk history: got %v, want the API's %v", got, actions)
	}
	b.shot("risk")

	// Exports: the completed one with its download, then one more from a
	// template through the form.
	b.visit("#/exports", "exports")
	if got := b.text(fmt.Sprintf(`tr[data-id=%q] [data-col=status]`, export)); got != "completed" {
		t.Errorf("export status: got %q, want completed", got)
	}
	if got := b.texts(fmt.Sprintf(`tr[data-id=%q] button[data-action=download]`, export)); len(got) != 1 {
		t.Errorf("export: got %d download buttons, want one", len(got))
	}
	b.run(chromedp.SetValue(chromedp.CSS("#export-format"), "csv"), b.click("#export-create"))
	b.until("the new export listed", `document.querySelectorAll('[data-table=exports] tbody tr').length === 2`)
	list := s.do("GET", "/export/exports", admin, nil).want(t, 200)
	if list.at("total") != 2.0 || first(t, list, "exports")["format"] != "csv" {
		t.Errorf("after the form: got %s, want a second export, csv", list.raw)
	}
	b.until("the new export completed", `Array.from(document.querySelectorAll('[data-table=exports] [data-col=status]')).every(e => e.textContent === 'completed')`)
	b.shot("exports")

	// Logout forgets the token.
	b.run(b.click("#logout"), b.loaded("login"))
	kept, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`sessionStorage.getItem('vigil.token') || ''`))
	if err != nil || kept != "" {
		t.Errorf("after logout the token is still kept")
	}
	const ended = "Your session has ended: log in again."
	if got := b.text("#login-notice"); got != "You have logged out." {
		t.Errorf("after logout the login page says %q", got)
	}
	// A token the API refuses (401) sends back to the login page.
	b.run(chromedp.Evaluate[chromedp.Void](`sessionStorage.setItem('vigil.token', 'not-a-token')`))
	b.visit("#/models", "login")
	if got := b.text("#login-notice"); got != ended {
		t.Errorf("after a 401 the login page says %q, want %q", got, ended)
	}
	b.shot("login")

	// The live channel closes with 4003 when its token is revoked (an API
	// key here; 4001, a login token expiring, takes the same branch): the
	// overview goes to the login page.
	key, keyID := s.key(admin, "read")
	b.run(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`sessionStorage.setItem('vigil.token', %q)`, key)))
	b.visit("#/overview", "overview")
	b.until("the live state", `document.getElementById('live-state').textContent === 'live'`)
	s.do("DELETE", "/api-keys/"+keyID, admin, nil).want(t, 204)
	b.run(b.loaded("login"))
	if code, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.body.dataset.liveClosed || ''`)); err != nil || code != "4003" {
		t.Errorf("got the channel closed with %q (%v), want 4003", code, err)
	}
	if got := b.text("#login-notice"); got != ended {
		t.Errorf("after 4003 the login page says %q, want %q", got, ended)
	}
	b.run(chromedp.SetValue(chromedp.CSS("#username"), "admin"), chromedp.SetValue(chromedp.CSS("#password"), adminPassword),
		b.click("#login-submit"), b.loaded("overview"))
	b.until("the live state", `document.getElementById('live-state').textContent === 'live'`)
	b.checkProblems()

	// The server going away: the overview says it is reconnecting.
	s.shutdown()
	b.until("the reconnecting state", `document.getElementById('live-state').textContent === 'reconnecting'`)
}
