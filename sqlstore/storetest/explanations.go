package storetest

import (
	"testing"

	"github.com/vigilhq/vigil/explanation"
	"github.com/vigilhq/vigil/explanation/artifact"
	"github.com/vigilhq/vigil/store"
)

var explanationTests = []test{
	{"Explanations/Lifecycle", testExplanationLifecycle},
	{"Explanations/ListAndOtherOrg", testExplanationList},
	{"Explanations/Config", testExplanationConfig},
	{"Explanations/AutoOncePerPrediction", testAutoOncePerPrediction},
	{"Explanations/Coverage", testExplanationCoverage},
	{"Explanations/Cancel", testExplanationCancel},
	{"Explanations/Progress", testExplanationProgress},
	{"Explanations/AutoReplicas", testAutoReplicas},
}

// testExplanationConfig: none stored is store.ErrNotFound; a put is read
// back as given and a second put replaces it; another organization
// neither puts on nor reads the model's; the model's deletion removes it.
func testExplanationConfig(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	m := newModel(a.ID, "fraud", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	_, err := s.ExplanationConfig(ctx(t), a.ID, m.ID)
	wantErr(t, err, store.ErrNotFound, "ExplanationConfig of a model without one")
	c := explanation.Config{OrgID: a.ID, ModelID: m.ID, Enabled: false, DefaultMethod: "lime", AutoExplain: true,
		CacheEnabled: false, CacheTTLHours: 8760, UpdatedAt: at(3)}
	must(t, s.PutExplanationConfig(ctx(t), c), "PutExplanationConfig")
	got, err := s.ExplanationConfig(ctx(t), a.ID, m.ID)
	must(t, err, "ExplanationConfig")
	c.UpdatedAt = stored(c.UpdatedAt)
	equal(t, "stored configuration", got, c)
	c2 := explanation.Config{OrgID: a.ID, ModelID: m.ID, Enabled: true, DefaultMethod: "kernel_shap", CacheEnabled: true,
		CacheTTLHours: 1, UpdatedAt: at(4)}
	must(t, s.PutExplanationConfig(ctx(t), c2), "PutExplanationConfig again")
	got, err = s.ExplanationConfig(ctx(t), a.ID, m.ID)
	must(t, err, "ExplanationConfig")
	c2.UpdatedAt = stored(c2.UpdatedAt)
	equal(t, "replaced configuration", got, c2)

	steal := c
	steal.OrgID = b.ID
	wantErr(t, s.PutExplanationConfig(ctx(t), steal), store.ErrNotFound, "PutExplanationConfig on another organization's model")
	_, err = s.ExplanationConfig(ctx(t), b.ID, m.ID)
	wantErr(t, err, store.ErrNotFound, "ExplanationConfig of another organization's model")
	got, err = s.ExplanationConfig(ctx(t), a.ID, m.ID)
	must(t, err, "ExplanationConfig")
	equal(t, "configuration after another organization's put", got, c2)

	must(t, s.DeleteModel(ctx(t), a.ID, m.ID), "DeleteModel")
	_, err = s.ExplanationConfig(ctx(t), a.ID, m.ID)
	wantErr(t, err, store.ErrNotFound, "ExplanationConfig of a deleted model")
}

// newExplanation is a pending explanation of a model created at second n.
func newExplanation(orgID, modelID, id, method string, n int) explanation.Explanation {
	return explanation.Explanation{ID: id, OrgID: orgID, ModelID: modelID, Method: method, Status: explanation.StatusPending,
		Request: explanation.Request{Instance: map[string]any{"age": 41.5, "income": nil},
			Background: []map[string]any{{"age": 1.0 / 3, "income": 2e5}}},
		CreatedAt: at(n), UpdatedAt: at(n)}
}

func storedExplanation(e explanation.Explanation) explanation.Explanation {
	e.CreatedAt, e.UpdatedAt, e.CompletedAt = stored(e.CreatedAt), stored(e.UpdatedAt), storedPtr(e.CompletedAt)
	return e
}

// testExplanationLifecycle: a pending explanation is stored as given,
// listed as pending oldest first, finished once (a second finish is
// store.ErrConflict and changes nothing), then no longer pending and
// counted in the stats with its computation time; the
// model's deletion removes it.
func testExplanationLifecycle(t *testing.T, s Store) {
	a := newOrg(t, s)
	m := newModel(a.ID, "fraud", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	e1 := newExplanation(a.ID, m.ID, "0190a000-0000-7000-8000-000000000001", "shap", 10)
	e1.PredictionID = "p-0001"
	e2 := newExplanation(a.ID, m.ID, "0190a000-0000-7000-8000-000000000002", "lime", 5)
	must(t, s.CreateExplanation(ctx(t), e1), "CreateExplanation")
	must(t, s.CreateExplanation(ctx(t), e2), "CreateExplanation")
	got, err := s.Explanation(ctx(t), a.ID, e1.ID)
	must(t, err, "Explanation")
	equal(t, "stored explanation", got, storedExplanation(e1))
	pending, err := s.PendingExplanations(ctx(t), 10)
	must(t, err, "PendingExplanations")
	var ids []string
	for _, p := range pending {
		if p.OrgID == a.ID {
			ids = append(ids, p.ID)
		}
	}
	equal(t, "pending ids, oldest first", ids, []string{e2.ID, e1.ID})

	done := at(20)
	e1.Status, e1.UpdatedAt, e1.CompletedAt = explanation.StatusCompleted, done, &done
	e1.Outcome = &explanation.Outcome{Algorithm: "tree_shap", Exactness: "exact", Perturbation: "tree_path_dependent",
		BaseValue: 0.011828482181073241, PredictedValue: 5.485094617120922, OutputSpace: "margin",
		FeatureWeights: map[string]float64{"age": 0.7988150886672281, "income": -1e-300}, Ranking: []string{"age", "income"},
		ComputationTimeMS: 1.25}
	must(t, s.FinishExplanation(ctx(t), e1), "FinishExplanation")
	got, err = s.Explanation(ctx(t), a.ID, e1.ID)
	must(t, err, "Explanation")
	equal(t, "completed explanation", got, storedExplanation(e1))
	mean := 1.25
	st, err := s.ExplanationStats(ctx(t), a.ID, m.ID)
	must(t, err, "ExplanationStats")
	equal(t, "stats", st, explanation.Stats{Total: 2, ByMethod: map[string]int64{"shap": 1, "lime": 1},
		ByStatus: map[string]int64{"pending": 1, "completed": 1}, MeanComputationMS: &mean})
	again := e1
	again.Status, again.Outcome, again.Error = explanation.StatusFailed, nil, "late"
	wantErr(t, s.FinishExplanation(ctx(t), again), store.ErrConflict, "FinishExplanation of a finished explanation")
	got, err = s.Explanation(ctx(t), a.ID, e1.ID)
	must(t, err, "Explanation")
	equal(t, "status after a second finish", got.Status, explanation.StatusCompleted)
	missing := e1
	missing.ID = "0190a000-0000-7000-8000-0000000000ff"
	wantErr(t, s.FinishExplanation(ctx(t), missing), store.ErrNotFound, "FinishExplanation of a missing explanation")

	must(t, s.DeleteModel(ctx(t), a.ID, m.ID), "DeleteModel")
	_, err = s.Explanation(ctx(t), a.ID, e2.ID)
	wantErr(t, err, store.ErrNotFound, "Explanation of a deleted model")
}

// testExplanationList: filters (prediction_id among them), newest first, limit and offset; another
// organization neither creates on, reads, lists nor finishes the model's
// explanations.
func testExplanationList(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	m1, m2 := newModel(a.ID, "fraud", "1", 1), newModel(a.ID, "churn", "1", 2)
	must(t, s.CreateModel(ctx(t), m1), "CreateModel")
	must(t, s.CreateModel(ctx(t), m2), "CreateModel")
	ids := []string{"0190b000-0000-7000-8000-000000000001", "0190b000-0000-7000-8000-000000000002", "0190b000-0000-7000-8000-000000000003"}
	must(t, s.CreateExplanation(ctx(t), newExplanation(a.ID, m1.ID, ids[0], "shap", 1)), "CreateExplanation")
	for i, m := range []string{m1.ID, m2.ID} { // prediction ids are unique per model: p-7 of each
		e := newExplanation(a.ID, m, ids[1+i], []string{"lime", "shap"}[i], 2+i)
		e.PredictionID = "p-7"
		must(t, s.CreateExplanation(ctx(t), e), "CreateExplanation")
	}
	f := func(fl explanation.Filter, want []string, total int64) {
		t.Helper()
		got, n, err := s.Explanations(ctx(t), a.ID, fl)
		must(t, err, "Explanations")
		var gotIDs []string
		for _, e := range got {
			gotIDs = append(gotIDs, e.ID)
		}
		equal(t, "ids of Explanations", gotIDs, want)
		equal(t, "total of Explanations", n, total)
	}
	f(explanation.Filter{}, []string{ids[2], ids[1], ids[0]}, 3)
	f(explanation.Filter{ModelID: m1.ID}, []string{ids[1], ids[0]}, 2)
	f(explanation.Filter{Method: "shap"}, []string{ids[2], ids[0]}, 2)
	f(explanation.Filter{ModelID: m1.ID, Method: "shap", Status: "pending"}, []string{ids[0]}, 1)
	f(explanation.Filter{Status: "completed"}, nil, 0)
	f(explanation.Filter{Limit: 1, Offset: 1}, []string{ids[1]}, 3)
	f(explanation.Filter{PredictionID: "p-7"}, []string{ids[2], ids[1]}, 2)
	f(explanation.Filter{PredictionID: "p-7", ModelID: m1.ID}, []string{ids[1]}, 1)
	f(explanation.Filter{PredictionID: "p-8"}, nil, 0)

	other := newExplanation(b.ID, m1.ID, "0190b000-0000-7000-8000-000000000009", "shap", 4)
	wantErr(t, s.CreateExplanation(ctx(t), other), store.ErrNotFound, "CreateExplanation on another organization's model")
	_, err := s.Explanation(ctx(t), b.ID, ids[0])
	wantErr(t, err, store.ErrNotFound, "Explanation of another organization")
	got, n, err := s.Explanations(ctx(t), b.ID, explanation.Filter{})
	must(t, err, "Explanations")
	equal(t, "another organization's list", len(got)+int(n), 0)
	steal := newExplanation(b.ID, m1.ID, ids[0], "shap", 1)
	steal.Status, steal.Error = explanation.StatusFailed, "stolen"
	wantErr(t, s.FinishExplanation(ctx(t), steal), store.ErrNotFound, "FinishExplanation by another organization")
}

// testExplanationProgress: a pending explanation's progress is stored and
// read back (on the explanation, in lists and among the pending ones); once
// finished, or from another organization, a progress write changes
// nothing.
func testExplanationProgress(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	m := newModel(a.ID, "fraud", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	e := newExplanation(a.ID, m.ID, "0190c000-0000-7000-8000-000000000001", "kernel_shap", 1)
	must(t, s.CreateExplanation(ctx(t), e), "CreateExplanation")
	p := artifact.Progress{Done: 640, Total: 1024, Unit: artifact.ProgressCoalitions}
	must(t, s.ExplanationProgress(ctx(t), a.ID, e.ID, p), "ExplanationProgress")
	must(t, s.ExplanationProgress(ctx(t), b.ID, e.ID, artifact.Progress{Done: 1, Total: 2, Unit: "rows"}), "ExplanationProgress of another organization")
	got, err := s.Explanation(ctx(t), a.ID, e.ID)
	must(t, err, "Explanation")
	equal(t, "progress", got.Progress, p)
	list, _, err := s.Explanations(ctx(t), a.ID, explanation.Filter{ModelID: m.ID, Limit: 10})
	must(t, err, "Explanations")
	equal(t, "listed progress", list[0].Progress, p)
	pending, err := s.PendingExplanations(ctx(t), 1000)
	must(t, err, "PendingExplanations")
	for _, x := range pending {
		if x.ID == e.ID {
			equal(t, "pending progress", x.Progress, p)
		}
	}
	done := at(2)
	e.Status, e.UpdatedAt, e.CompletedAt, e.Error = explanation.StatusFailed, done, &done, "gone"
	must(t, s.FinishExplanation(ctx(t), e), "FinishExplanation")
	must(t, s.ExplanationProgress(ctx(t), a.ID, e.ID, artifact.Progress{Done: 1024, Total: 1024, Unit: "coalitions"}), "ExplanationProgress after the finish")
	got, err = s.Explanation(ctx(t), a.ID, e.ID)
	must(t, err, "Explanation")
	equal(t, "progress after the finish", got.Progress, p)
}
