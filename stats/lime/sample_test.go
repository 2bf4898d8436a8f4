package lime_test

import (
	"slices"
	"testing"

	"github.com/vigilhq/vigil/stats/lime"
)

// TestWithInstance: a sample drawn around the mean for one instance, with
// row 0 replaced by another instance, is the sample drawn for that other
// instance: the same numbers in every row.
func TestWithInstance(t *testing.T) {
	mean, scale := []float64{1, -2, 0.5}, []float64{2, 0, 0.25}
	x, y := []float64{3, 1, 0}, []float64{-1, 4, 2}
	_, forX, err := lime.Sample(x, mean, scale, 50, false, 7)
	if err != nil {
		t.Fatal(err)
	}
	_, forY, err := lime.Sample(y, mean, scale, 50, false, 7)
	if err != nil {
		t.Fatal(err)
	}
	got, err := lime.WithInstance(forX, y, mean, scale)
	if err != nil {
		t.Fatal(err)
	}
	for i := range forY {
		if !slices.Equal(got[i], forY[i]) {
			t.Fatalf("row %d: got %v, want %v", i, got[i], forY[i])
		}
	}
	if !slices.Equal(forX[0], []float64{1, 3, -2}) {
		t.Errorf("got row 0 of the first sample changed to %v, want [1 3 -2]", forX[0])
	}
	if _, err := lime.WithInstance(forX, []float64{1}, mean, scale); err == nil {
		t.Error("an instance of 1 feature against 3: got no error, want ErrInvalid")
	}
}
