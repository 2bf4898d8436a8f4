package analytics

import (
	"context"
	"fmt"
	"time"

	"github.com/vigilhq/vigil/stats/profile"
)

// ReadMergedProfile implements a window read of the hourly feature
// profiles on any engine: the merge of the profiles of one model's side
// (SideInput or SideOutput) whose hour starts in r, read from
// table (ClickHouse: with FINAL, so that each hour's newest version is
// read). No profile in r gives an empty profile.
func ReadMergedProfile(ctx context.Context, read Reader, table, orgID, modelID, side string, r Range) (*profile.Profile, error) {
	rows, err := read(ctx, `SELECT profile, offsets FROM `+table+` WHERE org_id = ? AND model_id = ? AND side = ? AND hour >= ? AND hour < ?`,
		orgID, modelID, side, r.From.UnixMicro(), r.To.UnixMicro())
	if err != nil {
		return nil, fmt.Errorf("merged profile: %w", err)
	}
	defer rows.Close()
	out := &profile.Profile{}
	for rows.Next() {
		var prof, offsets string
		if err := rows.Scan(&prof, &offsets); err != nil {
			return nil, fmt.Errorf("merged profile: %w", err)
		}
		var snap ProfileSnapshot
		if err := snap.Decode(prof, offsets); err != nil {
			return nil, err
		}
		if err := out.Merge(&snap.Profile); err != nil {
			return nil, fmt.Errorf("merged profile: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("merged profile: %w", err)
	}
	return out, nil
}

// ReadFirstProfileHour returns the start of the earliest hour profiled of
// one model's side, read from table; ok is false when none is.
func ReadFirstProfileHour(ctx context.Context, read Reader, table, orgID, modelID, side string) (first time.Time, ok bool, err error) {
	rows, err := read(ctx, `SELECT hour FROM `+table+` WHERE org_id = ? AND model_id = ? AND side = ? ORDER BY hour LIMIT 1`,
		orgID, modelID, side)
	if err != nil {
		return first, false, fmt.Errorf("first profile hour: %w", err)
	}
	defer rows.Close()
	if rows.Next() {
		var us int64
		if err := rows.Scan(&us); err != nil {
			return first, false, fmt.Errorf("first profile hour: %w", err)
		}
		first, ok = time.UnixMicro(us).UTC(), true
	}
	if err := rows.Err(); err != nil {
		return first, false, fmt.Errorf("first profile hour: %w", err)
	}
	return first, ok, nil
}

// ReadProfileSnapshots implements ProfileStore.LoadProfiles on
// any engine that keeps the feature_profiles table, named by table as the
// engine reads it (ClickHouse: with FINAL): one query a key, a key never
// saved absent from the map.
func ReadProfileSnapshots(ctx context.Context, read Reader, table string, keys []ProfileKey) (map[ProfileKey]*ProfileSnapshot, error) {
	out := map[ProfileKey]*ProfileSnapshot{}
	for _, k := range keys {
		if err := readSnapshot(ctx, read, table, k, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readSnapshot reads k's snapshot into out, if it is stored.
func readSnapshot(ctx context.Context, read Reader, table string, k ProfileKey, out map[ProfileKey]*ProfileSnapshot) error {
	rows, err := read(ctx, `SELECT profile, offsets FROM `+table+` WHERE org_id = ? AND model_id = ? AND side = ? AND hour = ?`,
		k.OrgID, k.ModelID, k.Side, k.Hour.UnixMicro())
	if err != nil {
		return fmt.Errorf("load profile: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var prof, offsets string
		if err := rows.Scan(&prof, &offsets); err != nil {
			return fmt.Errorf("load profile: %w", err)
		}
		snap := &ProfileSnapshot{Key: k}
		if err := snap.Decode(prof, offsets); err != nil {
			return err
		}
		out[k] = snap
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load profile: %w", err)
	}
	return nil
}
