package drift

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/stats/profile"
)

// Uploaded is a model's uploaded reference: profiles of the reference
// data sent to PUT /drift/reference/{model_id} (and appended with POST
// /drift/reference/{model_id}/append), the same kind of profile
// the processors keep of logged predictions. Scheduled runs compare with
// it when schedule_config.reference.type is uploaded. Of the data itself
// only Sample is kept: a uniform sample of at most MaxSampleRows rows of
// reference_data, kept uniform across appends, which explanations take as
// their background rows when a request sends none. Deleting the reference
// deletes it.
type Uploaded struct {
	OrgID, ModelID string
	// Input profiles reference_data, the reference of data drift.
	Input profile.Profile
	// Output profiles prediction_data, the reference of prediction drift;
	// nil when none was sent (prediction drift is then not reported).
	Output *profile.Profile
	// Sample is the sample of reference_data's rows.
	Sample     Sample
	UploadedAt time.Time
}

// ReferenceStore keeps uploaded references, one per model, in the
// transactional store. Every method takes the caller's organization;
// another organization's model reports store.ErrNotFound.
type ReferenceStore interface {
	// UpdateDriftReference applies change, in one transaction, to the
	// model's reference (exists false: an empty one), stores the result
	// and returns it. An error from change aborts; no such model is
	// store.ErrNotFound; two first writes racing may give one of them
	// store.ErrConflict.
	UpdateDriftReference(ctx context.Context, orgID, modelID string, change func(u *Uploaded, exists bool) error) (Uploaded, error)
	// DriftReference returns the model's reference; store.ErrNotFound when
	// none is on file.
	DriftReference(ctx context.Context, orgID, modelID string) (Uploaded, error)
	// DeleteDriftReference removes the model's reference; store.ErrNotFound
	// when none is on file.
	DeleteDriftReference(ctx context.Context, orgID, modelID string) error
}

// MaxReferenceFeatures is the most features one side of an upload may
// carry: as many as a profile keeps.
const MaxReferenceFeatures = profile.MaxFeatures

// referenceBody is the body of PUT /drift/reference/{model_id} and of its
// append: each side an object of feature name to an array of values, one
// per reference row.
type referenceBody struct {
	ModelID        *string                      `json:"model_id"`
	ReferenceData  map[string][]json.RawMessage `json:"reference_data"`
	PredictionData map[string][]json.RawMessage `json:"prediction_data"`
}

// profileSide checks one side of an upload and profiles it: at least one
// feature when required, at most MaxReferenceFeatures, every array
// non-empty, of one length, holding JSON scalars. Problems are recorded
// under the feature's path (reference_data.age).
func profileSide(v *web.Problems, side string, data map[string][]json.RawMessage, required bool) *profile.Profile {
	if data == nil {
		if required {
			v.Add(side, "is required: an object of feature name to an array of values")
		}
		return nil
	}
	if len(data) == 0 || len(data) > MaxReferenceFeatures {
		v.Add(side, fmt.Sprintf("got %d features, want 1 to %d", len(data), MaxReferenceFeatures))
		return nil
	}
	names := make([]string, 0, len(data))
	for name := range data {
		names = append(names, name)
	}
	slices.Sort(names)
	rows := len(data[names[0]])
	p := &profile.Profile{}
	for _, name := range names {
		values, path := data[name], side+"."+name
		switch {
		case len(values) == 0:
			v.Add(path, "is empty; send at least one value")
			continue
		case len(values) != rows:
			v.Add(path, fmt.Sprintf("has %d values, but %s has %d: every feature needs one value per row", len(values), side+"."+names[0], rows))
			continue
		}
		if i := slices.IndexFunc(values, func(raw json.RawMessage) bool { return len(raw) > 0 && (raw[0] == '{' || raw[0] == '[') }); i >= 0 {
			v.Add(fmt.Sprintf("%s[%d]", path, i), "must be a number, string, boolean or null")
			continue
		}
		p.AddColumn(name, values)
	}
	return p
}

// ReferenceSummary is what GET /drift/reference/{model_id} answers of an
// uploaded reference: its shape, not its data.
type ReferenceSummary struct {
	ModelID        string       `json:"model_id"`
	ReferenceData  SideSummary  `json:"reference_data"`
	PredictionData *SideSummary `json:"prediction_data"`
	// SampleRows counts the rows of reference_data kept as a sample.
	SampleRows int       `json:"sample_rows"`
	UploadedAt time.Time `json:"uploaded_at"`
}

// SideSummary summarises one side of an uploaded reference.
type SideSummary struct {
	Rows     int64                     `json:"rows"`
	Features map[string]FeatureSummary `json:"features"`
}

// FeatureSummary is one uploaded feature: its type as detection infers
// it (the kind of most of its values), its values and its missing ones
// (null, or neither a number nor a category).
type FeatureSummary struct {
	Type    FeatureType `json:"type"`
	Values  int64       `json:"values"`
	Missing int64       `json:"missing"`
}

// Summary describes u.
func (u Uploaded) Summary() ReferenceSummary {
	s := ReferenceSummary{ModelID: u.ModelID, ReferenceData: sideSummary(&u.Input), SampleRows: len(u.Sample.Rows), UploadedAt: u.UploadedAt}
	if u.Output != nil {
		out := sideSummary(u.Output)
		s.PredictionData = &out
	}
	return s
}

func sideSummary(p *profile.Profile) SideSummary {
	s := SideSummary{Rows: p.Rows, Features: map[string]FeatureSummary{}}
	for name, f := range p.Features {
		typ := Numeric
		if f.Kind() == profile.Categorical {
			typ = Categorical
		}
		s.Features[name] = FeatureSummary{Type: typ, Values: f.Values(), Missing: p.Rows - f.Values()}
	}
	return s
}

// merge adds the profiles of an upload to u's, as if they had been
// uploaded together; out nil adds no outputs.
func (u *Uploaded) merge(in, out *profile.Profile) error {
	if err := u.Input.Merge(in); err != nil {
		return fmt.Errorf("merge reference_data: %w", err)
	}
	switch {
	case out == nil:
	case u.Output == nil:
		u.Output = out
	default:
		if err := u.Output.Merge(out); err != nil {
			return fmt.Errorf("merge prediction_data: %w", err)
		}
	}
	return nil
}
