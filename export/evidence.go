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
	"slices"
	"time"

	"github.com/vigilhq/vigil/governance/review"
	"github.com/vigilhq/vigil/governance/risk"
	"github.com/vigilhq/vigil/report"
)

// Evidence are the stores an evidence pack reads beyond a report's: the
// risk entries' audit trails and the review requests with their
// decisions. A nil one leaves its appendix empty, saying so.
type Evidence struct {
	Risks interface {
		RiskHistory(ctx context.Context, orgID, id string) ([]risk.Event, error)
	}
	Reviews interface {
		ReviewRequests(ctx context.Context, orgID string, f review.Filter) ([]review.Request, int64, error)
	}
}

// TrailExcerpt is how many of an entry's newest audit-trail events the
// pack carries.
const TrailExcerpt = 50

// ManifestName is the manifest of a pack asked for as a ZIP: every other
// file with its size and SHA-256.
const ManifestName = "manifest.json"

// Manifest is a ZIP pack's manifest.json. To check a pack: its SHA-256 is
// the export's sha256 as Vigil serves it (kept in the store, apart from
// the file); each file's SHA-256 is its entry's here. A file changed
// after the pack was made fails the second check; a file changed and the
// manifest rewritten to match fails the first.
type Manifest struct {
	Version     int            `json:"manifest_version"`
	ExportID    string         `json:"export_id"`
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

// evidenceFile is one appendix of a ZIP pack as JSON: the section of the
// document, its table's columns (the API's field names) and rows, or
// empty with why.
type evidenceFile struct {
	Evidence string     `json:"evidence"`
	Title    string     `json:"title"`
	Empty    bool       `json:"empty"`
	Note     string     `json:"note,omitempty"`
	Columns  []string   `json:"columns"`
	Rows     [][]string `json:"rows"`
}

// packSections are the sections of an evidence pack's document: the
// compliance report's, with the fairness results; the appendices follow.
var packSections = []string{report.SectionSummary, report.SectionRecommendation, report.SectionTrustScore, report.SectionRiskRegister,
	report.SectionDriftReports, report.SectionFairness, report.SectionAlertHistory}

// evidenceReport is j's evidence pack as one document: the compliance
// report's sections (trust score, risk register, drift reports, fairness
// results, alert history) as of the period, then the appendices: the
// risk entries' audit-trail excerpts and the review-board decisions.
func (r *Runner) evidenceReport(ctx context.Context, j Job, d report.Data, spec report.Spec) (report.Report, error) {
	spec.Title, spec.Sections = "Evidence pack", packSections
	rep := report.Build(d, spec)
	trail, err := r.trailSection(ctx, j.OrgID, d.Risks)
	if err != nil {
		return rep, err
	}
	reviews, err := r.reviewSection(ctx, j)
	if err != nil {
		return rep, err
	}
	rep.Sections = append(rep.Sections, trail, reviews)
	return rep, nil
}

// writePack writes j's evidence pack to w: one document in j's format
// or, asked for as a ZIP, that document beside each of its sections as
// JSON and manifest.json.
func (r *Runner) writePack(ctx context.Context, w io.Writer, j Job, d report.Data, spec report.Spec) error {
	rep, err := r.evidenceReport(ctx, j, d, spec)
	if err != nil {
		return err
	}
	if !j.Zipped() {
		return report.Render(w, rep, j.Format)
	}
	p := &pack{zw: zip.NewWriter(w), at: spec.GeneratedAt.UTC()}
	var doc bytes.Buffer
	if err := report.Render(&doc, rep, j.Format); err != nil {
		return err
	}
	if err := p.add("evidence-pack."+extensions[j.Format], report.ContentTypes[j.Format], doc.Bytes()); err != nil {
		return err
	}
	for _, sec := range rep.Sections {
		if sec.Table == nil && !sec.Empty {
			continue // the summary and recommendations live in the document
		}
		f := evidenceFile{Evidence: sec.ID, Title: sec.Title, Empty: sec.Empty, Note: sec.Note, Columns: []string{}, Rows: [][]string{}}
		if sec.Table != nil {
			f.Columns, f.Rows = sec.Table.Columns, sec.Table.Rows
		}
		data, err := json.MarshalIndent(f, "", "  ")
		if err != nil {
			return fmt.Errorf("evidence pack %s: %w", sec.ID, err)
		}
		if err := p.add(sec.ID+".json", "application/json", append(data, '\n')); err != nil {
			return err
		}
	}
	return p.close(j)
}

// pack builds the files of a ZIP evidence pack in order.
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

// close writes the manifest of j's pack and ends the ZIP.
func (p *pack) close(j Job) error {
	m := Manifest{Version: 2, ExportID: j.ID, GeneratedAt: p.at, Start: j.Start.Format(time.DateOnly),
		End: j.End.Format(time.DateOnly), Models: j.Models, Files: p.files,
		Verify: "Each file's SHA-256 must equal its entry here; this pack's own SHA-256 must equal the export's sha256 " +
			"as Vigil serves it (GET /api/v1/export/exports/" + j.ID + "), so that a file changed together with this manifest shows too."}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("evidence pack manifest: %w", err)
	}
	w, err := p.zw.CreateHeader(&zip.FileHeader{Name: ManifestName, Method: zip.Deflate, Modified: p.at})
	if err == nil {
		_, err = w.Write(append(data, '\n'))
	}
	if err == nil {
		err = p.zw.Close()
	}
	if err != nil {
		return fmt.Errorf("evidence pack: %w", err)
	}
	return nil
}

// trailSection is the appendix of the risk entries' newest audit-trail
// events, TrailExcerpt of each, oldest first.
func (r *Runner) trailSection(ctx context.Context, orgID string, es []risk.Entry) (report.Section, error) {
	s := report.Section{ID: "risk_audit_trail", Title: "Appendix: risk audit trail",
		Note: fmt.Sprintf("The newest %d events of each entry's audit trail.", TrailExcerpt)}
	if r.Evidence.Risks == nil {
		s.Empty, s.Note = true, "The store of this evidence was not available to the pack."
		return s, nil
	}
	t := &report.Table{Columns: []string{"risk_entry", "created_at", "event_action", "description", "details", "username"}}
	for _, e := range es {
		trail, err := r.Evidence.Risks.RiskHistory(ctx, orgID, e.ID)
		if err != nil {
			return s, fmt.Errorf("reading the audit trail of risk %s: %w", e.ID, err)
		}
		for _, ev := range trail[max(0, len(trail)-TrailExcerpt):] {
			details, _ := json.Marshal(ev.Details)
			t.Rows = append(t.Rows, []string{e.Title, ev.CreatedAt.UTC().Format(time.RFC3339), ev.Action, ev.Description, string(details),
				ev.Username})
		}
	}
	if len(t.Rows) == 0 {
		s.Empty, s.Note = true, "No risk entry named these models by the end of the period."
		return s, nil
	}
	s.Table = t
	return s, nil
}

// reviewSection is the appendix of the review-board requests about j's
// models made in its period, one row per decision (or one for a request
// without any).
func (r *Runner) reviewSection(ctx context.Context, j Job) (report.Section, error) {
	s := report.Section{ID: "review_decisions", Title: "Appendix: review-board decisions"}
	if r.Evidence.Reviews == nil {
		s.Empty, s.Note = true, "The store of this evidence was not available to the pack."
		return s, nil
	}
	reviews, err := r.governanceEvidence(ctx, j)
	if err != nil {
		return s, err
	}
	t := &report.Table{Columns: []string{"request", "board", "status", "outcome", "created_at", "decision", "username", "comment", "decided_at"}}
	for _, q := range reviews {
		row := []string{q.Title, q.BoardName, string(q.Status), q.Outcome, q.CreatedAt.UTC().Format(time.RFC3339)}
		if len(q.Decisions) == 0 {
			t.Rows = append(t.Rows, append(row, "", "", "", ""))
		}
		for _, dc := range q.Decisions {
			t.Rows = append(t.Rows, append(slices.Clone(row), dc.Decision, dc.Username, dc.Comment, dc.CreatedAt.UTC().Format(time.RFC3339)))
		}
	}
	if len(t.Rows) == 0 {
		s.Empty, s.Note = true, "No review-board request about these models was made in the period."
		return s, nil
	}
	s.Table = t
	return s, nil
}

// governanceEvidence reads the review requests (with their decisions)
// of j's models created in j's period, at most report.MaxRecords a model.
func (r *Runner) governanceEvidence(ctx context.Context, j Job) ([]review.Request, error) {
	from, to := j.Start, j.End.AddDate(0, 0, 1)
	var reviews []review.Request
	for _, m := range j.Models {
		rs, _, err := r.Evidence.Reviews.ReviewRequests(ctx, j.OrgID, review.Filter{ModelID: m.ID, From: from, To: to, Limit: report.MaxRecords})
		if err != nil {
			return nil, fmt.Errorf("reading review requests: %w", err)
		}
		reviews = append(reviews, rs...)
	}
	return reviews, nil
}
