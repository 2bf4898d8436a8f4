package fairness

import (
	"slices"
	"testing"
)

func TestIntersect(t *testing.T) {
	g := Attribute{Name: "gender", Values: []string{"f", "m", "f", "", "m", "f"}}
	r := Attribute{Name: "race", Levels: []string{"a", "b"}, Codes: []int32{0, 1, 1, 0, 1, -1}}
	x, err := Intersect("gender & race", g, r)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"f & a", "m & b", "f & b"}; !slices.Equal(x.Levels, want) {
		t.Errorf("levels: got %q, want %q", x.Levels, want)
	}
	if want := []int32{0, 1, 2, -1, 1, -1}; !slices.Equal(x.Codes, want) {
		t.Errorf("codes: got %v, want %v", x.Codes, want)
	}
	if x.Name != "gender & race" || x.Values != nil {
		t.Errorf("got name %q values %v", x.Name, x.Values)
	}
	_, err = Intersect("x", g)
	wantInvalid(t, err, "got 1 attributes, want at least 2")
	_, err = Intersect("x", g, Attribute{Name: "short", Values: []string{"a"}})
	wantInvalid(t, err, "got 1 values, want 6")
	_, err = Intersect("x", g, Attribute{Name: "bad", Levels: []string{"a"}, Codes: []int32{0, 0, 0, 0, 0, 1}})
	wantInvalid(t, err, "code 1 at row 5")
}

func TestOutcomes(t *testing.T) {
	got, err := Binary("y_pred", []float64{0, 1, 1, 0})
	if want := []bool{false, true, true, false}; err != nil || !slices.Equal(got, want) {
		t.Errorf("Binary: got %v, %v, want %v", got, err, want)
	}
	_, err = Binary("y_pred", []float64{0, 1, 2})
	wantInvalid(t, err, "y_pred[2]: got 2, want 0 or 1")
	if got, want := Favourable([]string{"approve", "deny", "review", "approve"}, "approve"), []bool{true, false, false, true}; !slices.Equal(got, want) {
		t.Errorf("Favourable strings: got %v, want %v", got, want)
	}
	if got, want := Favourable([]float64{1, 2, 2}, 2), []bool{false, true, true}; !slices.Equal(got, want) {
		t.Errorf("Favourable numbers: got %v, want %v", got, want)
	}
}
