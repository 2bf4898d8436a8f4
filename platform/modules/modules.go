// Package modules starts a process's parts in dependency order, the way
// Loki's and Tempo's module managers assemble their targets: each module
// names the modules it needs, and the manager initialises a target after
// everything it needs, each module once. A dependency that is not
// registered, or a cycle, fails before anything is initialised, naming
// the modules at fault.
//
// It imports nothing of Vigil.
package modules

import (
	"context"
	"fmt"
	"strings"
)

// Manager holds the registered modules. The zero value is ready to use.
type Manager struct {
	byName map[string]*module
	// names keeps registration order, which breaks ties: of two modules
	// that do not depend on each other, the one registered first starts
	// first.
	names []string
}

type module struct {
	name string
	deps []string
	init func(ctx context.Context) error
}

// Register adds a module: init prepares it and runs after the init of
// every module in deps. Registering a name twice panics: it is a
// programming error.
func (m *Manager) Register(name string, init func(ctx context.Context) error, deps ...string) {
	if m.byName == nil {
		m.byName = map[string]*module{}
	}
	if _, dup := m.byName[name]; dup {
		panic(fmt.Sprintf("modules: %q registered twice", name))
	}
	m.byName[name] = &module{name: name, deps: deps, init: init}
	m.names = append(m.names, name)
}

// Needs returns every registered module, in registration order, with the
// modules it needs: the dependency graph as data.
func (m *Manager) Needs() []Needs {
	out := make([]Needs, len(m.names))
	for i, name := range m.names {
		out[i] = Needs{Module: name, Needs: append([]string(nil), m.byName[name].deps...)}
	}
	return out
}

// Needs is one module and the modules it needs, in the order declared.
type Needs struct {
	Module string
	Needs  []string
}

// Order returns the modules to initialise for targets, each after its
// dependencies: a depth-first walk of targets in the order given and of
// each module's dependencies in the order declared. It fails, initialising
// nothing, on a target or dependency that is not registered and on a
// cycle.
func (m *Manager) Order(targets ...string) ([]string, error) {
	const (
		visiting = 1
		done     = 2
	)
	state := map[string]int{}
	var order []string
	var visit func(name string, path []string) error
	visit = func(name string, path []string) error {
		mod, ok := m.byName[name]
		if !ok {
			if len(path) == 0 {
				return fmt.Errorf("unknown module %q (registered: %s)", name, strings.Join(m.names, ", "))
			}
			return fmt.Errorf("module %q depends on %q, which is not registered (registered: %s)",
				path[len(path)-1], name, strings.Join(m.names, ", "))
		}
		switch state[name] {
		case done:
			return nil
		case visiting:
			return fmt.Errorf("modules depend on each other in a cycle: %s -> %s", strings.Join(path, " -> "), name)
		}
		state[name] = visiting
		for _, d := range mod.deps {
			if err := visit(d, append(path, name)); err != nil {
				return err
			}
		}
		state[name] = done
		order = append(order, name)
		return nil
	}
	for _, t := range targets {
		if err := visit(t, nil); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// Init initialises targets and what they depend on, in Order. It stops at
// the first init that fails and returns its error, prefixed with the
// module's name; the modules initialised before it are the caller's to
// release.
func (m *Manager) Init(ctx context.Context, targets ...string) error {
	order, err := m.Order(targets...)
	if err != nil {
		return err
	}
	for _, name := range order {
		if err := m.byName[name].init(ctx); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}
