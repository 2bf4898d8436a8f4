package app

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/export"
)

// packFiles reads a ZIP into its files by name.
func packFiles(t *testing.T, raw []byte) map[string][]byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatalf("the evidence pack is not a ZIP: %v", err)
	}
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name] = data
	}
	return out
}

// verifyPack checks a pack as its reader would: the manifest lists every
// other file, each with its SHA-256 and size; it returns the names of the
// files whose digest does not match.
func verifyPack(t *testing.T, files map[string][]byte) (export.Manifest, []string) {
	t.Helper()
	var m export.Manifest
	if err := json.Unmarshal(files[export.ManifestName], &m); err != nil {
		t.Fatalf("manifest.json: %v", err)
	}
	var listed, altered []string
	for _, f := range m.Files {
		listed = append(listed, f.Name)
		sum := sha256.Sum256(files[f.Name])
		if hex.EncodeToString(sum[:]) != f.SHA256 || len(files[f.Name]) != f.SizeBytes {
			altered = append(altered, f.Name)
		}
	}
	var inPack []string
	for name := range files {
		if name != export.ManifestName {
			inPack = append(inPack, name)
		}
	}
	slices.Sort(listed)
	slices.Sort(inPack)
	if !slices.Equal(listed, inPack) {
		t.Errorf("manifest lists %v, want every file of the pack %v", listed, inPack)
	}
	return m, altered
}

// TestEvidencePack: an evidence pack is one document in the format asked
// for (a PDF for pdf), its appendices inside: the compliance sections
// (trust score, risk register, drift reports, fairness results, alert
// history) and the risk audit trail and review decisions. Asked for as a
// ZIP, it holds that document beside each section as JSON with the API's
// field names, no organization or user id anywhere, and a manifest whose
// digests the test recomputes; the pack's own SHA-256 is the export's
// sha256, and a file altered after the fact fails the check. Bad input
// answers 422 naming the field; a model of no one's 404.
func TestEvidencePack(t *testing.T) {
	eachPipeline(t, func(t *testing.T, s *server) {
		admin := s.admin()
		me := s.do("GET", "/auth/me", admin, nil).want(t, 200)
		model := s.model(admin, "credit", "1")
		entry := s.do("POST", "/risk-register", admin, riskEntry(map[string]any{"model_ids": []string{model}})).want(t, 201).str("id")
		s.do("PATCH", "/risk-register/"+entry, admin, map[string]any{"status": "assessed", "status_reason": "scored by the board"}).want(t, 200)
		rule := s.do("POST", "/alerts/rules", admin, slowRule(model)).want(t, 201).str("id")
		s.fire(t, admin, rule, model)
		pack := func(body map[string]any) (response, response) {
			t.Helper()
			body["model_ids"] = []string{model}
			r := s.do("POST", "/export/evidence-pack", admin, body).want(t, 202)
			if r.str("kind") != export.KindEvidencePack || r.str("status") != export.StatusPending {
				t.Fatalf("got %s, want a pending evidence pack", r.raw)
			}
			done := s.exportDone(t, admin, r.str("export_id"))
			if done.str("status") != export.StatusCompleted {
				t.Fatalf("got %s, want the pack completed", done.raw)
			}
			file := s.do("GET", "/export/exports/"+done.str("export_id")+"/download", admin, nil).want(t, 200)
			if sum := sha256.Sum256(file.raw); hex.EncodeToString(sum[:]) != done.str("sha256") {
				t.Errorf("got the pack's SHA-256 %x, want the export's sha256 %s", sum, done.str("sha256"))
			}
			return r, file
		}

		r, pdf := pack(map[string]any{"format": "pdf"})
		if today := time.Now().UTC().Format(time.DateOnly); r.str("end") != today {
			t.Errorf("got end %s, want today %s by default", r.str("end"), today)
		}
		if ct := pdf.header.Get("Content-Type"); ct != "application/pdf" || !bytes.HasPrefix(pdf.raw, []byte("%PDF-")) ||
			!strings.HasSuffix(pdf.header.Get("Content-Disposition"), ".pdf\"") {
			t.Errorf("got %s, %s, want one PDF document", ct, pdf.header.Get("Content-Disposition"))
		}
		_, md := pack(map[string]any{"format": "markdown"})
		for _, want := range []string{"Evidence pack", "Trust score", "Risk register", "Drift reports", "Fairness results", "Alert history",
			"Appendix: risk audit trail", "scored by the board", "Appendix: review-board decisions"} {
			if !bytes.Contains(md.raw, []byte(want)) {
				t.Errorf("got the document %.400s, want it to hold %q", md.raw, want)
			}
		}

		_, zipped := pack(map[string]any{"format": "markdown", "archive": "zip"})
		if ct := zipped.header.Get("Content-Type"); ct != "application/zip" || !strings.HasSuffix(zipped.header.Get("Content-Disposition"), ".zip\"") {
			t.Errorf("got %s, %s, want a ZIP attachment", ct, zipped.header.Get("Content-Disposition"))
		}
		files := packFiles(t, zipped.raw)
		m, altered := verifyPack(t, files)
		if len(altered) != 0 || len(m.Models) != 1 || m.Models[0].ID != model {
			t.Errorf("got manifest %+v with altered files %v, want every digest to match", m, altered)
		}
		for name, data := range files {
			for _, id := range []string{me.str("user.organization_id"), me.str("user.id")} {
				if bytes.Contains(data, []byte(id)) {
					t.Errorf("got %s holding the internal id %s, want none", name, id)
				}
			}
		}
		rows := func(name string) int {
			var f struct {
				Empty   bool       `json:"empty"`
				Note    string     `json:"note"`
				Columns []string   `json:"columns"`
				Rows    [][]string `json:"rows"`
			}
			if err := json.Unmarshal(files[name], &f); err != nil || f.Empty != (len(f.Rows) == 0) || (f.Empty && f.Note == "") {
				t.Errorf("got %s %s (%v), want its rows or empty saying why", name, files[name], err)
			}
			return len(f.Rows)
		}
		if files["evidence-pack.md"] == nil || rows("risk_audit_trail.json") != 2 || rows("alert_history.json") != 1 ||
			rows("risk_register.json") != 1 || rows("fairness_results.json") != 0 || rows("review_decisions.json") != 0 {
			t.Errorf("got the files %v, want the document, the trail's create and status change, the alert, the entry", len(files))
		}

		// A reader finds a file altered after the fact.
		files["alert_history.json"] = bytes.Replace(files["alert_history.json"], []byte(`"rows"`), []byte(`"row5"`), 1)
		if _, altered := verifyPack(t, files); !slices.Equal(altered, []string{"alert_history.json"}) {
			t.Errorf("got altered %v, want the tampered file found", altered)
		}

		s.do("POST", "/export/evidence-pack", admin, map[string]any{"model_ids": []string{model}, "format": "docx"}).wantField(t, "format")
		s.do("POST", "/export/evidence-pack", admin, map[string]any{"model_ids": []string{model}, "format": "pdf", "archive": "tar"}).
			wantField(t, "archive")
		s.do("POST", "/export/evidence-pack", admin, map[string]any{"model_ids": []string{model}, "format": "pdf", "start": "2026-01-01"}).
			wantField(t, "end")
		s.do("POST", "/export/evidence-pack", admin, map[string]any{"model_ids": []string{uuid.NewString()}, "format": "pdf"}).
			wantError(t, 404, "MODEL_NOT_FOUND")
	})
}

// TestReportTopFeatures: a model's explanation completed today ranks its
// features in the report's top-features table; before it, the section is
// empty saying why.
func TestReportTopFeatures(t *testing.T) {
	eachPipeline(t, func(t *testing.T, s *server) {
		admin := s.admin()
		model := s.model(admin, "credit", "1")
		day := time.Now().UTC().Format(time.DateOnly)
		custom := export.Builtins()[len(export.Builtins())-1].ID
		topFeatures := func() map[string]any {
			id := s.do("POST", "/export/exports", admin, map[string]any{"template_id": custom, "model_ids": []string{model},
				"format": "json", "start": day, "end": day}).want(t, 202).str("export_id")
			if done := s.exportDone(t, admin, id); done.str("status") != export.StatusCompleted {
				t.Fatalf("got %s, want the export completed", done.raw)
			}
			var rep struct {
				Sections []map[string]any `json:"sections"`
			}
			if err := json.Unmarshal(s.do("GET", "/export/exports/"+id+"/download", admin, nil).want(t, 200).raw, &rep); err != nil {
				t.Fatal(err)
			}
			for _, sec := range rep.Sections {
				if sec["id"] == "top_features" {
					return sec
				}
			}
			t.Fatalf("got no top_features section")
			return nil
		}
		if sec := topFeatures(); sec["empty"] != true || !strings.Contains(sec["note"].(string), "No explanation") {
			t.Errorf("got %v, want the section empty saying no explanation was completed", sec)
		}
		s.do("PUT", "/models/"+model+"/artifact", admin, map[string]any{"kind": "linear", "features": []any{"income", "age"},
			"coefficients": []any{2, -1}, "intercept": 0, "link": "identity"}).want(t, 200)
		id := s.do("POST", "/explanations/generate", admin, map[string]any{"model_id": model, "method": "shap",
			"instance": map[string]any{"income": 3, "age": 1}, "background": []any{map[string]any{"income": 1, "age": 1}}}).
			want(t, 202).str("explanation_id")
		waitFor(t, "explanation "+id+" completed", func() bool {
			return s.do("GET", "/explanations/"+id, admin, nil).want(t, 200).str("status") == "completed"
		})
		sec := topFeatures()
		table, _ := sec["table"].(map[string]any)
		rows, _ := table["rows"].([]any)
		if sec["empty"] != false || len(rows) != 2 || rows[0].([]any)[2] != "income" {
			t.Errorf("got %v, want income ranked first of the two features", sec)
		}
	})
}
