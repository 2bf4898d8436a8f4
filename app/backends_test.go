package app

import (
	"testing"

	"github.com/vigilhq/vigil/platform/config"
)

// backends are the configurations every HTTP case runs on: the embedded
// default, and PostgreSQL with Redis.
var backends = []struct {
	name string
	cfg  func(t *testing.T) config.Config
}{
	{"sqlite+memory", testConfig},
	{"postgres+redis", engineConfig},
}

// eachBackend runs f against a fresh server on every backend, changing the
// configuration with tweak first when it is not nil.
func eachBackend(t *testing.T, tweak func(*config.Config), f func(t *testing.T, s *server)) {
	t.Helper()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			cfg := b.cfg(t)
			if tweak != nil {
				tweak(&cfg)
			}
			f(t, start(t, cfg))
		})
	}
}
