package processors

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/stats/profile"
)

// The sides of a prediction that are profiled.
const (
	SideInput  = "input"
	SideOutput = "output"
)

// ProfileKey names one model's profile of one side (SideInput: input_data,
// SideOutput: output_data) over one hour.
type ProfileKey struct {
	OrgID, ModelID, Side string
	// Hour is the start of the hour, UTC.
	Hour time.Time
}

// ProfileSnapshot is a profile as stored, with the log position of the
// newest event folded into it on each partition of the log: an event at
// or below that offset is in the profile already, so a replayed batch is
// never profiled twice, however its batches are cut.
type ProfileSnapshot struct {
	Key     ProfileKey
	Profile profile.Profile
	// Offsets maps a log partition to the highest offset folded in.
	Offsets map[int32]int64
}

// ProfileStore keeps the hourly feature profiles of every model: the
// analytical store (query/sqlite, query/clickhouse).
type ProfileStore interface {
	// LoadProfiles returns the stored snapshots of keys; a key never saved
	// is absent from the map.
	LoadProfiles(ctx context.Context, keys []ProfileKey) (map[ProfileKey]*ProfileSnapshot, error)
	// SaveProfiles replaces the stored snapshots of their keys. It is
	// idempotent and durable before nil; an error is retryable.
	SaveProfiles(ctx context.Context, snaps []*ProfileSnapshot) error
}

// Position places an event in the log.
type Position struct {
	Partition int32
	Offset    int64
}

// positioned is a prediction with where the log holds it.
type positioned struct {
	p   eventlog.Prediction
	pos Position
}

// profileBatch folds predictions into their hourly input and output
// profiles (an output profile also tallies labelled predictions against
// their labels, profile.Quality): it loads the snapshots the batch touches, adds each
// prediction above the snapshot's offset on its partition, and saves the
// snapshots it changed. Run before the batch is committed, so that a
// crash replays what was not saved, and the offsets skip what was.
func profileBatch(ctx context.Context, store ProfileStore, ps []positioned) error {
	if len(ps) == 0 {
		return nil
	}
	// Offsets only grow along a partition: fold events in log order.
	slices.SortStableFunc(ps, func(a, b positioned) int {
		return cmp.Or(cmp.Compare(a.pos.Partition, b.pos.Partition), cmp.Compare(a.pos.Offset, b.pos.Offset))
	})
	keys := map[ProfileKey]bool{}
	for _, e := range ps {
		for _, side := range []string{SideInput, SideOutput} {
			keys[key(e.p, side)] = true
		}
	}
	list := make([]ProfileKey, 0, len(keys))
	for k := range keys {
		list = append(list, k)
	}
	snaps, err := store.LoadProfiles(ctx, list)
	if err != nil {
		return fmt.Errorf("load profiles: %w", err)
	}
	changed := map[ProfileKey]*ProfileSnapshot{}
	for _, e := range ps {
		for _, side := range []string{SideInput, SideOutput} {
			k := key(e.p, side)
			s := snaps[k]
			if s == nil {
				s = &ProfileSnapshot{Key: k}
				snaps[k] = s
			}
			if last, ok := s.Offsets[e.pos.Partition]; ok && e.pos.Offset <= last {
				continue
			}
			if side == SideOutput {
				s.Profile.Add(e.p.OutputData)
				s.Profile.Quality.Add(e.p.Predicted(), e.p.Label())
			} else {
				s.Profile.Add(e.p.InputData)
			}
			if s.Offsets == nil {
				s.Offsets = map[int32]int64{}
			}
			s.Offsets[e.pos.Partition] = e.pos.Offset
			changed[k] = s
		}
	}
	if len(changed) == 0 {
		return nil
	}
	out := make([]*ProfileSnapshot, 0, len(changed))
	for _, s := range changed {
		out = append(out, s)
	}
	if err := store.SaveProfiles(ctx, out); err != nil {
		return fmt.Errorf("save profiles: %w", err)
	}
	return nil
}

func key(p eventlog.Prediction, side string) ProfileKey {
	return ProfileKey{OrgID: p.OrgID, ModelID: p.ModelID, Side: side, Hour: p.Timestamp.UTC().Truncate(time.Hour)}
}

// Encode returns the snapshot's profile and offsets as the stores keep
// them: JSON text.
func (s *ProfileSnapshot) Encode() (prof, offsets string, err error) {
	p, err := json.Marshal(&s.Profile)
	if err != nil {
		return "", "", fmt.Errorf("encode profile: %w", err)
	}
	o, err := json.Marshal(s.Offsets)
	if err != nil {
		return "", "", fmt.Errorf("encode profile offsets: %w", err)
	}
	return string(p), string(o), nil
}

// Decode sets the snapshot's profile and offsets from Encode's text.
func (s *ProfileSnapshot) Decode(prof, offsets string) error {
	s.Profile = profile.Profile{}
	if err := json.Unmarshal([]byte(prof), &s.Profile); err != nil {
		return fmt.Errorf("stored profile: %w", err)
	}
	s.Offsets = nil
	if err := json.Unmarshal([]byte(offsets), &s.Offsets); err != nil {
		return fmt.Errorf("stored profile offsets: %w", err)
	}
	return nil
}
