package embeddedlog_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/eventlog/embeddedlog"
)

// TestTail reads records that the in-memory tail holds, records it has
// dropped (a consumer further behind than its bounds), records another
// Log on the same file wrote between this one's commits (the tail's run
// restarts) and a caller's buffer reused after Append: every consumer
// gets every record once, in order, with the values as appended.
func TestTail(t *testing.T) {
	dir := t.TempDir()
	l := open(t, dir, embeddedlog.Options{TailRecords: 8, TailBytes: 1 << 20, TrimInterval: -1})
	other := open(t, dir, embeddedlog.Options{TailRecords: -1, TrimInterval: -1})
	behind := l.Consumer("behind")
	var want []string
	add := func(to *embeddedlog.Log, prefix string, n int) {
		t.Helper()
		r := recs(prefix, n)
		for _, x := range r {
			want = append(want, string(x.Value))
		}
		mustAppend(t, to, r)
		for i := range r {
			clear(r[i].Value) // Append keeps no reference
		}
	}
	add(l, "a", 5)
	near := l.Consumer("near")
	if got := values(pollN(t, near, 5)); !slices.Equal(got, want) {
		t.Fatalf("near consumer: got %v, want %v", got, want)
	}
	add(l, "b", 20) // more than the tail keeps
	add(other, "c", 3)
	add(l, "d", 4)
	if got := values(pollN(t, near, len(want)-5)); !slices.Equal(got, want[5:]) {
		t.Fatalf("near consumer: got %v, want %v", got, want[5:])
	}
	if got := values(pollN(t, behind, len(want))); !slices.Equal(got, want) {
		t.Fatalf("consumer behind: got %v, want %v", got, want)
	}
	gov := l.Consumer("gov", eventlog.KindGovernance)
	mustAppend(t, l, []eventlog.Record{{Kind: eventlog.KindGovernance, Key: "org/x", Value: []byte("g")}})
	if got := pollN(t, gov, 1); len(got) != 1 || string(got[0].Value) != "g" || got[0].Kind != eventlog.KindGovernance {
		t.Fatalf("governance consumer: got %v, want the one governance record", got)
	}
	for i, m := range pollN(t, near, 1) {
		if i == 0 && (m.Kind != eventlog.KindGovernance || m.Offset != int64(len(want)+1)) {
			t.Fatalf("near consumer: got %s at %d, want governance at %d", m.Kind, m.Offset, len(want)+1)
		}
	}
	// One record at a time, each read from the tail right after its
	// commit, around the ring more than once.
	small := open(t, t.TempDir(), embeddedlog.Options{TailRecords: 4, TailBytes: 1 << 20, TrimInterval: -1})
	all, preds := small.Consumer("all"), small.Consumer("predictions", eventlog.KindPrediction)
	for i := range 13 {
		v := fmt.Sprint("r", i)
		mustAppend(t, small, []eventlog.Record{{Kind: eventlog.KindPrediction, Key: "org/m", Value: []byte(v)}})
		for _, c := range []eventlog.Source{all, preds} {
			if got := pollN(t, c, 1); len(got) != 1 || string(got[0].Value) != v || got[0].Kind != eventlog.KindPrediction || got[0].Key != "org/m" {
				t.Fatalf("record %d: got %+v, want prediction org/m %s", i, got, v)
			}
		}
	}
}
