package sqlstore

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/store"
)

var _ export.BrandingStore = (*DB)(nil)

// Branding implements export.BrandingStore.
func (s *DB) Branding(ctx context.Context, orgID string) (export.Branding, error) {
	b := export.Branding{OrgID: orgID}
	var logo string
	var at int64
	err := s.db.QueryRowContext(ctx, s.q(`SELECT primary_color, logo, logo_type, updated_at FROM report_branding
		WHERE org_id = ?`), orgID).Scan(&b.Primary, &logo, &b.LogoType, &at)
	if err = s.wrap(err); errors.Is(err, store.ErrNotFound) {
		return b, nil
	} else if err != nil {
		return b, err
	}
	b.UpdatedAt = fromMicros(at)
	if b.Logo, err = base64.StdEncoding.DecodeString(logo); err != nil {
		return b, fmt.Errorf("stored logo: %w", err)
	}
	if len(b.Logo) == 0 {
		b.Logo = nil
	}
	return b, nil
}

// PutBrandingColor implements export.BrandingStore: one statement
// inserts the organization's row or sets its colour.
func (s *DB) PutBrandingColor(ctx context.Context, orgID, primary string, at time.Time) error {
	_, err := s.exec(ctx, s.db, `INSERT INTO report_branding (org_id, primary_color, logo, logo_type, updated_at)
		VALUES (?, ?, '', '', ?)
		ON CONFLICT (org_id) DO UPDATE SET primary_color = excluded.primary_color, updated_at = excluded.updated_at`,
		orgID, primary, micros(at))
	return err
}

// PutBrandingLogo implements export.BrandingStore: one statement inserts
// the organization's row or sets its logo.
func (s *DB) PutBrandingLogo(ctx context.Context, orgID string, logo []byte, logoType string, at time.Time) error {
	_, err := s.exec(ctx, s.db, `INSERT INTO report_branding (org_id, primary_color, logo, logo_type, updated_at)
		VALUES (?, '', ?, ?, ?)
		ON CONFLICT (org_id) DO UPDATE SET logo = excluded.logo, logo_type = excluded.logo_type, updated_at = excluded.updated_at`,
		orgID, base64.StdEncoding.EncodeToString(logo), logoType, micros(at))
	return err
}
