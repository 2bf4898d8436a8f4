package artifact

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
// one random_state for every explanation: the sample is the request's
// seed and size's (DefaultSeed when none is sent), whether it was drawn
// for this explanation or kept from another. A served model may change
// behind its endpoint, and a linear artifact or a surrogate costs little
// to evaluate: theirs are drawn per explanation.
var limeSamples = cache.Cache[string, *limeSample]{TTL: limeSampleTTL, Max: limeSampleMax}

// limeSampleTTL, limeSampleMax and limeShareMax bound what limeSamples
// keeps: a sample drawn limeSampleTTL ago is drawn again (the same
// numbers: its seed is in its key) and labelled again; at most
// limeSampleMax are kept, each of at most limeShareMax values (8 MB; a
// model of more than 209 features at 5000 rows draws per explanation).
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

// limeDraw returns the sample of s to explain by with mean and scale:
// the one shared by a's explanations of the same sampling when a is an
// uploaded file (limeSamples), else one drawn for this explanation; the
// same numbers either way.
func (a *Artifact) limeDraw(mean, scale []float64, model shap.Model, s Sampling, rep *Reporter) (*limeSample, error) {
	draw := func() (*limeSample, error) {
		rows, scaled, err := lime.Sample(mean, mean, scale, s.Size(), false, s.Seed)
		if err != nil {
			return nil, invalidInput(err)
		}
		labels, err := rep.label(model, rows)
		if err != nil {
			return nil, err
		}
		return &limeSample{scaled: scaled, labels: labels}, nil
	}
	if a.Content == "" || a.OrgID == "" || s.Size()*len(mean) > limeShareMax {
		return draw()
	}
	return limeSamples.Get(a.limeKey(mean, scale, s), time.Now(), draw)
}

// limeKey names the shared sample of a's file drawn with mean, scale and
// s.
func (a *Artifact) limeKey(mean, scale []float64, s Sampling) string {
	h := fnv.New64a()
	var b [8]byte
	for _, vs := range [][]float64{mean, scale} {
		for _, v := range vs {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
			h.Write(b[:])
		}
	}
	return fmt.Sprintf("%s/lime/%d/%d/%016x", a.contentKey(), s.Size(), s.Seed, h.Sum64())
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
