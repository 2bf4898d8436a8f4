package logtest

import (
	"testing"

	"github.com/vigilhq/vigil/eventlog"
)

// ProgressFunc opens an empty log for one test like NewFunc, and returns
// besides its eventlog.Progress and the name group has on the engine (the
// one Progress.Committed takes).
type ProgressFunc func(t *testing.T) (log eventlog.Log, consumer func(group string) eventlog.Source,
	progress eventlog.Progress, groupName func(group string) string)

// RunProgress checks an engine's eventlog.Progress: a group covers the
// log's end only once it has committed every record appended before the
// end was read, whatever it polled.
func RunProgress(t *testing.T, newLog ProgressFunc) {
	log, consumer, progress, groupName := newLog(t)
	ctx := ctxFor(t)
	end := func() eventlog.Offsets {
		t.Helper()
		o, err := progress.End(ctx)
		if err != nil {
			t.Fatalf("End: %v", err)
		}
		return o
	}
	covers := func(group string, end eventlog.Offsets) bool {
		t.Helper()
		o, err := progress.Committed(ctx, groupName(group))
		if err != nil {
			t.Fatalf("Committed(%s): %v", group, err)
		}
		return o.Covers(end)
	}
	if !covers("never-polled", end()) {
		t.Fatalf("empty log: got a group that never polled not covering the end, want covered")
	}
	recs := records("progress", 60, 7)
	appendAll(t, log, recs)
	first := end()
	if covers("never-polled", first) {
		t.Fatalf("after 60 appends: got a group that never polled covering the end %v, want not covered", first)
	}
	src := open(t, consumer, "reader")
	poll(t, src, len(recs))
	if covers("reader", first) {
		t.Fatalf("polled, not committed: got the end %v covered, want not covered", first)
	}
	commit(t, src)
	if !covers("reader", first) {
		t.Fatalf("committed every record: got the end %v not covered, want covered", first)
	}
	appendAll(t, log, records("progress-more", 5, 2))
	if second := end(); covers("reader", second) {
		t.Fatalf("5 more appended: got the new end %v covered by the old commit, want not covered", second)
	} else if !covers("reader", first) {
		t.Fatalf("5 more appended: got the earlier end %v no longer covered, want covered", first)
	}
}
