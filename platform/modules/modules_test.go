package modules_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vigilhq/vigil/platform/modules"
)

// manager registers modules from a table of name -> dependencies, in the
// order given, each recording its init in *inits.
func manager(t *testing.T, inits *[]string, mods ...[]string) *modules.Manager {
	t.Helper()
	var m modules.Manager
	for _, mod := range mods {
		name := mod[0]
		m.Register(name, func(context.Context) error { *inits = append(*inits, name); return nil }, mod[1:]...)
	}
	return &m
}

func TestOrder(t *testing.T) {
	for _, c := range []struct {
		name    string
		mods    [][]string
		targets []string
		want    []string
	}{
		{"dependencies first", [][]string{{"api", "store", "http"}, {"store"}, {"http"}}, []string{"api"},
			[]string{"store", "http", "api"}},
		{"shared dependency once", [][]string{{"store"}, {"log"}, {"api", "store", "log"}, {"processor", "log", "store"}},
			[]string{"api", "processor"}, []string{"store", "log", "api", "processor"}},
		{"only what targets need", [][]string{{"store"}, {"limits"}, {"api", "store", "limits"}, {"processor", "store"}},
			[]string{"processor"}, []string{"store", "processor"}},
		{"transitive", [][]string{{"a", "b"}, {"b", "c"}, {"c"}}, []string{"a"}, []string{"c", "b", "a"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var inits []string
			m := manager(t, &inits, c.mods...)
			got, err := m.Order(c.targets...)
			if err != nil || !slices.Equal(got, c.want) {
				t.Errorf("Order(%v): got %v, %v; want %v, nil", c.targets, got, err, c.want)
			}
			if err := m.Init(t.Context(), c.targets...); err != nil || !slices.Equal(inits, c.want) {
				t.Errorf("Init(%v): ran %v, %v; want %v, nil", c.targets, inits, err, c.want)
			}
		})
	}
}

// TestMissingDependency: a module that needs one nobody registered fails
// at start-up, naming both, and initialises nothing.
func TestMissingDependency(t *testing.T) {
	for _, c := range []struct {
		name    string
		mods    [][]string
		targets []string
		want    string
	}{
		{"dependency", [][]string{{"store"}, {"api", "store", "cache"}}, []string{"api"},
			`module "api" depends on "cache", which is not registered (registered: store, api)`},
		{"deep dependency", [][]string{{"api", "store"}, {"store", "disk"}}, []string{"api"},
			`module "store" depends on "disk", which is not registered`},
		{"target", [][]string{{"store"}}, []string{"api"}, `unknown module "api" (registered: store)`},
		{"cycle", [][]string{{"a", "b"}, {"b", "c"}, {"c", "a"}}, []string{"a"},
			"modules depend on each other in a cycle: a -> b -> c -> a"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var inits []string
			m := manager(t, &inits, c.mods...)
			err := m.Init(t.Context(), c.targets...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Init(%v): got error %v, want one containing %q", c.targets, err, c.want)
			}
			if len(inits) != 0 {
				t.Errorf("Init(%v) ran %v before failing, want nothing run", c.targets, inits)
			}
		})
	}
}

// TestInitFails: the first init that fails stops the start, its error
// prefixed with the module's name; later modules do not run.
func TestInitFails(t *testing.T) {
	var m modules.Manager
	var ran []string
	boom := errors.New("boom")
	m.Register("store", func(context.Context) error { ran = append(ran, "store"); return boom })
	m.Register("api", func(context.Context) error { ran = append(ran, "api"); return nil }, "store")
	err := m.Init(t.Context(), "api")
	if !errors.Is(err, boom) || err.Error() != "store: boom" {
		t.Errorf("Init: got %v, want store: boom", err)
	}
	if !slices.Equal(ran, []string{"store"}) {
		t.Errorf("ran %v, want [store]", ran)
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Register of a name twice: got no panic, want one")
		}
	}()
	var m modules.Manager
	m.Register("store", nil)
	m.Register("store", nil)
}

// TestNeeds: the graph as data, in registration order, each module's
// needs as declared; a copy the caller may change.
func TestNeeds(t *testing.T) {
	var inits []string
	m := manager(t, &inits, []string{"a"}, []string{"b", "a"}, []string{"c", "b", "a"})
	got := m.Needs()
	if fmt.Sprint(got) != "[{a []} {b [a]} {c [b a]}]" {
		t.Fatalf("got %v, want a, b needing a, c needing b and a", got)
	}
	got[2].Needs[0] = "x"
	if again := m.Needs(); again[2].Needs[0] != "b" {
		t.Fatalf("got %v after changing the copy, want the graph unchanged", again)
	}
}
