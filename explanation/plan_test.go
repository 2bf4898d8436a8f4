package explanation

import (
	"testing"

	"github.com/vigilhq/vigil/explanation/artifact"
	"github.com/vigilhq/vigil/platform/web"
)

// TestPlanFor: the method a request names becomes the algorithm the
// artifact allows, and a request that does not fit answers 422 naming
// the field.
func TestPlanFor(t *testing.T) {
	lin := &artifact.Artifact{Kind: artifact.KindLinear, Features: []string{"a", "b"}, Coefficients: []float64{1, 2}, Link: "identity", NumFeatures: 2}
	tree := &artifact.Artifact{Kind: artifact.KindXGBoost, Features: []string{"a", "b"}, NumFeatures: 2}
	row := map[string]any{"a": 1.0, "b": 2.0}
	bg := []map[string]any{{"a": 0.0, "b": 0.0}}
	f := func(art *artifact.Artifact, req Request, method, algorithm, field string) {
		t.Helper()
		p, err := planFor(art, req, method, nil)
		got := ""
		if e := web.AsError(err); e != nil {
			for k := range e.Details {
				got = k
			}
		} else if err != nil {
			t.Fatalf("%s on %s: got error %v, want a 422 or none", method, art.Kind, err)
		}
		if got != field {
			t.Errorf("%s on %s: got 422 naming %q, want %q (err %v)", method, art.Kind, got, field, err)
		}
		if field == "" && p.algorithm != algorithm {
			t.Errorf("%s on %s: got algorithm %s, want %s", method, art.Kind, p.algorithm, algorithm)
		}
	}
	f(tree, Request{Instance: map[string]any{"a": 1.0}}, RequestSHAP, artifact.MethodTreeSHAP, "")
	f(lin, Request{Instance: row, Background: bg}, RequestSHAP, artifact.MethodLinearSHAP, "")
	f(lin, Request{Instance: row}, RequestSHAP, "", "background")
	f(tree, Request{Instance: row}, RequestKernelSHAP, "", "background")
	f(tree, Request{Instance: row, Background: bg}, RequestKernelSHAP, artifact.MethodKernelSHAP, "")
	f(tree, Request{Instance: map[string]any{"a": 1.0}, Background: bg}, RequestLIME, "", "instance.b")
	f(tree, Request{Instance: row, Background: []map[string]any{{"a": 0.0, "b": 0.0}, {"a": 1.0}}}, RequestLIME, "", "background[1].b")
	f(tree, Request{Instance: row, Background: []map[string]any{{"a": 0.0, "zz": 0.0}}}, RequestKernelSHAP, "", "background[0].zz")
	f(tree, Request{Instance: row, Background: make([]map[string]any, MaxBackground+1)}, RequestKernelSHAP, "", "background")
}

// TestPlanFallbacks: a request without background rows takes those of
// the first source that has a usable one: fields that are not features
// left out, rows the request path would refuse skipped (a linear model's
// missing value, LIME's incomplete rows); its source and rows are stated
// and the request's own rows always win; with none, 422 on background.
func TestPlanFallbacks(t *testing.T) {
	lin := &artifact.Artifact{Kind: artifact.KindLinear, Features: []string{"a", "b"}, Coefficients: []float64{1, 2}, Link: "identity", NumFeatures: 2}
	tree := &artifact.Artifact{Kind: artifact.KindXGBoost, Features: []string{"a", "b"}, NumFeatures: 2}
	row := map[string]any{"a": 1.0, "b": 2.0}
	from := func(source string, rows ...map[string]any) fallback {
		return fallback{source: source, rows: func() ([]map[string]any, error) { return rows, nil }}
	}
	reference := from(BackgroundDriftReference, map[string]any{"a": 3.0, "b": 4.0, "city": "Oslo"}, map[string]any{"a": 5.0},
		map[string]any{"a": "x", "b": 1.0})
	logged := from(BackgroundLogged, map[string]any{"a": 0.0, "b": 0.0})
	f := func(art *artifact.Artifact, req Request, method string, fallbacks []fallback, source string, rows int) {
		t.Helper()
		p, err := planFor(art, req, method, fallbacks)
		if source == "" {
			if e := web.AsError(err); e == nil || e.Details["background"] == nil {
				t.Errorf("%s on %s: got %v, want a 422 naming background", method, art.Kind, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("%s on %s: got error %v, want none", method, art.Kind, err)
		}
		if p.source != source || len(p.background) != rows {
			t.Errorf("%s on %s: got %d rows from %q, want %d from %q", method, art.Kind, len(p.background), p.source, rows, source)
		}
	}
	f(lin, Request{Instance: row}, RequestSHAP, []fallback{reference, logged}, BackgroundDriftReference, 1)
	f(tree, Request{Instance: row}, RequestKernelSHAP, []fallback{reference, logged}, BackgroundDriftReference, 2)
	f(tree, Request{Instance: row}, RequestLIME, []fallback{reference, logged}, BackgroundDriftReference, 1)
	f(tree, Request{Instance: row}, RequestKernelSHAP, []fallback{from(BackgroundDriftReference), logged}, BackgroundLogged, 1)
	f(tree, Request{Instance: row, Background: []map[string]any{{"a": 0.0}}}, RequestKernelSHAP, []fallback{reference}, BackgroundRequest, 1)
	if p, err := planFor(tree, Request{Instance: row}, RequestSHAP, []fallback{reference}); err != nil || p.source != "" || p.background != nil {
		t.Errorf("shap on a tree: got %v from %q (err %v), want path-dependent without background", p.background, p.source, err)
	}
	f(lin, Request{Instance: row}, RequestSHAP, []fallback{from(BackgroundDriftReference, map[string]any{"a": 1.0})}, "", 0)
	f(tree, Request{Instance: row}, RequestLIME, nil, "", 0)

	p, _ := planFor(tree, Request{Instance: row}, RequestKernelSHAP, []fallback{reference})
	if got := p.used[0]; len(got) != 2 || got["city"] != nil {
		t.Errorf("got row %v, want city left out", got)
	}
}
