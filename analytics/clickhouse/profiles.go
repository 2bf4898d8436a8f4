package clickhouse

import (
	"context"
	"fmt"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/stats/profile"
)

var _ analytics.ProfileStore = (*Store)(nil)

// LoadProfiles implements analytics.ProfileStore from the newest version
// of each snapshot.
func (s *Store) LoadProfiles(ctx context.Context, keys []analytics.ProfileKey) (map[analytics.ProfileKey]*analytics.ProfileSnapshot, error) {
	return analytics.ReadProfileSnapshots(ctx, s.read, "feature_profiles FINAL", keys)
}

// SaveProfiles implements analytics.ProfileStore: one insert of every
// snapshot as its newest version.
func (s *Store) SaveProfiles(ctx context.Context, snaps []*analytics.ProfileSnapshot) error {
	if err := s.ensure(ctx); err != nil {
		return err
	}
	batch, err := s.conn.PrepareBatch(ctx, `INSERT INTO feature_profiles (org_id, model_id, side, hour, profile, offsets, version)`)
	if err != nil {
		return fmt.Errorf("save profiles: %w", err)
	}
	defer batch.Close() // ends the INSERT when Send is not reached
	version := uint64(time.Now().UnixNano())
	for _, snap := range snaps {
		prof, offsets, err := snap.Encode()
		if err != nil {
			return err
		}
		k := snap.Key
		if err := batch.Append(k.OrgID, k.ModelID, k.Side, k.Hour.UnixMicro(), prof, offsets, version); err != nil {
			return fmt.Errorf("save profiles: %w", err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("save profiles: %w", err)
	}
	return nil
}

// MergedProfile merges the newest version of the hourly profiles of a
// model's side whose hour starts in r (analytics.ReadMergedProfile).
func (s *Store) MergedProfile(ctx context.Context, orgID, modelID, side string, r analytics.Range) (*profile.Profile, error) {
	return analytics.ReadMergedProfile(ctx, s.read, "feature_profiles FINAL", orgID, modelID, side, r)
}

// FirstProfileHour returns the earliest hour profiled of a model's side
// (analytics.ReadFirstProfileHour).
func (s *Store) FirstProfileHour(ctx context.Context, orgID, modelID, side string) (time.Time, bool, error) {
	return analytics.ReadFirstProfileHour(ctx, s.read, "feature_profiles FINAL", orgID, modelID, side)
}
