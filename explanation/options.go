package explanation

import (
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/explanation/artifact"
	"github.com/vigilhq/vigil/platform/web"
)

// Bounds and defaults of a request's options (spec 3).
const (
	DefaultNumFeatures = 10
	MaxNumFeatures     = 100
	DefaultNumSamples  = artifact.DefaultNumSamples
	MinNumSamples      = 100
	MaxNumSamples      = 50000
	// MaxSeed is the largest seed: 2^53 - 1, the largest integer every
	// JSON reader keeps exactly.
	MaxSeed = 1<<53 - 1
)

// options are the fields of a generate or bulk request that tune the
// computation and the result: spec 3's num_features, num_samples and
// config, and Vigil's seed.
type options struct {
	NumFeatures *web.Int       `json:"num_features"`
	NumSamples  *web.Int       `json:"num_samples"`
	Seed        *web.Int       `json:"seed"`
	Config      *optionsConfig `json:"config"`
}

// decodeWithOptions decodes a body embedding options into v: the
// decoder names a field of the embedded struct options.NAME, which the
// 422 names NAME, as it is sent.
func decodeWithOptions(c *fiber.Ctx, v any) error {
	err := web.Decode(c, v)
	var e *web.Error
	if !errors.As(err, &e) {
		return err
	}
	d := make(map[string]any, len(e.Details))
	for k, x := range e.Details {
		d[strings.TrimPrefix(k, "options.")] = x
	}
	out := *e
	out.Details = d
	return &out
}

// optionsConfig is spec 3's config of an explanation request:
// background_samples caps the background rows taken, max_features is
// num_features under another name.
type optionsConfig struct {
	BackgroundSamples *web.Int `json:"background_samples"`
	MaxFeatures       *web.Int `json:"max_features"`
}

// apply checks o (problems added to v, naming the field) and sets its
// values on req: num_features (or config.max_features; they must agree
// when both are sent) 1-100, default 10; num_samples 100-50000, default
// 5000; seed 0 to MaxSeed, default DefaultSeed(modelID);
// config.background_samples 1 to MaxBackground.
func (o options) apply(v *web.Problems, modelID string, req *Request) {
	req.NumFeatures = v.Int("num_features", o.NumFeatures, DefaultNumFeatures, 1, MaxNumFeatures)
	req.NumSamples = v.Int("num_samples", o.NumSamples, DefaultNumSamples, MinNumSamples, MaxNumSamples)
	if c := o.Config; c != nil {
		req.BackgroundSamples = v.Int("config.background_samples", c.BackgroundSamples, 0, 1, MaxBackground)
		if c.MaxFeatures != nil {
			n := v.Int("config.max_features", c.MaxFeatures, DefaultNumFeatures, 1, MaxNumFeatures)
			if o.NumFeatures != nil && int(*o.NumFeatures) != n {
				v.Add("config.max_features", "must equal num_features when both are sent: they name the same count")
			}
			req.NumFeatures = n
		}
	}
	s := DefaultSeed(modelID)
	if o.Seed != nil {
		if *o.Seed < 0 || *o.Seed > MaxSeed {
			v.Add("seed", fmt.Sprintf("must be between 0 and %d", int64(MaxSeed)))
		}
		s = uint64(*o.Seed) & MaxSeed
	}
	req.Seed = &s
}

// DefaultSeed is the seed of a request of the model that sends none: the
// low 53 bits of the FNV-1a hash of the model's id. Every such request of
// one model samples alike (a repeated request gives the same values, and
// LIME's explanations of one tree model share their perturbation sample,
// as lime's explainer built with one random_state does).
func DefaultSeed(modelID string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(modelID))
	return h.Sum64() & MaxSeed
}

// sampling is the Sampling of e: its request's, or, for one stored
// before requests carried it, its id's hash and the default size.
func sampling(e Explanation) artifact.Sampling {
	s := artifact.Sampling{Seed: seed(e.ID), Samples: e.Request.NumSamples}
	if e.Request.Seed != nil {
		s.Seed = *e.Request.Seed
	}
	return s
}
