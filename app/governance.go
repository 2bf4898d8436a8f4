package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/bias"
	"github.com/vigilhq/vigil/ingest"
)

// governance puts the governance events of bias audits on the event log,
// for the risk register to draft entries from (bias.Governance).
type governance struct{ a *App }

// BiasAuditFinding implements bias.Governance.
func (g governance) BiasAuditFinding(ctx context.Context, audit bias.Audit) error {
	if audit.Result == nil || g.a.events == nil {
		return fmt.Errorf("governance event of bias audit %s: no result or no event log", audit.ID)
	}
	summary := fmt.Sprintf("bias audit at %s severity", audit.Result.Severity)
	if len(audit.Result.Recommendations) > 0 {
		summary += ": " + strings.SplitN(audit.Result.Recommendations[0], "; ", 2)[0]
	}
	rec, err := ingest.GovernanceRecord(ingest.Governance{EventID: uuid.NewString(), OrgID: audit.OrgID, ModelID: audit.ModelID,
		SourceType: ingest.SourceBiasAudit, SourceID: audit.ID, Severity: audit.Result.Severity, Summary: summary,
		Timestamp: g.a.clock().Now()})
	if err != nil {
		return err
	}
	if err := g.a.events.Append(ctx, []ingest.Record{rec}); err != nil {
		return fmt.Errorf("append governance event of bias audit %s: %w", audit.ID, err)
	}
	return nil
}
