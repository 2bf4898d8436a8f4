package formula_test

import (
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
