package eventlog

import (
	"encoding/json"
	"slices"
	"sync"

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

// fieldScratch holds the slices parse collects fields in before it keeps
// them in one of the right length.
var fieldScratch = sync.Pool{New: func() any { return new([]profile.Field) }}

func parse(p Prediction) *Parsed {
	scratch := fieldScratch.Get().(*[]profile.Field)
	fs := profile.AppendFields((*scratch)[:0], p.InputData)
	nIn := len(fs)
	fs = profile.AppendFields(fs, p.OutputData)
	nOut := len(fs)
	fs = profile.AppendFields(fs, p.Metadata)
	kept := slices.Clone(fs)
	clear(fs) // the pool keeps no document alive
	*scratch = fs[:0]
	fieldScratch.Put(scratch)
	return &Parsed{Input: kept[:nIn:nIn], Output: kept[nIn:nOut:nOut], Metadata: kept[nOut:]}
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
