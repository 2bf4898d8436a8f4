package ratelimit_test

import (
	"testing"

	"github.com/vigilhq/vigil/platform/ratelimit"
	"github.com/vigilhq/vigil/platform/ratelimit/ratelimittest"
)

func TestMemory(t *testing.T) {
	ratelimittest.Run(t, func(*testing.T) ratelimit.Store { return &ratelimit.Memory{} })
}
