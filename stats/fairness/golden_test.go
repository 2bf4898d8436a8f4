package fairness

import (
	"encoding/json"
	"os"
	"testing"
)

// golden is testdata/golden.json, written by testdata/generate.py from
// fairlearn: per case an audit input and, per attribute, the figures.
type golden struct {
	Versions map[string]string
	Cases    []struct {
		Name     string
		Input    goldenInput
		Expected map[string]goldenAttribute
	}
}

type goldenInput struct {
	Attributes []struct {
		Name   string    `json:"name"`
		Values []*string `json:"values"`
	} `json:"attributes"`
	YPred        []any               `json:"y_pred"`
	YTrue        []any               `json:"y_true"`
	Favourable   any                 `json:"favourable"`
	Reference    map[string]string   `json:"reference"`
	MissingGroup string              `json:"missing_group"`
	Intersect    map[string][]string `json:"intersect"`
}

type goldenAttribute struct {
	Groups    map[string]map[string]*float64 `json:"groups"`
	Fairlearn map[string]*float64            `json:"fairlearn"`
	Vigil     map[string]*float64            `json:"vigil"`
	Headline  struct {
		Value  map[string]*float64 `json:"value"`
		Passed map[string]bool     `json:"passed"`
	} `json:"headline"`
}

// goldenPath is written by testdata/generate.py.
const goldenPath = "testdata/golden.json"

// readGolden decodes the golden file; it must hold cases.
func readGolden(t testing.TB) golden {
	t.Helper()
	var g golden
	data, err := os.ReadFile(goldenPath)
	if err == nil {
		err = json.Unmarshal(data, &g)
	}
	if err != nil || len(g.Cases) == 0 {
		t.Fatalf("%s: %v (%d cases)", goldenPath, err, len(g.Cases))
	}
	return g
}

// TestGolden audits every case twice, with Vigil's rule for undefined rates
// and with fairlearn's (UndefinedAsZero), and compares every figure.
func TestGolden(t *testing.T) {
	g := readGolden(t)
	t.Logf("golden cases: %d (fairlearn %s, pandas %s)", len(g.Cases), g.Versions["fairlearn"], g.Versions["pandas"])
	var checked, exact int
	var worst float64
	for _, c := range g.Cases {
		t.Run(c.Name, func(t *testing.T) {
			in := c.Input.toInput(t)
			vigil, err := Audit(in)
			if err != nil {
				t.Fatalf("Audit: %v", err)
			}
			in.UndefinedAsZero = true
			compat, err := Audit(in)
			if err != nil {
				t.Fatalf("Audit with UndefinedAsZero: %v", err)
			}
			if len(vigil.Attributes) != len(c.Expected) {
				t.Fatalf("attributes: got %d, want %d", len(vigil.Attributes), len(c.Expected))
			}
			for k, ar := range vigil.Attributes {
				want, ok := c.Expected[ar.Name]
				if !ok {
					t.Fatalf("attribute %q: not in golden", ar.Name)
				}
				ck := goldenCheck{t: t, attr: ar.Name}
				ck.groups(ar, want.Groups)
				ck.between("vigil", ar, want.Vigil)
				ck.between("fairlearn", compat.Attributes[k], want.Fairlearn)
				ck.headline(ar, want.Headline.Value, want.Headline.Passed)
				checked += ck.checked
				exact += ck.exact
				worst = max(worst, ck.worst)
			}
		})
	}
	t.Logf("figures compared: %d, bit-identical to fairlearn: %d, largest relative difference: %.3g", checked, exact, worst)
}

// toInput builds the audit input of a golden case, binarising the labels
// and building intersections as the API would.
func (gi goldenInput) toInput(t *testing.T) Input {
	t.Helper()
	in := Input{Reference: gi.Reference, MissingGroup: gi.MissingGroup}
	for _, a := range gi.Attributes {
		vals := make([]string, len(a.Values))
		for i, v := range a.Values {
			if v != nil {
				vals[i] = *v
			}
		}
		in.Attributes = append(in.Attributes, Attribute{Name: a.Name, Values: vals})
	}
	for name, parts := range gi.Intersect {
		var as []Attribute
		for _, p := range parts {
			for _, a := range in.Attributes {
				if a.Name == p {
					as = append(as, a)
				}
			}
		}
		x, err := Intersect(name, as...)
		if err != nil {
			t.Fatalf("Intersect: %v", err)
		}
		in.Attributes = append(in.Attributes, x)
	}
	in.Pred = gi.outcomes(t, "y_pred", gi.YPred)
	if gi.YTrue != nil {
		in.Truth = gi.outcomes(t, "y_true", gi.YTrue)
	}
	return in
}

// outcomes binarises a JSON column: 0/1, or against the favourable label.
func (gi goldenInput) outcomes(t *testing.T, field string, col []any) []bool {
	t.Helper()
	switch fav := gi.Favourable.(type) {
	case string:
		s := make([]string, len(col))
		for i, v := range col {
			s[i] = v.(string)
		}
		return Favourable(s, fav)
	case float64:
		return Favourable(floats(col), fav)
	}
	out, err := Binary(field, floats(col))
	if err != nil {
		t.Fatalf("Binary: %v", err)
	}
	return out
}

func floats(col []any) []float64 {
	out := make([]float64, len(col))
	for i, v := range col {
		out[i] = v.(float64)
	}
	return out
}
