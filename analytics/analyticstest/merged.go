package analyticstest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
)

// testMergedProfile saves three hours of a model's inputs (one of them
// twice, the second version winning) and reads windows of them back
// merged; another organization, side or window reads nothing.
func testMergedProfile(t *testing.T, s Store) {
	ctx := context.Background()
	snap := func(org, side string, hour, rows int) *analytics.ProfileSnapshot {
		k := analytics.ProfileKey{OrgID: org, ModelID: "m1", Side: side, Hour: base.Add(time.Duration(hour) * time.Hour)}
		sn := &analytics.ProfileSnapshot{Key: k, Offsets: map[int32]int64{0: int64(hour*100 + rows)}}
		for i := range rows {
			sn.Profile.Add(json.RawMessage(fmt.Sprintf(`{"x":%d}`, hour*100+i)))
		}
		return sn
	}
	save := func(snaps ...*analytics.ProfileSnapshot) {
		t.Helper()
		if err := s.SaveProfiles(ctx, snaps); err != nil {
			t.Fatalf("SaveProfiles: %v", err)
		}
	}
	f := func(org, side string, from, to int, want int64) {
		t.Helper()
		r := analytics.Range{From: base.Add(time.Duration(from) * time.Hour), To: base.Add(time.Duration(to) * time.Hour)}
		got, err := s.MergedProfile(ctx, org, "m1", side, r)
		if err != nil {
			t.Fatalf("MergedProfile: %v", err)
		}
		var n int64
		if x := got.Features["x"]; x != nil {
			n = x.Values()
		}
		if got.Rows != want || n != want {
			t.Fatalf("%s %s [%d, %d): got %d rows and %d values of x, want %d", org, side, from, to, got.Rows, n, want)
		}
	}
	first := func(org string, want time.Time, wantOK bool) {
		t.Helper()
		got, ok, err := s.FirstProfileHour(ctx, org, "m1", analytics.SideInput)
		if err != nil {
			t.Fatalf("FirstProfileHour: %v", err)
		}
		if ok != wantOK || !got.Equal(want) {
			t.Fatalf("first hour of %s: got %v %v, want %v %v", org, got, ok, want, wantOK)
		}
	}
	first("o1", time.Time{}, false)
	f("o1", analytics.SideInput, 0, 24, 0)
	save(snap("o1", analytics.SideInput, 1, 3), snap("o1", analytics.SideInput, 2, 4), snap("o1", analytics.SideOutput, 1, 7))
	save(snap("o1", analytics.SideInput, 1, 5), snap("o1", analytics.SideInput, 3, 6), snap("o2", analytics.SideInput, 0, 9))
	f("o1", analytics.SideInput, 0, 24, 15)
	f("o1", analytics.SideInput, 1, 3, 9)
	f("o1", analytics.SideInput, 2, 3, 4)
	f("o1", analytics.SideInput, 4, 24, 0)
	f("o1", analytics.SideOutput, 0, 24, 7)
	f("o2", analytics.SideInput, 1, 24, 0)
	first("o1", base.Add(time.Hour), true)
	first("o2", base, true)
}
