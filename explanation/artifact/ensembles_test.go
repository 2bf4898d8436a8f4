package artifact

import (
	"os"
	"testing"
	"time"
)

// TestParsedEnsembleShared: explanations of one uploaded file share its
// parsed ensemble; another upload (a new time or new content) of the same
// model, or another model, is parsed anew.
func TestParsedEnsembleShared(t *testing.T) {
	content, err := os.ReadFile("../../stats/forest/testdata/models/xgb_reg.json")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)
	a := Artifact{OrgID: "o", ModelID: "m", Kind: KindXGBoost, Content: string(content), UploadedAt: at}
	parse := func(a Artifact) any {
		t.Helper()
		e, err := a.parsedEnsemble()
		if err != nil {
			t.Fatalf("parsedEnsemble: %v", err)
		}
		return e
	}
	first := parse(a)
	if again := parse(a); again != first {
		t.Fatal("the same artifact twice: got two parsed ensembles, want one shared")
	}
	other := func(name string, b Artifact) {
		t.Helper()
		if parse(b) == first {
			t.Errorf("%s: got the first upload's ensemble, want one parsed anew", name)
		}
	}
	b := a
	b.UploadedAt = at.Add(time.Microsecond)
	other("uploaded again", b)
	b = a
	b.Content = string(content) + " "
	other("other content", b)
	b = a
	b.ModelID = "m2"
	other("another model", b)
	b = a
	b.OrgID = "o2"
	other("another organization", b)

	a.Content = "{"
	if _, err := a.parsedEnsemble(); err == nil {
		t.Error("a file that does not parse: got no error, want one")
	}
}
