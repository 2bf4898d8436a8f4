package explanation

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"time"

	"github.com/vigilhq/vigil/platform/cache"
	"github.com/vigilhq/vigil/stats/lime"
	"github.com/vigilhq/vigil/stats/shap"
)

// LIME's perturbation sample is drawn around the background's mean, so
// it depends on the explained instance in its first row alone
// (lime.WithInstance), and evaluating the model on its 5,000 rows is
// nearly all of an explanation's cost (87-89% of lime's own). For an
// uploaded tree ensemble, whose model the file fixes, limeSamples keeps
// the sample and the model's outputs on it, per file and background: the
// explanations of one model share them, each fitting its own surrogate
// around its own instance. That is lime's LimeTabularExplainer built with
// one random_state for every explanation. A served model may change
// behind its endpoint, and a linear artifact or a surrogate costs little
// to evaluate: theirs are drawn per explanation, from its id.
var limeSamples = cache.Cache[string, *limeSample]{TTL: limeSampleTTL, Max: limeSampleMax}

// limeSampleTTL, limeSampleMax and limeShareMax bound what limeSamples
// keeps: a sample drawn limeSampleTTL ago is drawn again (the same
// numbers: its seed is its key's) and labelled again; at most
// limeSampleMax are kept, each of at most limeShareMax values (8 MB; a
// model of more than 209 features draws per explanation).
const (
	limeSampleTTL = 30 * time.Minute
	limeSampleMax = 8
	limeShareMax  = 1 << 20
)

// limeSample is a perturbation sample in lime's scaled space and the
// model's outputs on its rows; row 0 is a placeholder for the instance.
// It is only read once made.
type limeSample struct {
	scaled [][]float64
	labels []float64
}

// limeDraw returns the sample to explain by with mean and scale: the one
// shared by a's explanations when a is an uploaded file (limeSamples),
// else one drawn from the explanation's own seed.
func (a *Artifact) limeDraw(mean, scale []float64, model shap.Model, own uint64, rep *reporter) (*limeSample, error) {
	draw := func(from uint64) (*limeSample, error) {
		rows, scaled, err := lime.Sample(mean, mean, scale, limeRows, false, from)
		if err != nil {
			return nil, invalidInput(err)
		}
		labels, err := rep.label(model, rows)
		if err != nil {
			return nil, err
		}
		return &limeSample{scaled: scaled, labels: labels}, nil
	}
	if a.Content == "" || a.OrgID == "" || limeRows*len(mean) > limeShareMax {
		return draw(own)
	}
	key := a.limeKey(mean, scale)
	// The seed is the key's: the same file and background draw the same
	// sample again after the cache has let it go.
	return limeSamples.Get(key, time.Now(), func() (*limeSample, error) { return draw(seed(key)) })
}

// limeKey names the shared sample of a's file drawn with mean and scale.
func (a *Artifact) limeKey(mean, scale []float64) string {
	h := fnv.New64a()
	var b [8]byte
	for _, vs := range [][]float64{mean, scale} {
		for _, v := range vs {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
			h.Write(b[:])
		}
	}
	return fmt.Sprintf("%s/lime/%d/%016x", a.contentKey(), limeRows, h.Sum64())
}

// limeScale returns the background's column means and standard
// deviations (population), which LIME samples from and scales by.
func limeScale(background [][]float64, features int) (mean, scale []float64, err error) {
	if mean, err = shap.Mean(background, features); err != nil {
		return nil, nil, err
	}
	scale = make([]float64, features)
	for _, r := range background {
		for j, v := range r {
			scale[j] += (v - mean[j]) * (v - mean[j])
		}
	}
	for j := range scale {
		scale[j] = math.Sqrt(scale[j] / float64(len(background)))
	}
	return mean, scale, nil
}
