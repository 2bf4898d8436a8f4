package export

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/vigilhq/vigil/bias"
	"github.com/vigilhq/vigil/governance/review"
	"github.com/vigilhq/vigil/governance/risk"
	"github.com/vigilhq/vigil/report"
)

// Evidence are the stores an evidence pack reads beyond a report's: the
// risk entries' audit trails, the bias audits and the review requests with
// their decisions. A nil one leaves its file empty, saying so.
type Evidence struct {
	Risks interface {
		RiskHistory(ctx context.Context, orgID, id string) ([]risk.Event, error)
	}
	Audits interface {
		BiasAudits(ctx context.Context, orgID string, f bias.Filter) ([]bias.Audit, int64, error)
	}
	Reviews interface {
		ReviewRequests(ctx context.Context, orgID string, f review.Filter) ([]review.Request, int64, error)
	}
}

// TrailExcerpt is how many of an entry's newest audit-trail events the
// pack carries.
const TrailExcerpt = 50

// ManifestName is the pack's manifest: every other file with its size and
// SHA-256.
const ManifestName = "manifest.json"

// Manifest is the pack's manifest.json. To check a pack: its SHA-256 is
// the export's sha256 as Vigil serves it (kept in the store, apart from
// the file); each file's SHA-256 is its entry's here. A file changed
// after the pack was made fails the second check; a file changed and the
// manifest rewritten to match fails the first.
type Manifest struct {
	Version     int            `json:"manifest_version"`
	ExportID    string         `json:"export_id"`
	OrgID       string         `json:"organization_id"`
	GeneratedAt time.Time      `json:"generated_at"`
	Start       string         `json:"start"`
	End         string         `json:"end"`
	Models      []report.Model `json:"models"`
	Files       []ManifestFile `json:"files"`
	Verify      string         `json:"verification"`
}

// ManifestFile is one file of the pack.
type ManifestFile struct {
	Name      string `json:"name"`
	MediaType string `json:"media_type"`
	SizeBytes int    `json:"size_bytes"`
	SHA256    string `json:"sha256"`
}

// evidenceFile is one evidence file: its records, or empty with why.
type evidenceFile struct {
	Evidence string `json:"evidence"`
	Empty    bool   `json:"empty"`
	Note     string `json:"note,omitempty"`
	Records  any    `json:"records"`
}

// riskEvidence is a risk entry with the newest events of its audit trail.
type riskEvidence struct {
	Entry      risk.Entry   `json:"entry"`
	AuditTrail []risk.Event `json:"audit_trail"`
}

// pack builds the files of an evidence pack in order.
type pack struct {
	zw    *zip.Writer
	at    time.Time
	files []ManifestFile
}

// add writes a file into the pack and records it for the manifest.
func (p *pack) add(name, mediaType string, data []byte) error {
	w, err := p.zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: p.at})
	if err != nil {
		return fmt.Errorf("evidence pack %s: %w", name, err)
	}
	if _, err := w.Write(data); err != nil {
		return fmt.Errorf("evidence pack %s: %w", name, err)
	}
	sum := sha256.Sum256(data)
	p.files = append(p.files, ManifestFile{Name: name, MediaType: mediaType, SizeBytes: len(data), SHA256: hex.EncodeToString(sum[:])})
	return nil
}

// addJSON writes one evidence file: records, or empty with note when
// there are none (or the store was not available: missing).
func (p *pack) addJSON(name string, records any, n int, missing bool, none string) error {
	f := evidenceFile{Evidence: name, Records: records}
	switch {
	case missing:
		f.Empty, f.Note, f.Records = true, "The store of this evidence was not available to the pack.", []any{}
	case n == 0:
		f.Empty, f.Note, f.Records = true, none, []any{}
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("evidence pack %s: %w", name, err)
	}
	return p.add(name+".json", "application/json", append(data, '\n'))
}

// writePack writes j's evidence pack to w: the branded compliance report
// in j's format, the trust scores, the risk register with audit-trail
// excerpts, the drift reports, bias audits, review-board decisions and
// alert history of j's models over its period, and manifest.json.
func (r *Runner) writePack(ctx context.Context, w io.Writer, j Job, d report.Data, spec report.Spec) error {
	p := &pack{zw: zip.NewWriter(w), at: spec.GeneratedAt.UTC()}
	var doc bytes.Buffer
	if err := report.Render(&doc, report.Build(d, spec), j.Format); err != nil {
		return err
	}
	if err := p.add("report."+extensions[j.Format], report.ContentTypes[j.Format], doc.Bytes()); err != nil {
		return err
	}
	type trustRecord struct {
		ModelID   string `json:"model_id"`
		ModelName string `json:"model_name"`
		Snapshot  any    `json:"snapshot"`
	}
	var trusts []trustRecord
	for _, m := range j.Models {
		if s, ok := d.Trust[m.ID]; ok {
			trusts = append(trusts, trustRecord{m.ID, m.Name, s})
		}
	}
	if err := p.addJSON("trust_score", trusts, len(trusts), d.Missing["trust"], "No trust score has been computed for these models."); err != nil {
		return err
	}
	risks, err := r.riskEvidence(ctx, j.OrgID, d.Risks)
	if err != nil {
		return err
	}
	if err := p.addJSON("risk_register", risks, len(risks), d.Missing["risks"], "No risk entry names these models."); err != nil {
		return err
	}
	if err := p.addJSON("drift_reports", d.Drift, len(d.Drift), d.Missing["drift"], "No drift report was written in the period."); err != nil {
		return err
	}
	audits, reviews, err := r.governanceEvidence(ctx, j)
	if err != nil {
		return err
	}
	if err := p.addJSON("bias_audits", audits, len(audits), r.Evidence.Audits == nil, "No bias audit of these models was run in the period."); err != nil {
		return err
	}
	if err := p.addJSON("review_decisions", reviews, len(reviews), r.Evidence.Reviews == nil,
		"No review-board request about these models was made in the period."); err != nil {
		return err
	}
	if err := p.addJSON("alert_history", d.Alerts, len(d.Alerts), d.Missing["alerts"], "No alert was triggered in the period."); err != nil {
		return err
	}
	m := Manifest{Version: 1, ExportID: j.ID, OrgID: j.OrgID, GeneratedAt: p.at, Start: j.Start.Format(time.DateOnly),
		End: j.End.Format(time.DateOnly), Models: j.Models, Files: p.files,
		Verify: "Each file's SHA-256 must equal its entry here; this pack's own SHA-256 must equal the export's sha256 " +
			"as Vigil serves it (GET /api/v1/export/exports/" + j.ID + "), so that a file changed together with this manifest shows too."}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("evidence pack manifest: %w", err)
	}
	w2, err := p.zw.CreateHeader(&zip.FileHeader{Name: ManifestName, Method: zip.Deflate, Modified: p.at})
	if err == nil {
		_, err = w2.Write(append(data, '\n'))
	}
	if err == nil {
		err = p.zw.Close()
	}
	if err != nil {
		return fmt.Errorf("evidence pack: %w", err)
	}
	return nil
}

// riskEvidence pairs each entry with its newest audit-trail events.
func (r *Runner) riskEvidence(ctx context.Context, orgID string, es []risk.Entry) ([]riskEvidence, error) {
	out := make([]riskEvidence, 0, len(es))
	for _, e := range es {
		ev := riskEvidence{Entry: e, AuditTrail: []risk.Event{}}
		if r.Evidence.Risks != nil {
			trail, err := r.Evidence.Risks.RiskHistory(ctx, orgID, e.ID)
			if err != nil {
				return nil, fmt.Errorf("reading the audit trail of risk %s: %w", e.ID, err)
			}
			ev.AuditTrail = trail[max(0, len(trail)-TrailExcerpt):]
		}
		out = append(out, ev)
	}
	return out, nil
}

// governanceEvidence reads the bias audits and the review requests (with
// their decisions) of j's models created in j's period, at most
// report.MaxRecords of each a model.
func (r *Runner) governanceEvidence(ctx context.Context, j Job) ([]bias.Audit, []review.Request, error) {
	from, to := j.Start, j.End.AddDate(0, 0, 1)
	var audits []bias.Audit
	var reviews []review.Request
	for _, m := range j.Models {
		if r.Evidence.Audits != nil {
			as, _, err := r.Evidence.Audits.BiasAudits(ctx, j.OrgID, bias.Filter{ModelID: m.ID, Limit: report.MaxRecords})
			if err != nil {
				return nil, nil, fmt.Errorf("reading bias audits: %w", err)
			}
			for _, a := range as {
				if !a.CreatedAt.Before(from) && a.CreatedAt.Before(to) {
					audits = append(audits, a)
				}
			}
		}
		if r.Evidence.Reviews != nil {
			rs, _, err := r.Evidence.Reviews.ReviewRequests(ctx, j.OrgID, review.Filter{ModelID: m.ID, From: from, To: to, Limit: report.MaxRecords})
			if err != nil {
				return nil, nil, fmt.Errorf("reading review requests: %w", err)
			}
			reviews = append(reviews, rs...)
		}
	}
	return audits, reviews, nil
}
