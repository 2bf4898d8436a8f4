package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/stats/profile"
)

var _ analytics.ProfileStore = (*Store)(nil)

// LoadProfiles implements analytics.ProfileStore.
func (s *Store) LoadProfiles(ctx context.Context, keys []analytics.ProfileKey) (map[analytics.ProfileKey]*analytics.ProfileSnapshot, error) {
	return analytics.ReadProfileSnapshots(ctx, s.read, "feature_profiles", keys)
}

// SaveProfiles implements analytics.ProfileStore, in one transaction.
func (s *Store) SaveProfiles(ctx context.Context, snaps []*analytics.ProfileSnapshot) error {
	tx, end, err := s.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("save profiles: %w", err)
	}
	defer end()
	for _, snap := range snaps {
		prof, offsets, err := snap.Encode()
		if err != nil {
			return err
		}
		k := snap.Key
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO feature_profiles (org_id, model_id, side, hour, profile, offsets)
			VALUES (?, ?, ?, ?, ?, ?)`, k.OrgID, k.ModelID, k.Side, k.Hour.UnixMicro(), prof, offsets); err != nil {
			return fmt.Errorf("save profile: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("save profiles: %w", err)
	}
	return nil
}

// MergedProfile merges the hourly profiles of a model's side whose hour
// starts in r (analytics.ReadMergedProfile).
func (s *Store) MergedProfile(ctx context.Context, orgID, modelID, side string, r analytics.Range) (*profile.Profile, error) {
	return analytics.ReadMergedProfile(ctx, s.read, "feature_profiles", orgID, modelID, side, r)
}

// FirstProfileHour returns the earliest hour profiled of a model's side
// (analytics.ReadFirstProfileHour).
func (s *Store) FirstProfileHour(ctx context.Context, orgID, modelID, side string) (time.Time, bool, error) {
	return analytics.ReadFirstProfileHour(ctx, s.read, "feature_profiles", orgID, modelID, side)
}
