package profile

import (
	"encoding/json"
	"strconv"

	"github.com/vigilhq/vigil/stats/quantile"
)

// Limits on what one profile keeps.
const (
	// MaxFeatures is how many features a profile keeps: the first ones
	// seen; fields beyond are counted in Profile.Dropped.
	MaxFeatures = 256
	// MaxCategories is how many categories a feature keeps by name; the
	// values of further ones are summed in Feature.Other.
	MaxCategories = 1000
)

// Profile summarises JSON object documents feature by feature. The zero
// Profile is empty and ready to use.
type Profile struct {
	// Rows counts the documents added.
	Rows int64 `json:"rows"`
	// Features are keyed by field name.
	Features map[string]*Feature `json:"features,omitempty"`
	// Dropped counts field values of features beyond MaxFeatures.
	Dropped int64 `json:"dropped,omitempty"`
	// Quality tallies predictions against their labels (output profiles
	// of labelled predictions only).
	Quality Quality `json:"quality,omitzero"`
}

// Feature is one field's values across a profile's documents.
type Feature struct {
	// Numbers holds the numeric values.
	Numbers quantile.Sketch
	// Categories counts string and boolean values by value.
	Categories map[string]int64
	// Other counts the values of categories beyond MaxCategories.
	Other int64
	// Nulls counts null values; Unsupported objects and arrays.
	Nulls       int64
	Unsupported int64
}

// Values is how many values the feature holds of either kind.
func (f *Feature) Values() int64 { return int64(f.Numbers.Count()) + f.categorical() }

func (f *Feature) categorical() int64 {
	n := f.Other
	for _, c := range f.Categories {
		n += c
	}
	return n
}

// Add profiles one document (input_data or output_data); a document that
// is not a JSON object counts as a row without features.
func (p *Profile) Add(doc json.RawMessage) {
	p.AddFields(AppendFields(nil, doc))
}

// AddFields profiles one document given as its top-level fields
// (AppendFields), for a caller that reads the document's fields for
// other ends too and parses it once.
func (p *Profile) AddFields(fs []Field) {
	p.Rows++
	for _, fl := range fs {
		f := p.featureBytes(fl.Name)
		if f == nil {
			p.Dropped++
			continue
		}
		f.add(fl.Value)
	}
}

// feature returns the named feature, made on first use; nil when the
// profile holds MaxFeatures others.
func (p *Profile) feature(name string) *Feature {
	if f := p.Features[name]; f != nil {
		return f
	}
	return p.featureBytes([]byte(name))
}

// featureBytes is feature for a name given as bytes, which are copied
// only when the feature is made.
func (p *Profile) featureBytes(name []byte) *Feature {
	if f := p.Features[string(name)]; f != nil {
		return f
	}
	if len(p.Features) >= MaxFeatures {
		return nil
	}
	if p.Features == nil {
		p.Features = map[string]*Feature{}
	}
	f := &Feature{}
	p.Features[string(name)] = f
	return f
}

func (f *Feature) add(raw json.RawMessage) {
	switch {
	case len(raw) == 0:
	case raw[0] == '"':
		if s, ok := Text(raw); ok {
			f.addCategoryBytes(s)
		}
	case string(raw) == "true" || string(raw) == "false":
		f.addCategoryBytes(raw)
	case string(raw) == "null":
		f.Nulls++
	case raw[0] == '{' || raw[0] == '[':
		f.Unsupported++
	default:
		if v, err := strconv.ParseFloat(string(raw), 64); err == nil {
			f.Numbers.Add(v)
		}
	}
}

// addCategoryBytes counts one value of category v, copying v only when
// the category is new.
func (f *Feature) addCategoryBytes(v []byte) {
	if n, ok := f.Categories[string(v)]; ok {
		f.Categories[string(v)] = n + 1
		return
	}
	f.addCategory(string(v), 1)
}

func (f *Feature) addCategory(v string, n int64) {
	if _, ok := f.Categories[v]; !ok && len(f.Categories) >= MaxCategories {
		f.Other += n
		return
	}
	if f.Categories == nil {
		f.Categories = map[string]int64{}
	}
	f.Categories[v] += n
}

// Merge adds o's documents to p, as if they had been added to p.
func (p *Profile) Merge(o *Profile) error {
	p.Rows += o.Rows
	p.Dropped += o.Dropped
	p.Quality.Merge(o.Quality)
	for name, of := range o.Features {
		f := p.feature(name)
		if f == nil {
			p.Dropped += of.Values() + of.Nulls + of.Unsupported
			continue
		}
		if err := f.Numbers.Merge(&of.Numbers); err != nil {
			return err
		}
		for v, n := range of.Categories {
			f.addCategory(v, n)
		}
		f.Other += of.Other
		f.Nulls += of.Nulls
		f.Unsupported += of.Unsupported
	}
	return nil
}

// AddColumn profiles one feature given column-wise, as uploaded reference
// data is: values are the feature's JSON values, one per row. Rows
// becomes the longest column's length; a column beyond MaxFeatures is
// counted in Dropped.
func (p *Profile) AddColumn(name string, values []json.RawMessage) {
	p.Rows = max(p.Rows, int64(len(values)))
	f := p.feature(name)
	if f == nil {
		p.Dropped += int64(len(values))
		return
	}
	for _, v := range values {
		f.add(v)
	}
}
