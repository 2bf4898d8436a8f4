package eventlog

import (
	"encoding/json"

	"github.com/vigilhq/vigil/stats/profile"
)

// PredictionField is the output_data field that holds a logged
// prediction's predicted value, by convention (bias audits can name
// another).
const PredictionField = "prediction"

// LabelFields are the fields that hold a logged prediction's ground truth,
// by convention: looked up in metadata, then input_data, in this order.
var LabelFields = []string{"label", "y_true"}

// Parsed is a prediction's documents parsed once into their top-level
// fields (profile.AppendFields), which the profiles, the labels and the
// stores' output counts all read: no document is walked twice.
type Parsed struct {
	Input, Output, Metadata []profile.Field
}

// Parse parses p's documents into their fields, once: the later calls of
// Fields, Predicted and Label (on p or its copies) read them.
func (p *Prediction) Parse() {
	if p.parsed == nil {
		p.parsed = parse(*p)
	}
}

func parse(p Prediction) *Parsed {
	fs := make([]profile.Field, 0, 16)
	fs = profile.AppendFields(fs, p.InputData)
	nIn := len(fs)
	fs = profile.AppendFields(fs, p.OutputData)
	nOut := len(fs)
	fs = profile.AppendFields(fs, p.Metadata)
	return &Parsed{Input: fs[:nIn:nIn], Output: fs[nIn:nOut:nOut], Metadata: fs[nOut:]}
}

// Fields returns p's documents' fields: those Parse kept, else parsed now.
func (p Prediction) Fields() *Parsed {
	if p.parsed != nil {
		return p.parsed
	}
	return parse(p)
}

// Predicted returns the prediction's predicted value: output_data's
// PredictionField, or output_data itself when it is not an object; nil
// when an object lacks the field.
func (p Prediction) Predicted() json.RawMessage { return p.Fields().predicted(p.OutputData) }

func (f *Parsed) predicted(out json.RawMessage) json.RawMessage {
	if len(out) > 0 && out[0] != '{' {
		return out
	}
	return profile.Lookup(f.Output, PredictionField)
}

// Label returns the prediction's ground truth: the first of LabelFields
// present, and not null, in metadata, else in input_data; nil when none
// is.
func (p Prediction) Label() json.RawMessage { return p.Fields().label() }

func (f *Parsed) label() json.RawMessage {
	for _, name := range LabelFields {
		for _, doc := range [][]profile.Field{f.Metadata, f.Input} {
			if v := profile.Lookup(doc, name); v != nil && string(v) != "null" {
				return v
			}
		}
	}
	return nil
}
