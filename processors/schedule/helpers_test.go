package schedule

import (
	"time"

	"github.com/vigilhq/vigil/query"
)

func ptr[T any](v T) *T { return &v }

func rng(from, to time.Time) query.Range { return query.Range{From: from, To: to} }
