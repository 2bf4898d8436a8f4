package storetest

import (
	"testing"

	"github.com/vigilhq/vigil/explanation/artifact"
	"github.com/vigilhq/vigil/store"
)

var artifactTests = []test{
	{"ModelArtifacts/PutReplace", testArtifactPutReplace},
	{"ModelArtifacts/OtherOrg", testArtifactOtherOrg},
}

// testArtifactPutReplace: a first put stores the artifact as given
// (floats exactly), a second replaces it whole; deleting the model removes
// it.
func testArtifactPutReplace(t *testing.T, s Store) {
	a := newOrg(t, s)
	m := newModel(a.ID, "fraud", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	_, err := s.ModelArtifact(ctx(t), a.ID, m.ID)
	wantErr(t, err, store.ErrNotFound, "ModelArtifact before any upload")
	lin := artifact.Artifact{OrgID: a.ID, ModelID: m.ID, Kind: artifact.KindLinear, Features: []string{"age", "income"},
		Coefficients: []float64{0.1, -2.5e-7}, Intercept: -1.0 / 3, Link: "logit", NumFeatures: 2, UploadedAt: at(10)}
	must(t, s.PutModelArtifact(ctx(t), lin), "PutModelArtifact (linear)")
	got, err := s.ModelArtifact(ctx(t), a.ID, m.ID)
	must(t, err, "ModelArtifact")
	lin.UploadedAt = stored(lin.UploadedAt)
	equal(t, "stored linear artifact", got, lin)

	tree := artifact.Artifact{OrgID: a.ID, ModelID: m.ID, Kind: artifact.KindLightGBM, Content: "tree\nversion=v4\n",
		Link: "identity", NumFeatures: 5, NumTrees: 30, MaxDepth: 6, UploadedAt: at(20)}
	must(t, s.PutModelArtifact(ctx(t), tree), "PutModelArtifact (tree)")
	got, err = s.ModelArtifact(ctx(t), a.ID, m.ID)
	must(t, err, "ModelArtifact")
	tree.UploadedAt = stored(tree.UploadedAt)
	equal(t, "replaced by the tree artifact", got, tree)

	must(t, s.DeleteModel(ctx(t), a.ID, m.ID), "DeleteModel")
	_, err = s.ModelArtifact(ctx(t), a.ID, m.ID)
	wantErr(t, err, store.ErrNotFound, "ModelArtifact of a deleted model")
}

// testArtifactOtherOrg: another organization's model reads and writes as a
// missing one, and its write changes nothing.
func testArtifactOtherOrg(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	m := newModel(a.ID, "fraud", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	art := artifact.Artifact{OrgID: a.ID, ModelID: m.ID, Kind: artifact.KindLinear, Features: []string{"x"},
		Coefficients: []float64{1}, Link: "identity", NumFeatures: 1, UploadedAt: at(1)}
	must(t, s.PutModelArtifact(ctx(t), art), "PutModelArtifact")
	other := art
	other.OrgID, other.Coefficients = b.ID, []float64{2}
	wantErr(t, s.PutModelArtifact(ctx(t), other), store.ErrNotFound, "PutModelArtifact of another organization's model")
	_, err := s.ModelArtifact(ctx(t), b.ID, m.ID)
	wantErr(t, err, store.ErrNotFound, "ModelArtifact of another organization's model")
	got, err := s.ModelArtifact(ctx(t), a.ID, m.ID)
	must(t, err, "ModelArtifact")
	equal(t, "coefficients after another organization's put", got.Coefficients, []float64{1})
}
