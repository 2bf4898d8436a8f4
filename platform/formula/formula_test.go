package formula_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/vigilhq/vigil/platform/formula"
)

func TestDefuse(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"plain", "plain"},
		{"=1+2", "'=1+2"},
		{"+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"},
		{"-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{"\t=1", "'\t=1"},
		{"\r=1", "'\r=1"},
		{"-0.25", "-0.25"},
		{"+3", "+3"},
		{"-1e-3", "-1e-3"},
		{"-Inf", "'-Inf"},
		{"-0x1p3", "'-0x1p3"},
		{"a=1", "a=1"},
	} {
		if got := formula.Defuse(c.in); got != c.want {
			t.Errorf("Defuse(%q): got %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzDefuse: whatever the cell, Defuse's result starts with no formula
// trigger unless it is a plain number, and only ever adds one apostrophe.
func FuzzDefuse(f *testing.F) {
	for _, s := range []string{"", "=1+2", "-0.25", "-2+3", "@x", "\t=1", "\r", "+3", "-Inf", "'=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cell string) {
		got := formula.Defuse(cell)
		if got != cell && got != "'"+cell {
			t.Fatalf("Defuse(%q): got %q, want the cell or the cell after one apostrophe", cell, got)
		}
		if got == cell && cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
			if _, err := strconv.ParseFloat(cell, 64); err != nil {
				t.Fatalf("Defuse(%q): left a formula-leading cell that is not a number", cell)
			}
		}
	})
}
