package app

import (
	"slices"
	"testing"

	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/platform/modules"
)

// TestModuleOrder: every combination of roles resolves to a start order
// in which each role comes after the backends it declares, and a role
// starts only the backends it needs.
func TestModuleOrder(t *testing.T) {
	for _, c := range []struct {
		roles []string
		want  []string
	}{
		{config.AllRoles, []string{moduleStore, moduleLimits, moduleEventLog, moduleAnalytics, moduleHTTP, config.RoleAPI, config.RoleProcessor}},
		{[]string{config.RoleAPI}, []string{moduleStore, moduleLimits, moduleEventLog, moduleAnalytics, moduleHTTP, config.RoleAPI}},
		{[]string{config.RoleProcessor}, []string{moduleStore, moduleEventLog, moduleAnalytics, moduleHTTP, config.RoleProcessor}},
	} {
		var m modules.Manager
		(&App{}).register(&m)
		got, err := m.Order(c.roles...)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("roles %v: got order %v, %v; want %v, nil", c.roles, got, err, c.want)
		}
	}
}
