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

// TestEvidencePack: an evidence pack of a model with a risk entry (whose
// status moved) and an alert is a ZIP holding the branded compliance
// report, the trust score, risk register with its audit trail, drift
// reports, bias audits, review decisions and alert history (empty ones
// saying so) and a manifest whose digests the test recomputes; the
// pack's own SHA-256 is the export's sha256, and a file altered after the
// fact fails the check. Bad input answers 422 naming the field; a
// model of no one's 404.
func TestEvidencePack(t *testing.T) {
	eachPipeline(t, func(t *testing.T, s *server) {
		admin := s.admin()
		model := s.model(admin, "credit", "1")
		entry := s.do("POST", "/risk-register", admin, riskEntry(map[string]any{"model_ids": []string{model}})).want(t, 201).str("id")
		s.do("PATCH", "/risk-register/"+entry, admin, map[string]any{"status": "assessed", "status_reason": "scored by the board"}).want(t, 200)
		rule := s.do("POST", "/alerts/rules", admin, slowRule(model)).want(t, 201).str("id")
		s.fire(t, admin, rule, model)

		r := s.do("POST", "/export/evidence-pack", admin, map[string]any{"model_ids": []string{model}, "format": "markdown"}).want(t, 202)
		if r.str("kind") != export.KindEvidencePack || r.str("status") != export.StatusPending {
			t.Fatalf("got %s, want a pending evidence pack", r.raw)
		}
		if today := time.Now().UTC().Format(time.DateOnly); r.str("end") != today {
			t.Errorf("got end %s, want today %s by default", r.str("end"), today)
		}
		done := s.exportDone(t, admin, r.str("export_id"))
		if done.str("status") != export.StatusCompleted {
			t.Fatalf("got %s, want the pack completed", done.raw)
		}
		file := s.do("GET", "/export/exports/"+done.str("export_id")+"/download", admin, nil).want(t, 200)
		if ct := file.header.Get("Content-Type"); ct != "application/zip" || !strings.HasSuffix(file.header.Get("Content-Disposition"), ".zip\"") {
			t.Errorf("got %s, %s, want a ZIP attachment", ct, file.header.Get("Content-Disposition"))
		}
		if sum := sha256.Sum256(file.raw); hex.EncodeToString(sum[:]) != done.str("sha256") {
			t.Errorf("got the pack's SHA-256 %x, want the export's sha256 %s", sum, done.str("sha256"))
		}
		files := packFiles(t, file.raw)
		m, altered := verifyPack(t, files)
		if len(altered) != 0 || m.ExportID != done.str("export_id") || len(m.Models) != 1 || m.Models[0].ID != model {
			t.Errorf("got manifest %+v with altered files %v, want every digest to match", m, altered)
		}
		for _, name := range []string{"report.md", "trust_score.json", "risk_register.json", "drift_reports.json", "bias_audits.json",
			"review_decisions.json", "alert_history.json"} {
			if files[name] == nil {
				t.Errorf("got no %s in the pack", name)
			}
		}
		if !bytes.Contains(files["report.md"], []byte("Brand colour")) || !bytes.Contains(files["report.md"], []byte("Risk register")) {
			t.Errorf("got report.md %.300s, want the branded compliance report", files["report.md"])
		}
		var risks struct {
			Empty   bool `json:"empty"`
			Records []struct {
				Entry      map[string]any   `json:"entry"`
				AuditTrail []map[string]any `json:"audit_trail"`
			} `json:"records"`
		}
		if err := json.Unmarshal(files["risk_register.json"], &risks); err != nil || risks.Empty || len(risks.Records) != 1 ||
			len(risks.Records[0].AuditTrail) != 2 {
			t.Errorf("got risk_register.json %s (%v), want the entry with its create and status change", files["risk_register.json"], err)
		}
		var alertsFile, bias struct {
			Empty   bool   `json:"empty"`
			Note    string `json:"note"`
			Records []any  `json:"records"`
		}
		if err := json.Unmarshal(files["alert_history.json"], &alertsFile); err != nil || alertsFile.Empty || len(alertsFile.Records) != 1 {
			t.Errorf("got alert_history.json %s, want the alert", files["alert_history.json"])
		}
		if err := json.Unmarshal(files["bias_audits.json"], &bias); err != nil || !bias.Empty || bias.Note == "" || len(bias.Records) != 0 {
			t.Errorf("got bias_audits.json %s, want it empty saying why", files["bias_audits.json"])
		}

		// A reader finds a file altered after the fact.
		files["alert_history.json"] = bytes.Replace(files["alert_history.json"], []byte(`"records"`), []byte(`"record5"`), 1)
		if _, altered := verifyPack(t, files); !slices.Equal(altered, []string{"alert_history.json"}) {
			t.Errorf("got altered %v, want the tampered file found", altered)
		}

		s.do("POST", "/export/evidence-pack", admin, map[string]any{"model_ids": []string{model}, "format": "docx"}).wantField(t, "format")
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
