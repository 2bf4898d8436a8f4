package analyticstest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
)

// testProfiles saves snapshots, reads them back equal, replaces one, and
// finds nothing under keys never saved (another organization's among
// them).
func testProfiles(t *testing.T, s Store) {
	ctx := context.Background()
	k := analytics.ProfileKey{OrgID: "o1", ModelID: "m1", Side: analytics.SideInput, Hour: base}
	other := k
	other.OrgID = "o2"
	later := k
	later.Hour = base.Add(time.Hour)
	snap := &analytics.ProfileSnapshot{Key: k, Offsets: map[int32]int64{0: 41, 3: 7}}
	for _, doc := range []string{`{"x":1.5,"c":"a"}`, `{"x":-2,"c":"b"}`, `{"x":null}`} {
		snap.Profile.Add(json.RawMessage(doc))
	}
	f := func(want map[analytics.ProfileKey]*analytics.ProfileSnapshot) {
		t.Helper()
		got, err := s.LoadProfiles(ctx, []analytics.ProfileKey{k, other, later})
		if err != nil {
			t.Fatalf("LoadProfiles: %v", err)
		}
		list := func(m map[analytics.ProfileKey]*analytics.ProfileSnapshot) string {
			var out []*analytics.ProfileSnapshot
			for _, k := range []analytics.ProfileKey{k, other, later} {
				if s := m[k]; s != nil {
					out = append(out, s)
				}
			}
			b, err := json.Marshal(out)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		if len(got) != len(want) || list(got) != list(want) {
			t.Fatalf("got %s, want %s", list(got), list(want))
		}
	}
	f(map[analytics.ProfileKey]*analytics.ProfileSnapshot{})
	if err := s.SaveProfiles(ctx, []*analytics.ProfileSnapshot{snap}); err != nil {
		t.Fatalf("SaveProfiles: %v", err)
	}
	f(map[analytics.ProfileKey]*analytics.ProfileSnapshot{k: snap})
	snap.Profile.Add(json.RawMessage(`{"x":3}`))
	snap.Offsets[0] = 42
	second := &analytics.ProfileSnapshot{Key: later, Offsets: map[int32]int64{0: 43}}
	second.Profile.Add(json.RawMessage(`{"y":true}`))
	if err := s.SaveProfiles(ctx, []*analytics.ProfileSnapshot{snap, second}); err != nil {
		t.Fatalf("SaveProfiles: %v", err)
	}
	f(map[analytics.ProfileKey]*analytics.ProfileSnapshot{k: snap, later: second})
}
