package artifact

import (
	"testing"
)

// TestReporterBatches: LIME's sample is labelled in whole batches of the
// served model's size (no extra request), each step reported with the
// rows done so far, the last all of them.
func TestReporterBatches(t *testing.T) {
	rows := make([][]float64, DefaultNumSamples)
	var calls []int
	model := func(batch [][]float64) ([]float64, error) {
		calls = append(calls, len(batch))
		return make([]float64, len(batch)), nil
	}
	var got []Progress
	rep := (&Reporter{Report: func(p Progress) { got = append(got, p) }}).Served(64)
	if _, err := rep.label(model, rows); err != nil {
		t.Fatal(err)
	}
	total := 0
	for i, n := range calls {
		total += n
		if i < len(calls)-1 && n%64 != 0 {
			t.Errorf("call %d: got %d rows, want whole batches of 64", i, n)
		}
	}
	if total != DefaultNumSamples || len(calls) < 10 {
		t.Fatalf("got %d rows in %d calls, want %d in about %d", total, len(calls), DefaultNumSamples, 20)
	}
	if len(got) != len(calls) {
		t.Fatalf("got %d reports for %d calls, want one a call", len(got), len(calls))
	}
	for i, p := range got {
		if p.Unit != ProgressRows || p.Total != DefaultNumSamples || (i > 0 && p.Done <= got[i-1].Done) {
			t.Fatalf("got reports %v, want rows climbing to %d", got, DefaultNumSamples)
		}
	}
	if last := got[len(got)-1]; last.Done != DefaultNumSamples {
		t.Errorf("got last report %v, want all %d rows done", last, DefaultNumSamples)
	}
	if first := got[0]; first.Done != int64(calls[0]) {
		t.Errorf("got first report %v, want the first step, %d rows", first, calls[0])
	}
}
