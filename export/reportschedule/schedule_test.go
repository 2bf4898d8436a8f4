package reportschedule

import (
	"testing"
	"time"
)

// TestParse: the standard five fields parse; anything else is refused.
func TestParse(t *testing.T) {
	for _, expr := range []string{"0 9 * * 1", "*/15 * * * *", "0 0 1 1-6 MON-FRI", "5 4 * * sun", "0 0 29 2 *"} {
		if _, err := Parse(expr); err != nil {
			t.Errorf("Parse(%q): got %v, want it read", expr, err)
		}
	}
	for _, expr := range []string{"", "0 9 * *", "0 0 9 * * 1", "@daily", "TZ=UTC 0 9 * * 1", "CRON_TZ=UTC 0 9 * * 1",
		"60 * * * *", "* 24 * * *", "0 0 30 2 *", "0 0 31 4 *"} {
		if _, err := Parse(expr); err == nil {
			t.Errorf("Parse(%q): got no error, want it refused", expr)
		}
	}
}

// TestUpcoming: the next due times are after the given time, in UTC.
func TestUpcoming(t *testing.T) {
	from := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC) // a Thursday at 09:00
	got := Upcoming("0 9 * * 1,4", from, 5)
	want := []time.Time{time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC),
		time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC), time.Date(2026, 12, 10, 9, 0, 0, 0, time.UTC), time.Date(2026, 12, 14, 9, 0, 0, 0, time.UTC)}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if !got[i].Equal(want[i]) {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	start, end := Schedule{PeriodDays: 7}.Period(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	if !start.Equal(time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)) || !end.Equal(time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("got the period %v to %v, want the 7 days before Monday 30 November", start, end)
	}
}
