package web

import (
	"errors"
	"testing"
	"time"
)

func TestProblemsTime(t *testing.T) {
	f := func(in string, want time.Time, ok bool) {
		t.Helper()
		var p Problems
		got := p.Time("start_time", &in)
		if gotOK := p["start_time"] == nil; gotOK != ok {
			t.Errorf("Time(%q): got problem %v, want ok %v", in, p["start_time"], ok)
			return
		}
		if !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("Time(%q): got %v, want %v in UTC", in, got, want)
		}
	}
	day := time.Date(2026, 1, 31, 12, 0, 0, 0, time.UTC)
	var p Problems
	if got := p.Time("start_time", nil); !got.IsZero() || p != nil {
		t.Errorf("Time(nil): got %v and problems %v, want the zero time and none", got, p)
	}
	f("2026-01-31T12:00:00Z", day, true)
	f("2026-01-31t12:00:00z", day, true) // RFC 3339 allows lower-case T and Z
	f("2026-01-31T13:00:00+01:00", day, true)
	f("2026-01-31T12:00:00.5Z", day.Add(500*time.Millisecond), true)
	// Not date-times, though Go's time.Parse takes the first two.
	f("2026-01-31T12:00:00,5Z", time.Time{}, false)
	f("2026-01-31T12:00:00+24:00", time.Time{}, false)
	f("2026-01-31", time.Time{}, false)
	f("2026-01-31 12:00:00Z", time.Time{}, false)
	f("2026-02-30T12:00:00Z", time.Time{}, false)
	f("2026-01-31T12:00:00", time.Time{}, false)
	f("yesterday", time.Time{}, false)
	f("", time.Time{}, false) // sent empty: not a date-time
}

func TestProblemsUUID(t *testing.T) {
	f := func(in string, ok bool) {
		t.Helper()
		var p Problems
		p.UUID("owner_id", &in)
		if gotOK := p["owner_id"] == nil; gotOK != ok {
			t.Errorf("UUID(%q): got problem %v, want ok %v", in, p["owner_id"], ok)
		}
	}
	var p Problems
	if p.UUID("owner_id", nil); p != nil {
		t.Errorf("UUID(nil): got problems %v, want none", p)
	}
	f("", false)
	f("0190c6a2-7b1e-7c3a-9f0e-2d4b6a8c0e1f", true)
	f("0190C6A2-7B1E-7C3A-9F0E-2D4B6A8C0E1F", true)
	f("0190c6a27b1e7c3a9f0e2d4b6a8c0e1f", false) // google/uuid takes it; the format does not
	f("{0190c6a2-7b1e-7c3a-9f0e-2d4b6a8c0e1f}", false)
	f("urn:uuid:0190c6a2-7b1e-7c3a-9f0e-2d4b6a8c0e1f", false)
	f("0190c6a2-7b1e-7c3a-9f0e-2d4b6a8c0e1g", false)
	f("admin", false)
}

func TestProblemsInt(t *testing.T) {
	f := func(n *Int, want int, ok bool) {
		t.Helper()
		var p Problems
		got := p.Int("max_batch", n, 256, 1, 10000)
		if gotOK := p["max_batch"] == nil; got != want || gotOK != ok {
			t.Errorf("Int(%v): got %d and problem %v, want %d and ok %v", n, got, p["max_batch"], want, ok)
		}
	}
	n := func(v int) *Int { i := Int(v); return &i }
	f(nil, 256, true)
	f(n(1), 1, true)
	f(n(10000), 10000, true)
	f(n(0), 0, false)
	f(n(10001), 10001, false)
	var p Problems
	if p.Int("max_batch", n(-1), 256, 1, 10000); p["max_batch"] != "must be between 1 and 10000" {
		t.Errorf("Int(-1): got problem %v, want %q", p["max_batch"], "must be between 1 and 10000")
	}
}

func TestInt(t *testing.T) {
	type body struct {
		Days *Int `json:"expires_in_days"`
	}
	f := func(in string, want int, status int) {
		t.Helper()
		var b body
		err := DecodeBytes([]byte(in), &b)
		var e *Error
		switch {
		case status == 0 && err != nil:
			t.Errorf("%s: got %v, want %d", in, err, want)
		case status == 0 && (b.Days == nil || int(*b.Days) != want):
			t.Errorf("%s: got %v, want %d", in, b.Days, want)
		case status != 0 && (!errors.As(err, &e) || e.Status != status || e.Details["expires_in_days"] != "must be of type integer"):
			t.Errorf("%s: got %v, want %d naming expires_in_days", in, err, status)
		}
	}
	f(`{"expires_in_days": 247}`, 247, 0)
	f(`{"expires_in_days": 247.0}`, 247, 0) // JSON Schema's integer
	f(`{"expires_in_days": 2.47e2}`, 247, 0)
	f(`{"expires_in_days": -0.0}`, 0, 0)
	f(`{"expires_in_days": 247.5}`, 0, 422)
	f(`{"expires_in_days": 1e300}`, 0, 422)
	f(`{"expires_in_days": 99999999999999999999}`, 0, 422)
	f(`{"expires_in_days": "247"}`, 0, 422)
	f(`{"expires_in_days": true}`, 0, 422)
	f(`{"expires_in_days": [1]}`, 0, 422)
}

func TestNumbersAndStrings(t *testing.T) {
	type body struct {
		Metrics  Numbers  `json:"baseline_metrics"`
		Features *Strings `json:"features"`
	}
	f := func(in, field string) {
		t.Helper()
		var b body
		err := DecodeBytes([]byte(in), &b)
		var e *Error
		switch {
		case field == "" && err != nil:
			t.Errorf("%s: got %v, want it accepted", in, err)
		case field != "" && (!errors.As(err, &e) || e.Status != 422 || e.Details[field] == nil):
			t.Errorf("%s: got %v, want 422 naming %s", in, err, field)
		}
	}
	f(`{"baseline_metrics": {"accuracy": 0.9}, "features": ["age"]}`, "")
	f(`{"baseline_metrics": null, "features": null}`, "") // absent
	f(`{"baseline_metrics": {"accuracy": null}}`, "baseline_metrics")
	f(`{"baseline_metrics": {"accuracy": "high"}}`, "baseline_metrics")
	f(`{"features": ["age", null]}`, "features")
	f(`{"features": [1]}`, "features")
}
