package storetest

import (
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/vigilhq/vigil/explanation"
	"github.com/vigilhq/vigil/explanation/artifact"
	"github.com/vigilhq/vigil/explanation/autoexplain"
	"github.com/vigilhq/vigil/explanation/coverage"
	"github.com/vigilhq/vigil/governance/trust"
	"github.com/vigilhq/vigil/store"
)

// autoExplanation is a completed auto explanation of prediction pid.
func autoExplanation(orgID, modelID, id, pid string, n int) explanation.Explanation {
	e := newExplanation(orgID, modelID, id, explanation.RequestSHAP, n)
	done := at(n)
	e.PredictionID, e.Status, e.CompletedAt = pid, explanation.StatusCompleted, &done
	e.Outcome = &explanation.Outcome{Algorithm: artifact.MethodTreeSHAP, Exactness: artifact.Exact, BaseValue: 0.5,
		PredictedValue: 1, OutputSpace: "margin", FeatureWeights: map[string]float64{"age": 0.5}, Ranking: []string{"age"}}
	return e
}

// testAutoOncePerPrediction: two replicas racing to record auto
// explanations of the same 20 predictions store one per prediction, and
// exactly one of the two is told it stored each; AutoExplained names
// them; another organization's model is store.ErrNotFound.
func testAutoOncePerPrediction(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	m := newModel(a.ID, "fraud", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	const n = 20
	won := make([][n]bool, 2)
	var wg sync.WaitGroup
	for r := range 2 {
		wg.Go(func() {
			for i := range n {
				ok, err := s.RecordAutoExplanation(ctx(t), autoExplanation(a.ID, m.ID, fmt.Sprintf("auto-%d-%d", r, i), fmt.Sprintf("p-%d", i), i))
				if err != nil {
					t.Errorf("replica %d, prediction %d: RecordAutoExplanation: %v", r, i, err)
				}
				won[r][i] = ok
			}
		})
	}
	wg.Wait()
	for i := range n {
		if won[0][i] == won[1][i] {
			t.Errorf("prediction %d: got stored by replica 0 %v and replica 1 %v, want exactly one", i, won[0][i], won[1][i])
		}
	}
	list, total, err := s.Explanations(ctx(t), a.ID, explanation.Filter{ModelID: m.ID, Limit: 100})
	must(t, err, "Explanations")
	if total != n || len(list) != n {
		t.Errorf("got %d explanations (%d listed), want %d", total, len(list), n)
	}
	ids := []string{"p-0", "p-19", "p-none"}
	done, err := s.AutoExplained(ctx(t), a.ID, m.ID, ids)
	must(t, err, "AutoExplained")
	equal(t, "auto-explained predictions", done, map[string]bool{"p-0": true, "p-19": true})
	_, err = s.RecordAutoExplanation(ctx(t), autoExplanation(b.ID, m.ID, "auto-other", "p-x", 1))
	wantErr(t, err, store.ErrNotFound, "RecordAutoExplanation on another organization's model")
}

// testExplanationCoverage: the explained counts read distinct logged
// predictions with a completed explanation in the window; a coverage put
// takes a trust snapshot carrying the ratio when it changes and none when
// it does not; CoverageModels names the models with auto_explain on or a
// coverage.
func testExplanationCoverage(t *testing.T, s Store) {
	a := newOrg(t, s)
	m, quiet := newModel(a.ID, "fraud", "1", 1), newModel(a.ID, "quiet", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	must(t, s.CreateModel(ctx(t), quiet), "CreateModel")
	for i, pid := range []string{"p-1", "p-2", "p-3"} {
		_, err := s.RecordAutoExplanation(ctx(t), autoExplanation(a.ID, m.ID, fmt.Sprintf("cov-%d", i), pid, 10+i))
		must(t, err, "RecordAutoExplanation")
	}
	again := newExplanation(a.ID, m.ID, "cov-again", explanation.RequestKernelSHAP, 13)
	again.PredictionID = "p-1" // a requested explanation of an explained prediction
	must(t, s.CreateExplanation(ctx(t), again), "CreateExplanation")
	counts, err := s.ExplainedCounts(ctx(t), a.ID, []string{m.ID, quiet.ID}, at(11), at(100))
	must(t, err, "ExplainedCounts")
	equal(t, "explained counts from second 11", counts, map[string]int64{m.ID: 2})

	cfg := explanation.DefaultConfig(a.ID, m.ID)
	cfg.AutoExplain, cfg.UpdatedAt = true, at(1)
	must(t, s.PutExplanationConfig(ctx(t), cfg), "PutExplanationConfig")
	models, err := s.CoverageModels(ctx(t))
	must(t, err, "CoverageModels")
	want := [2]string{a.ID, m.ID}
	found := false
	for _, k := range models {
		found = found || k == want
		if k[1] == quiet.ID {
			t.Errorf("CoverageModels names %s, which has neither auto_explain nor a coverage", quiet.ID)
		}
	}
	if !found {
		t.Errorf("CoverageModels: got %v, want it to name %v", models, want)
	}

	cov := coverage.Coverage{OrgID: a.ID, ModelID: m.ID, Explained: 3, Logged: 4, Ratio: 0.75, From: at(0), To: at(20)}
	changed, err := s.PutExplanationCoverage(ctx(t), cov, at(20))
	must(t, err, "PutExplanationCoverage")
	if !changed {
		t.Errorf("first coverage: got changed false, want true")
	}
	latest, err := s.TrustLatest(ctx(t), a.ID, m.ID)
	must(t, err, "TrustLatest")
	if latest.CauseType != trust.CauseExplanations || latest.ExplainedRatio == nil || *latest.ExplainedRatio != 0.75 ||
		latest.Components.Explainability == nil || math.Abs(*latest.Components.Explainability-75) > 1e-9 {
		t.Errorf("snapshot after the coverage: got cause %s, ratio %v, component %v, want %s, 0.75, 75",
			latest.CauseType, latest.ExplainedRatio, latest.Components.Explainability, trust.CauseExplanations)
	}
	changed, err = s.PutExplanationCoverage(ctx(t), cov, at(21))
	must(t, err, "PutExplanationCoverage again")
	if changed {
		t.Errorf("same ratio again: got changed true, want false")
	}
	if again, _ := s.TrustLatest(ctx(t), a.ID, m.ID); again.Seq != latest.Seq {
		t.Errorf("same ratio again: got snapshot %d, want still %d", again.Seq, latest.Seq)
	}
	cov.Explained, cov.Ratio = 4, 1
	changed, err = s.PutExplanationCoverage(ctx(t), cov, at(22))
	must(t, err, "PutExplanationCoverage with a new ratio")
	if newer, _ := s.TrustLatest(ctx(t), a.ID, m.ID); !changed || newer.Seq != latest.Seq+1 || *newer.ExplainedRatio != 1 {
		t.Errorf("new ratio: got changed %v, snapshot %d with ratio %v, want true, %d, 1", changed, newer.Seq, newer.ExplainedRatio, latest.Seq+1)
	}
	must(t, s.DeleteModel(ctx(t), a.ID, quiet.ID), "DeleteModel")
	changed, err = s.PutExplanationCoverage(ctx(t), coverage.Coverage{OrgID: a.ID, ModelID: quiet.ID, Logged: 1}, at(23))
	if err != nil || changed {
		t.Errorf("coverage of a deleted model: got %v, %v, want false, nil", changed, err)
	}
}

// testExplanationCancel: a pending explanation is cancelled once (then
// store.ErrConflict), its outcome can no longer be stored, and another
// organization's cancel is store.ErrNotFound.
func testExplanationCancel(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	m := newModel(a.ID, "fraud", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	e := newExplanation(a.ID, m.ID, "cancel-1", explanation.RequestSHAP, 1)
	must(t, s.CreateExplanation(ctx(t), e), "CreateExplanation")
	wantErr(t, s.CancelExplanation(ctx(t), b.ID, e.ID, at(2)), store.ErrNotFound, "CancelExplanation by another organization")
	must(t, s.CancelExplanation(ctx(t), a.ID, e.ID, at(2)), "CancelExplanation")
	wantErr(t, s.CancelExplanation(ctx(t), a.ID, e.ID, at(3)), store.ErrConflict, "CancelExplanation again")
	done := autoExplanation(a.ID, m.ID, e.ID, "", 3)
	wantErr(t, s.FinishExplanation(ctx(t), done), store.ErrConflict, "FinishExplanation of a cancelled explanation")
	got, err := s.Explanation(ctx(t), a.ID, e.ID)
	must(t, err, "Explanation")
	if got.Status != explanation.StatusCancelled || got.CompletedAt == nil || !got.CompletedAt.Equal(stored(at(2))) {
		t.Errorf("got status %s, completed_at %v, want cancelled at %v", got.Status, got.CompletedAt, at(2))
	}
}

// readmeTree is docs/explanations.md's one-tree scikit-learn export over age and
// tenure.
const readmeTree = `{"format": "vigil-sklearn-trees", "version": 1, "estimator": "DecisionTreeRegressor", "n_features": 2,
	"feature_names": ["age", "tenure"], "base": 0, "scale": 1, "link": "identity", "trees": [{"children_left": [1, 3, -1, -1, -1],
	"children_right": [2, 4, -1, -1, -1], "feature": [0, 1, -1, -1, -1], "threshold": [40, 12, -2, -2, -2],
	"value": [0.575, 0.35, 0.8, 0.2, 0.5], "weighted_n_node_samples": [4, 2, 2, 1, 1]}]}`

// testAutoReplicas: two processor replicas' auto-explainers handed the
// same 20 logged predictions at once explain each exactly once between
// them (exact TreeSHAP), and a third handed them again explains none.
func testAutoReplicas(t *testing.T, s Store) {
	a := newOrg(t, s)
	m := newModel(a.ID, "tenure", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	must(t, s.PutModelArtifact(ctx(t), artifact.Artifact{OrgID: a.ID, ModelID: m.ID, Kind: artifact.KindSklearn,
		Features: []string{"age", "tenure"}, Content: readmeTree, NumFeatures: 2, NumTrees: 1, MaxDepth: 2, UploadedAt: at(1)}), "PutModelArtifact")
	cfg := explanation.DefaultConfig(a.ID, m.ID)
	rate := 1.0
	cfg.AutoExplain, cfg.AutoExplainRate, cfg.UpdatedAt = true, &rate, at(1)
	must(t, s.PutExplanationConfig(ctx(t), cfg), "PutExplanationConfig")
	var ps []autoexplain.Logged
	for i := range 20 {
		ps = append(ps, autoexplain.Logged{OrgID: a.ID, ModelID: m.ID, PredictionID: fmt.Sprintf("p-%d", i),
			Input: []byte(fmt.Sprintf(`{"age": %d, "tenure": %d}`, 20+2*i, i))})
	}
	tallies := make([]autoexplain.Tally, 2)
	var wg sync.WaitGroup
	for r := range tallies {
		wg.Go(func() {
			x := &autoexplain.Explainer{Store: s, PerSecond: 1000}
			var err error
			if tallies[r], err = x.Explain(ctx(t), ps); err != nil {
				t.Errorf("replica %d: Explain: %v", r, err)
			}
		})
	}
	wg.Wait()
	if got := tallies[0].Explained + tallies[1].Explained; got != len(ps) {
		t.Errorf("got %d and %d explained by the replicas, want %d between them", tallies[0].Explained, tallies[1].Explained, len(ps))
	}
	again, err := (&autoexplain.Explainer{Store: s, PerSecond: 1000}).Explain(ctx(t), ps)
	must(t, err, "Explain again")
	if again.Explained != 0 || again.Skipped != len(ps) {
		t.Errorf("a replay: got %d explained, %d skipped, want 0, %d", again.Explained, again.Skipped, len(ps))
	}
	list, total, err := s.Explanations(ctx(t), a.ID, explanation.Filter{ModelID: m.ID, Status: explanation.StatusCompleted, Limit: 50})
	must(t, err, "Explanations")
	if total != int64(len(ps)) {
		t.Fatalf("got %d completed explanations, want %d", total, len(ps))
	}
	for _, e := range list {
		if e.Outcome.Algorithm != artifact.MethodTreeSHAP || e.Outcome.Exactness != artifact.Exact {
			t.Errorf("%s: got %s %s, want exact tree_shap", e.PredictionID, e.Outcome.Algorithm, e.Outcome.Exactness)
		}
	}
}
