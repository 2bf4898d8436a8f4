package explanation

import (
	"testing"

	"github.com/vigilhq/vigil/platform/web"
)

// TestPlanFor: the method a request names becomes the algorithm the
// artifact allows, and a request that does not fit answers 422 naming
// the field.
func TestPlanFor(t *testing.T) {
	lin := &Artifact{Kind: KindLinear, Features: []string{"a", "b"}, Coefficients: []float64{1, 2}, Link: "identity", NumFeatures: 2}
	tree := &Artifact{Kind: KindXGBoost, Features: []string{"a", "b"}, NumFeatures: 2}
	row := map[string]any{"a": 1.0, "b": 2.0}
	bg := []map[string]any{{"a": 0.0, "b": 0.0}}
	f := func(art *Artifact, req Request, method, algorithm, field string) {
		t.Helper()
		p, err := planFor(art, req, method)
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
	f(tree, Request{Instance: map[string]any{"a": 1.0}}, RequestSHAP, MethodTreeSHAP, "")
	f(lin, Request{Instance: row, Background: bg}, RequestSHAP, MethodLinearSHAP, "")
	f(lin, Request{Instance: row}, RequestSHAP, "", "background")
	f(tree, Request{Instance: row}, RequestKernelSHAP, "", "background")
	f(tree, Request{Instance: row, Background: bg}, RequestKernelSHAP, MethodKernelSHAP, "")
	f(tree, Request{Instance: map[string]any{"a": 1.0}, Background: bg}, RequestLIME, "", "instance.b")
	f(tree, Request{Instance: row, Background: []map[string]any{{"a": 0.0, "b": 0.0}, {"a": 1.0}}}, RequestLIME, "", "background[1].b")
	f(tree, Request{Instance: row, Background: []map[string]any{{"a": 0.0, "zz": 0.0}}}, RequestKernelSHAP, "", "background[0].zz")
	f(tree, Request{Instance: row, Background: make([]map[string]any, MaxBackground+1)}, RequestKernelSHAP, "", "background")
}
