package channels_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/alerts"
	"github.com/vigilhq/vigil/alerts/channels"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/outbound"
	"github.com/vigilhq/vigil/platform/secretbox"
	"github.com/vigilhq/vigil/platform/testenv"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/sqlstore"
	"github.com/vigilhq/vigil/sqlstore/sqlitestore"
)

var secret = []byte("0123456789abcdef0123456789abcdef")

// fixture is a store with an organization, a model, a rule with the
// given channels and one open alert of it.
type fixture struct {
	t     *testing.T
	store *sqlstore.DB
	rule  alerts.Rule
	alert alerts.Instance
	now   atomic.Int64 // the dispatcher's clock, Unix nanoseconds
}

func newFixture(t *testing.T, chans ...alerts.Channel) *fixture {
	t.Helper()
	return openFixture(t, t.TempDir(), nil, chans...)
}

// openFixture is newFixture with the store in dir; the alert is fired
// with outbox.
func openFixture(t *testing.T, dir string, outbox func(alerts.Rule) alerts.Outbox, chans ...alerts.Channel) *fixture {
	t.Helper()
	ctx := t.Context()
	s, err := sqlitestore.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	now := time.Now().UTC()
	orgID, modelID := uuid.NewString(), uuid.NewString()
	if err := s.CreateOrganization(ctx, identity.Organization{ID: orgID, Name: "o-" + orgID[:8], CreatedAt: now}, nil,
		identity.User{ID: uuid.NewString(), OrgID: orgID, Username: "u-" + orgID[:8], Email: "u@example.com", Role: identity.RoleAdmin,
			Active: true, PasswordHash: "x", CreatedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateModel(ctx, registry.Model{ID: modelID, OrgID: orgID, Name: "credit", Version: "1", ModelType: "classification",
		Status: registry.StatusActive, CreatedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
	r := alerts.Rule{ID: uuid.NewString(), OrgID: orgID, Name: "slow", AlertType: "performance", Severity: "high", ModelID: modelID,
		Conditions: []alerts.Condition{{MetricName: "latency_p95_ms", Operator: "gt", Threshold: 500, WindowMinutes: 1}},
		Channels:   chans, Enabled: true, CreatedAt: now, UpdatedAt: now}
	if err := s.CreateAlertRule(ctx, r); err != nil {
		t.Fatal(err)
	}
	v := 912.5
	in := alerts.NewInstance(r, modelID, now.Truncate(time.Minute), []alerts.Observation{{Condition: r.Conditions[0], Value: &v, Holds: true}}, now)
	var ob alerts.Outbox
	if outbox != nil {
		ob = outbox(r)
	}
	if _, _, err := s.FireAlert(ctx, in, now, nil, ob); err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, store: s, rule: r, alert: in}
	f.now.Store(now.UnixNano())
	return f
}

func (f *fixture) clock() time.Time { return time.Unix(0, f.now.Load()).UTC() }

func (f *fixture) advance(d time.Duration) { f.now.Add(int64(d)) }

// dispatcher allows loopback (127.0.0.1) as the tests' receivers need.
func (f *fixture) dispatcher() *channels.Dispatcher {
	allow, err := outbound.ParseAllow([]string{"127.0.0.1/32"})
	if err != nil {
		f.t.Fatal(err)
	}
	return &channels.Dispatcher{Store: f.store, Guard: &outbound.Guard{Allow: allow}, Clock: f.clock, Backoff: time.Second,
		MaxAttempts: 3, Timeout: 2 * time.Second, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Secrets: func(context.Context, string) (alerts.WebhookKeys, error) {
			return alerts.WebhookKeys{Current: secret}, nil
		}}
}

func (f *fixture) deliveries() []alerts.Delivery {
	f.t.Helper()
	ds, err := f.store.AlertDeliveries(f.t.Context(), f.alert.OrgID, f.alert.ID)
	if err != nil {
		f.t.Fatal(err)
	}
	return ds
}

// TestWebhook: the payload arrives signed with a fresh timestamp; the
// receiver's two 500s are retried with backoff and recorded; a replay of
// the delivered request fails the receiver's check.
func TestWebhook(t *testing.T) {
	type got struct {
		body             []byte
		ts, sig, id, evt string
	}
	var mu sync.Mutex
	var reqs []got
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		calls++
		reqs = append(reqs, got{body, r.Header.Get(channels.HeaderTimestamp), r.Header.Get(channels.HeaderSignature),
			r.Header.Get(channels.HeaderDelivery), r.Header.Get(channels.HeaderEvent)})
		if calls <= 2 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	f := newFixture(t, alerts.Channel{Type: "webhook", Target: srv.URL + "/hook"})
	d := f.dispatcher()
	if err := d.Enqueue(t.Context(), f.rule, f.alert, alerts.EventOpened); err != nil {
		t.Fatal(err)
	}
	pass := func(want int) {
		t.Helper()
		n, err := d.RunOnce(t.Context())
		if err != nil || n != want {
			t.Fatalf("RunOnce at %v: got %d, %v, want %d attempted", f.clock(), n, err, want)
		}
	}
	pass(1) // 500
	pass(0) // not due before its backoff (1 s)
	f.advance(time.Second)
	pass(1) // 500 again
	f.advance(time.Second)
	pass(0) // the second backoff is 2 s
	f.advance(time.Second)
	pass(1) // 204
	f.advance(time.Hour)
	pass(0) // delivered: never again
	ds := f.deliveries()
	if len(ds) != 1 || ds[0].Status != alerts.DeliveryDelivered || len(ds[0].Attempts) != 3 ||
		ds[0].Attempts[0].StatusCode != 500 || ds[0].Attempts[0].OK || ds[0].Attempts[2].StatusCode != 204 || !ds[0].Attempts[2].OK {
		t.Fatalf("delivery log: got %+v, want delivered after 500, 500, 204", ds)
	}
	for i, r := range reqs {
		if r.id != ds[0].ID || r.evt != alerts.EventOpened {
			t.Errorf("request %d: got delivery %q event %q, want %s %s", i, r.id, r.evt, ds[0].ID, alerts.EventOpened)
		}
	}
	last := reqs[len(reqs)-1]
	sent := f.clock().Add(-time.Hour)
	if err := channels.Verify(secret, last.body, last.ts, last.sig, sent, 5*time.Minute); err != nil {
		t.Fatalf("the receiver's check of the delivered request: %v", err)
	}
	if err := channels.Verify(secret, last.body, last.ts, last.sig, sent.Add(10*time.Minute), 5*time.Minute); err == nil {
		t.Fatal("the same request replayed 10 minutes later: got nil error, want the timestamp refused")
	}
	tampered := append([]byte{}, last.body...)
	tampered[len(tampered)-2] ^= 1
	if err := channels.Verify(secret, tampered, last.ts, last.sig, sent, 5*time.Minute); err == nil {
		t.Fatal("a changed body: got nil error, want the signature refused")
	}
	var p channels.Payload
	if err := json.Unmarshal(last.body, &p); err != nil {
		t.Fatal(err)
	}
	if p.Event != alerts.EventOpened || p.Alert.ID != f.alert.ID || p.Alert.Severity != "high" || *p.Alert.Observations[0].Value != 912.5 {
		t.Fatalf("payload: got %+v, want the alert with its observation", p)
	}
}

// TestFailures: a loopback target that is not allow-listed fails at once
// without a connection; a hanging receiver times out and is retried up
// to MaxAttempts; neither holds up the Slack channel beside them.
func TestFailures(t *testing.T) {
	var canary atomic.Int64
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			canary.Add(1)
			c.Close()
		}
	}()
	hang := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-hang }))
	defer slow.Close()
	defer close(hang)
	var slack []byte
	slackSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		slack, _ = io.ReadAll(r.Body)
	}))
	defer slackSrv.Close()
	f := newFixture(t, alerts.Channel{Type: "webhook", Target: "http://" + ln.Addr().String() + "/x"},
		alerts.Channel{Type: "webhook", Target: slow.URL}, alerts.Channel{Type: "slack", Target: slackSrv.URL})
	d := f.dispatcher()
	d.Timeout = 300 * time.Millisecond
	if err := d.Enqueue(t.Context(), f.rule, f.alert, alerts.EventOpened); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		if _, err := d.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		f.advance(time.Minute)
	}
	ds := f.deliveries()
	if len(ds) != 3 {
		t.Fatalf("got %d deliveries, want 3", len(ds))
	}
	if ds[0].Status != alerts.DeliveryFailed || len(ds[0].Attempts) != 1 || !strings.Contains(ds[0].Attempts[0].Error, "refused") {
		t.Errorf("loopback target: got %+v, want failed once, refused", ds[0])
	}
	if ds[1].Status != alerts.DeliveryFailed || len(ds[1].Attempts) != 3 {
		t.Errorf("hanging target: got %s after %d attempts, want failed after 3", ds[1].Status, len(ds[1].Attempts))
	}
	if ds[2].Status != alerts.DeliveryDelivered || len(ds[2].Attempts) != 1 {
		t.Errorf("slack: got %+v, want delivered at once", ds[2])
	}
	var msg map[string]string
	if err := json.Unmarshal(slack, &msg); err != nil || !strings.Contains(msg["text"], "[HIGH] slow") ||
		!strings.Contains(msg["text"], "latency_p95_ms = 912.5 (gt 500 over 1 min)") {
		t.Errorf("slack body: got %s (%v), want Slack's {\"text\"} with the rule and its observation", slack, err)
	}
	if n := canary.Load(); n != 0 {
		t.Fatalf("the refused loopback target saw %d connections, want 0", n)
	}
}

// TestEmail sends through a real SMTP server (aiosmtpd) that requires
// STARTTLS before MAIL: the message arrives, so the upgrade happened.
func TestEmail(t *testing.T) {
	srv := testenv.StartSMTP(t)
	f := newFixture(t, alerts.Channel{Type: "email", Target: "oncall@example.com"})
	d := f.dispatcher()
	d.Timeout = 10 * time.Second
	d.SMTP = &channels.SMTP{Addr: srv.Addr, From: "vigil@example.com", TLS: srv.TLS, RequireTLS: true}
	if err := d.Enqueue(t.Context(), f.rule, f.alert, alerts.EventOpened); err != nil {
		t.Fatal(err)
	}
	if _, err := d.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	ds := f.deliveries()
	if ds[0].Status != alerts.DeliveryDelivered {
		t.Fatalf("e-mail delivery: got %+v, want delivered", ds[0])
	}
	msgs := srv.Messages(t)
	if len(msgs) != 1 {
		t.Fatalf("got %d messages, want 1", len(msgs))
	}
	for _, want := range []string{"To: oncall@example.com", "Subject: [Vigil] [HIGH] slow: alert opened on model " + f.alert.ModelID,
		"latency_p95_ms = 912.5", "X-Vigil-Delivery: " + ds[0].ID} {
		if !strings.Contains(msgs[0], want) {
			t.Errorf("message: got\n%s\nwant it to hold %q", msgs[0], want)
		}
	}
	// An unreachable relay is a failed attempt, retried later.
	d2 := f.dispatcher()
	d2.SMTP = &channels.SMTP{Addr: "127.0.0.1:1", From: "vigil@example.com", RequireTLS: true}
	f.advance(time.Second) // the log lists deliveries by creation: this one second
	if err := d2.Enqueue(t.Context(), f.rule, f.alert, alerts.EventReopened); err != nil {
		t.Fatal(err)
	}
	if _, err := d2.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	if ds := f.deliveries(); ds[1].Event != alerts.EventReopened || ds[1].Status != alerts.DeliveryPending || len(ds[1].Attempts) != 1 || ds[1].Attempts[0].OK {
		t.Fatalf("unreachable relay: got %+v, want a failed attempt, retried later", ds[1])
	}
}

// TestRestartSendsQueuedOnce: the evaluation stores an alert's deliveries
// in the alert's write; the process stops before any is sent; after a
// restart two dispatchers work the outbox off and the receiver hears of
// each delivery exactly once.
func TestRestartSendsQueuedOnce(t *testing.T) {
	var mu sync.Mutex
	got := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got[r.Header.Get(channels.HeaderDelivery)]++
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	dir := t.TempDir()
	f := openFixture(t, dir, func(r alerts.Rule) alerts.Outbox {
		return func(in alerts.Instance, created bool) ([]alerts.Delivery, error) {
			return channels.Deliveries(r, in, alerts.EventOpened, in.TriggeredAt)
		}
	}, alerts.Channel{Type: "webhook", Target: srv.URL + "/a"}, alerts.Channel{Type: "webhook", Target: srv.URL + "/b"})
	if ds := f.deliveries(); len(ds) != 2 || ds[0].Status != alerts.DeliveryPending {
		t.Fatalf("queued with the alert: got %+v, want 2 pending", ds)
	}
	if err := f.store.Close(); err != nil { // the process stops here
		t.Fatal(err)
	}
	s, err := sqlitestore.Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	f.store = s
	d1, d2 := f.dispatcher(), f.dispatcher()
	for range 3 {
		var wg sync.WaitGroup
		for _, d := range []*channels.Dispatcher{d1, d2} {
			wg.Go(func() {
				if _, err := d.RunOnce(t.Context()); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		f.advance(2 * time.Minute) // past any lease
	}
	ds := f.deliveries()
	for _, d := range ds {
		if d.Status != alerts.DeliveryDelivered || len(d.Attempts) != 1 || got[d.ID] != 1 {
			t.Errorf("delivery %s: got %s after %d attempts, received %d times, want delivered once", d.ID, d.Status, len(d.Attempts), got[d.ID])
		}
	}
	if len(got) != 2 {
		t.Fatalf("receiver: got %d deliveries, want 2", len(got))
	}
}

// TestSealedSlackTarget: a Slack URL sealed at rest is opened for the
// send only; without the key the attempt fails and nothing is sent.
func TestSealedSlackTarget(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	box, err := secretbox.NewKeyring([]string{"k1"}, [][]byte{[]byte(secret)})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	sealed, err := box.Seal([]byte(srv.URL+"/services/T/B/abcd"), alerts.ChannelLabel(f.alert.OrgID))
	if err != nil {
		t.Fatal(err)
	}
	f.rule.Channels = []alerts.Channel{{Type: "slack", Target: sealed}}
	d := f.dispatcher()
	if err := d.Enqueue(t.Context(), f.rule, f.alert, alerts.EventOpened); err != nil {
		t.Fatal(err)
	}
	if _, err := d.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	if ds := f.deliveries(); ds[0].Status != alerts.DeliveryPending || hits.Load() != 0 || !strings.Contains(ds[0].Attempts[0].Error, "master key") {
		t.Fatalf("without the key: got %+v, %d requests, want a failed attempt and none sent", ds[0], hits.Load())
	}
	d.Box = box
	f.advance(time.Minute)
	if _, err := d.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	ds := f.deliveries()
	if ds[0].Status != alerts.DeliveryDelivered || hits.Load() != 1 || ds[0].Channel.Target != sealed {
		t.Fatalf("with the key: got %+v, %d requests, want delivered once, the target still sealed in the log", ds[0], hits.Load())
	}
}

// TestWebhookRotation: during a rotation's overlap each webhook carries
// two signatures, the new secret's first, and a receiver holding either
// secret accepts it; after the overlap only the new secret signs.
func TestWebhookRotation(t *testing.T) {
	var mu sync.Mutex
	var body []byte
	var ts, sig string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		body, _ = io.ReadAll(r.Body)
		ts, sig = r.Header.Get(channels.HeaderTimestamp), r.Header.Get(channels.HeaderSignature)
	}))
	defer srv.Close()
	f := newFixture(t, alerts.Channel{Type: "webhook", Target: srv.URL})
	old, fresh := []byte("old-secret"), []byte("new-secret")
	d := f.dispatcher()
	keys := alerts.WebhookKeys{Current: old}.Rotate(fresh, d.Clock.Now(), time.Hour)
	d.Secrets = func(context.Context, string) (alerts.WebhookKeys, error) { return keys, nil }
	send := func() {
		t.Helper()
		if err := d.Enqueue(t.Context(), f.rule, f.alert, alerts.EventOpened); err != nil {
			t.Fatal(err)
		}
		if n, err := d.RunOnce(t.Context()); err != nil || n != 1 {
			t.Fatalf("RunOnce: got %d, %v, want 1 sent", n, err)
		}
	}
	send()
	if parts := strings.Split(sig, ","); len(parts) != 2 || parts[0] != channels.Sign(fresh, mustAtoi(t, ts), body) {
		t.Fatalf("signature in the overlap: got %q, want the new secret's then the old one's", sig)
	}
	for _, s := range [][]byte{old, fresh} {
		if err := channels.Verify(s, body, ts, sig, f.clock(), 5*time.Minute); err != nil {
			t.Fatalf("receiver with %s in the overlap: %v", s, err)
		}
	}
	f.advance(time.Hour)
	send()
	if strings.Contains(sig, ",") || channels.Verify(old, body, ts, sig, f.clock(), 5*time.Minute) == nil {
		t.Fatalf("after the overlap: got %q, want the new secret's signature alone", sig)
	}
	if err := channels.Verify(fresh, body, ts, sig, f.clock(), 5*time.Minute); err != nil {
		t.Fatalf("receiver with the new secret after the overlap: %v", err)
	}
}

func mustAtoi(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
