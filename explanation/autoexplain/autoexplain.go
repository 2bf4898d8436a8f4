package autoexplain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/explanation"
	"github.com/vigilhq/vigil/explanation/artifact"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// Defaults of an Explainer's zero fields.
const (
	// DefaultRate is the share of a model's logged predictions
	// explained when its configuration names none.
	DefaultRate = 0.1
	// DefaultPerSecond bounds the explanations computed per
	// second by one Explainer.
	DefaultPerSecond = 20
	defaultConfigTTL = 30 * time.Second
)

// A Logged prediction is what the Explainer reads of one prediction
// on the event log.
type Logged struct {
	OrgID, ModelID, PredictionID string
	// Input is the prediction's input_data: an object of feature values.
	Input json.RawMessage
}

// Store is what auto-explaining needs of the transactional store.
type Store interface {
	explanation.ConfigStore
	artifact.Store
	// AutoExplained says which of the model's predictions have an auto
	// explanation already.
	AutoExplained(ctx context.Context, orgID, modelID string, predictionIDs []string) (map[string]bool, error)
	// RecordAutoExplanation stores e, a finished explanation of origin
	// auto, unless its prediction has one already (then false): one per
	// logged prediction, however many replicas or replays explain it.
	RecordAutoExplanation(ctx context.Context, e explanation.Explanation) (bool, error)
}

// Explainer explains a sampled share of the logged predictions of the
// models whose configuration has auto_explain (and enabled) on, with the
// exact method of the model's artifact (shap: TreeSHAP on a tree model).
// It is the processor role's: a consumer group of its own on the event
// log hands it predictions (processors/explaining), so that it neither
// waits for nor holds back the analytical writes and their offsets.
//
// Sampling is by the prediction's id (Sampled), so that replicas and
// replays pick the same predictions. Work is bounded: at most PerSecond
// explanations are computed a second (a token bucket holding one second
// of them); a sampled prediction beyond that is shed, not queued, and
// counted, so a burst never builds a backlog (the explained ratio shows
// the shortfall). A prediction is explained at most once: those with an
// auto explanation are skipped, and the store keeps one per prediction
// should two replicas race.
type Explainer struct {
	Store Store
	// DefaultRate applies to a model whose configuration names no
	// auto_explain_rate (0: DefaultRate; negative: none).
	DefaultRate float64
	// PerSecond bounds the explanations computed a second (0:
	// DefaultPerSecond).
	PerSecond float64
	// ConfigTTL is how long a model's configuration and artifact are
	// trusted before they are read again (0: 30 s).
	ConfigTTL time.Duration
	Clock     clock.Clock
	Log       *slog.Logger

	mu     sync.Mutex
	models map[[2]string]*autoModel
	tokens float64
	filled time.Time
}

// autoModel is a model's configuration and artifact as last read.
type autoModel struct {
	cfg  explanation.Config
	art  *artifact.Artifact // nil when the model has none
	read time.Time
}

// Tally counts what one call of Explain did.
type Tally struct {
	// Sampled predictions of auto-explained models, of which Explained
	// were stored (completed or failed), Skipped had an explanation
	// already and Shed were over the budget.
	Sampled, Explained, Skipped, Shed int
	// Models names the models Explain stored explanations of, as
	// [org_id, model_id].
	Models [][2]string
}

// Sampled says whether a prediction falls in a model's sampled share
// rate (0-1): by a hash of its id (FNV-1a, then splitmix64's finalizer)
// read as a number in [0, 1), the same on every replica.
func Sampled(predictionID string, rate float64) bool {
	if rate >= 1 {
		return true
	}
	if !(rate > 0) {
		return false
	}
	h := fnv.New64a()
	h.Write([]byte(predictionID))
	// FNV's high bits barely move between ids that differ in their last
	// characters; splitmix64's finalizer spreads every bit over all.
	z := h.Sum64()
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return float64(z>>11)/(1<<53) < rate
}

func (x *Explainer) log() *slog.Logger {
	if x.Log == nil {
		return slog.Default()
	}
	return x.Log
}

// Explain explains the sampled predictions of ps. It answers an error
// only when the store fails (the caller retries the batch; what was
// stored is skipped then); a prediction that cannot be explained (its
// input does not fit the artifact) is stored as a failed explanation
// saying why.
func (x *Explainer) Explain(ctx context.Context, ps []Logged) (Tally, error) {
	var t Tally
	byModel := map[[2]string][]Logged{}
	var order [][2]string
	for _, p := range ps {
		k := [2]string{p.OrgID, p.ModelID}
		if _, ok := byModel[k]; !ok {
			order = append(order, k)
		}
		byModel[k] = append(byModel[k], p)
	}
	for _, k := range order {
		m, err := x.model(ctx, k)
		if err != nil {
			return t, err
		}
		if m == nil {
			continue
		}
		n, err := x.explainModel(ctx, m, byModel[k], &t)
		if err != nil {
			return t, err
		}
		if n > 0 {
			t.Models = append(t.Models, k)
		}
	}
	return t, nil
}

// explainModel explains the sampled predictions of one model; it answers
// how many it stored.
func (x *Explainer) explainModel(ctx context.Context, m *autoModel, ps []Logged, t *Tally) (int, error) {
	rate := x.rate(m.cfg)
	var sampled []Logged
	var ids []string
	for _, p := range ps {
		if Sampled(p.PredictionID, rate) {
			sampled, ids = append(sampled, p), append(ids, p.PredictionID)
		}
	}
	t.Sampled += len(sampled)
	if len(sampled) == 0 {
		return 0, nil
	}
	done, err := x.Store.AutoExplained(ctx, m.cfg.OrgID, m.cfg.ModelID, ids)
	if err != nil {
		return 0, err
	}
	stored := 0
	for _, p := range sampled {
		if done[p.PredictionID] {
			t.Skipped++
			continue
		}
		done[p.PredictionID] = true // a repeat within the batch
		if !x.take() {
			t.Shed++
			continue
		}
		e, err := x.explainOne(m, p)
		if err != nil {
			return stored, err
		}
		ok, err := x.Store.RecordAutoExplanation(ctx, e)
		if errors.Is(err, store.ErrNotFound) {
			return stored, nil // the model was deleted meanwhile
		} else if err != nil {
			return stored, err
		}
		if ok {
			stored++
			t.Explained++
		} else {
			t.Skipped++
		}
	}
	return stored, nil
}

// explainOne computes one prediction's explanation: completed, or failed
// with the reason.
func (x *Explainer) explainOne(m *autoModel, p Logged) (explanation.Explanation, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return explanation.Explanation{}, err
	}
	now := x.Clock.Now()
	e := explanation.Explanation{ID: id.String(), OrgID: p.OrgID, ModelID: p.ModelID, PredictionID: p.PredictionID, Method: explanation.RequestSHAP,
		Status: explanation.StatusCompleted, CreatedAt: now, UpdatedAt: now, CompletedAt: &now}
	var instance map[string]any
	if err := json.Unmarshal(p.Input, &instance); err != nil || instance == nil {
		e.Status, e.Error = explanation.StatusFailed, "the logged prediction's input_data is not an object of feature values"
		return e, nil
	}
	seed := explanation.DefaultSeed(p.ModelID)
	e.Request.Instance, e.Request.Seed = instance, &seed
	out, err := explanation.ExplainWithArtifact(m.art, e)
	if err != nil {
		e.Status, e.Error = explanation.StatusFailed, failure(err)
		return e, nil
	}
	e.Outcome = out
	return e, nil
}

// failure is a computation's error as an explanation states it: a 422's
// fields and reasons included.
func failure(err error) string {
	var v *web.Error
	if errors.As(err, &v) && len(v.Details) > 0 {
		return fmt.Sprintf("%v: %v", err, v.Details)
	}
	return err.Error()
}

// rate is the share of the model's predictions to explain.
func (x *Explainer) rate(c explanation.Config) float64 {
	if c.AutoExplainRate != nil {
		return *c.AutoExplainRate
	}
	if x.DefaultRate == 0 {
		return DefaultRate
	}
	return x.DefaultRate
}

// take spends one token of the budget; false when none is left.
func (x *Explainer) take() bool {
	per := x.PerSecond
	if per <= 0 {
		per = DefaultPerSecond
	}
	capacity := math.Max(per, 1)
	now := x.Clock.Now()
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.filled.IsZero() {
		x.tokens = capacity
	} else {
		x.tokens = math.Min(capacity, x.tokens+now.Sub(x.filled).Seconds()*per)
	}
	x.filled = now
	if x.tokens < 1 {
		return false
	}
	x.tokens--
	return true
}

// model returns the model's configuration and artifact when it is
// auto-explained, nil when it is not (auto_explain or enabled off, no
// artifact), reading them again once ConfigTTL has passed.
// Explains says whether the model's predictions are auto-explained (its
// configuration, as Explain reads it): a caller may leave the others
// undecoded. It answers an error only when the store fails.
func (x *Explainer) Explains(ctx context.Context, orgID, modelID string) (bool, error) {
	m, err := x.model(ctx, [2]string{orgID, modelID})
	return m != nil, err
}

func (x *Explainer) model(ctx context.Context, k [2]string) (*autoModel, error) {
	ttl := x.ConfigTTL
	if ttl <= 0 {
		ttl = defaultConfigTTL
	}
	now := x.Clock.Now()
	x.mu.Lock()
	m := x.models[k]
	x.mu.Unlock()
	if m == nil || now.Sub(m.read) >= ttl {
		var err error
		if m, err = x.read(ctx, k, now); err != nil {
			return nil, err
		}
		x.mu.Lock()
		if x.models == nil {
			x.models = map[[2]string]*autoModel{}
		}
		x.models[k] = m
		x.mu.Unlock()
	}
	if !m.cfg.AutoExplain || !m.cfg.Enabled || m.art == nil {
		return nil, nil
	}
	return m, nil
}

// read reads the model's configuration and, when auto-explained, its
// artifact.
func (x *Explainer) read(ctx context.Context, k [2]string, now time.Time) (*autoModel, error) {
	m := &autoModel{read: now}
	cfg, err := x.Store.ExplanationConfig(ctx, k[0], k[1])
	switch {
	case errors.Is(err, store.ErrNotFound):
		m.cfg = explanation.DefaultConfig(k[0], k[1])
		return m, nil
	case err != nil:
		return nil, fmt.Errorf("explanation config of model %s: %w", k[1], err)
	}
	m.cfg = cfg
	if !cfg.AutoExplain || !cfg.Enabled {
		return m, nil
	}
	art, err := x.Store.ModelArtifact(ctx, k[0], k[1])
	switch {
	case errors.Is(err, store.ErrNotFound):
		x.log().Warn("auto_explain is on but the model has no artifact: its predictions are not explained",
			"org_id", k[0], "model_id", k[1])
	case err != nil:
		return nil, fmt.Errorf("artifact of model %s: %w", k[1], err)
	default:
		m.art = &art
	}
	return m, nil
}
