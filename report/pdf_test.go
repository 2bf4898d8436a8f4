package report_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/vigilhq/vigil/report"
)

// TestPDF: the document is a PDF with its fonts embedded and nothing that
// points outside it (no URI, no remote font or image).
func TestPDF(t *testing.T) {
	var b bytes.Buffer
	if err := report.Render(&b, report.Build(fixture(), spec()), report.FormatPDF); err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("VIGIL_REPORT_OUT"); dir != "" { // to look at it by hand
		_ = os.WriteFile(dir+"/model_performance.pdf", b.Bytes(), 0o644)
	}
	out := b.Bytes()
	if !bytes.HasPrefix(out, []byte("%PDF-")) || !bytes.Contains(out, []byte("%%EOF")) {
		t.Fatalf("got %d bytes starting %q, want a PDF document", len(out), out[:min(len(out), 8)])
	}
	if n := bytes.Count(out, []byte("/FontFile2")); n < 2 {
		t.Errorf("got %d embedded font files, want the regular and the bold", n)
	}
	for _, ref := range []string{"/URI", "http://", "https://", "/Launch", "/GoToR"} {
		if bytes.Contains(out, []byte(ref)) {
			t.Errorf("got %s in the PDF, want nothing that points outside it", ref)
		}
	}
}
