package storetest

import (
	"testing"

	"github.com/vigilhq/vigil/export/delivery"
	"github.com/vigilhq/vigil/store"
)

var exportIntegrationTests = []test{
	{"ExportIntegrations/Lifecycle", testExportIntegrations},
}

// testExportIntegrations: an integration is stored as given (its sealed secrets and
// masks as they are), replaced, listed and deleted within its organization.
func testExportIntegrations(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	in := delivery.Integration{ID: newID(), OrgID: a.ID, Name: "audit bucket", Type: delivery.TypeS3,
		Settings: delivery.Settings{Endpoint: "https://s3.example.com", Bucket: "reports", Region: "eu-west-1", PathStyle: true},
		Sealed:   "v1:k1:c2VhbGVk", Masks: map[string]string{"access_key_id": "****", "secret_access_key": "****wxyz"},
		CreatedAt: stored(at(1)), UpdatedAt: stored(at(1))}
	must(t, s.CreateExportIntegration(ctx(t), in), "CreateExportIntegration")
	got, err := s.ExportIntegration(ctx(t), a.ID, in.ID)
	must(t, err, "ExportIntegration")
	equal(t, "stored integration", got, in)
	_, err = s.ExportIntegration(ctx(t), b.ID, in.ID)
	wantErr(t, err, store.ErrNotFound, "ExportIntegration of another organization")
	foreign := in
	foreign.OrgID = b.ID
	wantErr(t, s.UpdateExportIntegration(ctx(t), foreign), store.ErrNotFound, "UpdateExportIntegration of another organization")
	wantErr(t, s.DeleteExportIntegration(ctx(t), b.ID, in.ID), store.ErrNotFound, "DeleteExportIntegration of another organization")

	in.Name, in.Type, in.Settings, in.Sealed, in.Masks, in.UpdatedAt = "auditors", delivery.TypeEmail,
		delivery.Settings{Recipients: []string{"a@example.com"}}, "", map[string]string{}, stored(at(2))
	must(t, s.UpdateExportIntegration(ctx(t), in), "UpdateExportIntegration")
	got, err = s.ExportIntegration(ctx(t), a.ID, in.ID)
	must(t, err, "ExportIntegration")
	equal(t, "replaced integration", got, in)
	list, total, err := s.ExportIntegrations(ctx(t), a.ID, 0, 10)
	must(t, err, "ExportIntegrations")
	equal(t, "integrations", []any{len(list), total}, []any{1, int64(1)})
	_, total, err = s.ExportIntegrations(ctx(t), b.ID, 0, 10)
	must(t, err, "ExportIntegrations")
	equal(t, "integrations of another organization", total, int64(0))
	must(t, s.DeleteExportIntegration(ctx(t), a.ID, in.ID), "DeleteExportIntegration")
	_, err = s.ExportIntegration(ctx(t), a.ID, in.ID)
	wantErr(t, err, store.ErrNotFound, "ExportIntegration deleted")
}
