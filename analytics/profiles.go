package analytics

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

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
// analytical store (analytics/sqlite, analytics/clickhouse).
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
	// Epoch is the consumer's eventlog.Message.Epoch when it read the event.
	Epoch uint64
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
