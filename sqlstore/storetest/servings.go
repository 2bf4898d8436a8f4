package storetest

import (
	"testing"

	"github.com/vigilhq/vigil/explanation/serving"
	"github.com/vigilhq/vigil/store"
)

var servingTests = []test{
	{"ModelServings/PutReplaceDelete", testServingPutReplaceDelete},
	{"ModelServings/OtherOrg", testServingOtherOrg},
}

// testServingPutReplaceDelete: a put stores the endpoint as given, a
// second replaces it whole, delete removes it (then ErrNotFound), and
// deleting the model removes a stored one.
func testServingPutReplaceDelete(t *testing.T, s Store) {
	a := newOrg(t, s)
	m := newModel(a.ID, "fraud", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	_, err := s.ModelServing(ctx(t), a.ID, m.ID)
	wantErr(t, err, store.ErrNotFound, "ModelServing before any put")
	v := serving.Serving{OrgID: a.ID, ModelID: m.ID, Protocol: "kserve_v2", URL: "https://models.example.com/",
		ModelName: "fraud", Features: []string{"age", "income"}, OutputIndex: 1, OutputName: "predict_proba", TimeoutMS: 2500, MaxBatch: 128,
		RequestBudget: 40, SealedHeaders: "sealed:k1:abc", HeaderNames: []string{"Authorization"}, UpdatedAt: at(10)}
	must(t, s.PutModelServing(ctx(t), v), "PutModelServing")
	got, err := s.ModelServing(ctx(t), a.ID, m.ID)
	must(t, err, "ModelServing")
	v.UpdatedAt = stored(v.UpdatedAt)
	equal(t, "stored serving", got, v)

	w := serving.Serving{OrgID: a.ID, ModelID: m.ID, Protocol: "mlflow", URL: "http://10.1.2.3:5000",
		Features: []string{"x"}, TimeoutMS: 5000, MaxBatch: 256, RequestBudget: 64, UpdatedAt: at(20)}
	must(t, s.PutModelServing(ctx(t), w), "PutModelServing (replace)")
	got, err = s.ModelServing(ctx(t), a.ID, m.ID)
	must(t, err, "ModelServing")
	w.UpdatedAt = stored(w.UpdatedAt)
	equal(t, "replaced serving", got, w)

	must(t, s.DeleteModelServing(ctx(t), a.ID, m.ID), "DeleteModelServing")
	wantErr(t, s.DeleteModelServing(ctx(t), a.ID, m.ID), store.ErrNotFound, "DeleteModelServing again")
	must(t, s.PutModelServing(ctx(t), w), "PutModelServing after delete")
	must(t, s.DeleteModel(ctx(t), a.ID, m.ID), "DeleteModel")
	_, err = s.ModelServing(ctx(t), a.ID, m.ID)
	wantErr(t, err, store.ErrNotFound, "ModelServing of a deleted model")
}

// testServingOtherOrg: another organization's model reads, writes and
// deletes as a missing one, and changes nothing.
func testServingOtherOrg(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	m := newModel(a.ID, "fraud", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	v := serving.Serving{OrgID: a.ID, ModelID: m.ID, Protocol: "kserve_v1", URL: "https://m.example.com",
		ModelName: "m", Features: []string{"x"}, TimeoutMS: 1, MaxBatch: 1, RequestBudget: 1, UpdatedAt: at(1)}
	must(t, s.PutModelServing(ctx(t), v), "PutModelServing")
	other := v
	other.OrgID, other.URL = b.ID, "https://evil.example.com"
	wantErr(t, s.PutModelServing(ctx(t), other), store.ErrNotFound, "PutModelServing of another organization's model")
	_, err := s.ModelServing(ctx(t), b.ID, m.ID)
	wantErr(t, err, store.ErrNotFound, "ModelServing of another organization's model")
	wantErr(t, s.DeleteModelServing(ctx(t), b.ID, m.ID), store.ErrNotFound, "DeleteModelServing of another organization's model")
	got, err := s.ModelServing(ctx(t), a.ID, m.ID)
	must(t, err, "ModelServing")
	equal(t, "url after another organization's put", got.URL, "https://m.example.com")
}
