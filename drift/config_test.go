package drift

import (
	"testing"

	"github.com/vigilhq/vigil/platform/web"
)

func TestDefaultSchedule(t *testing.T) {
	got := Default("o", "m").Schedule
	want := ScheduleConfig{Enabled: true, Interval: "1h", Window: "24h", Reference: Reference{Type: ReferenceWindow}}
	if got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	var v web.Problems
	Default("o", "m").Settings.validate(&v)
	if err := v.Err(); err != nil {
		t.Fatalf("got problems %v, want none", err)
	}
}
