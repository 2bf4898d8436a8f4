package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/vigilhq/vigil/processors"
	"github.com/vigilhq/vigil/query"
	"github.com/vigilhq/vigil/stats/profile"
)

var _ processors.ProfileStore = (*Store)(nil)

// LoadProfiles implements processors.ProfileStore.
func (s *Store) LoadProfiles(ctx context.Context, keys []processors.ProfileKey) (map[processors.ProfileKey]*processors.ProfileSnapshot, error) {
	return query.ReadProfileSnapshots(ctx, s.read, "feature_profiles", keys)
}

// SaveProfiles implements processors.ProfileStore, in one transaction.
func (s *Store) SaveProfiles(ctx context.Context, snaps []*processors.ProfileSnapshot) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("save profiles: %w", err)
	}
	defer tx.Rollback()
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
// starts in r (query.ReadMergedProfile).
func (s *Store) MergedProfile(ctx context.Context, orgID, modelID, side string, r query.Range) (*profile.Profile, error) {
	return query.ReadMergedProfile(ctx, s.read, "feature_profiles", orgID, modelID, side, r)
}

// FirstProfileHour returns the earliest hour profiled of a model's side
// (query.ReadFirstProfileHour).
func (s *Store) FirstProfileHour(ctx context.Context, orgID, modelID, side string) (time.Time, bool, error) {
	return query.ReadFirstProfileHour(ctx, s.read, "feature_profiles", orgID, modelID, side)
}
