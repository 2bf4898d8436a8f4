package schedule

import (
	"time"

	"github.com/vigilhq/vigil/analytics"
)

func ptr[T any](v T) *T { return &v }

func rng(from, to time.Time) analytics.Range { return analytics.Range{From: from, To: to} }
