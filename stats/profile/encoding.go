package profile

import (
	"encoding/json"
	"fmt"
)

// stored is a Feature as encoded: the sketch in its binary form.
type stored struct {
	Sketch      []byte           `json:"sketch,omitempty"`
	Categories  map[string]int64 `json:"categories,omitempty"`
	Other       int64            `json:"other,omitempty"`
	Nulls       int64            `json:"nulls,omitempty"`
	Unsupported int64            `json:"unsupported,omitempty"`
}

// MarshalJSON encodes the feature with its sketch.
func (f *Feature) MarshalJSON() ([]byte, error) {
	s := stored{Categories: f.Categories, Other: f.Other, Nulls: f.Nulls, Unsupported: f.Unsupported}
	if f.Numbers.Count() > 0 {
		b, err := f.Numbers.MarshalBinary()
		if err != nil {
			return nil, err
		}
		s.Sketch = b
	}
	return json.Marshal(s)
}

// UnmarshalJSON decodes MarshalJSON's form.
func (f *Feature) UnmarshalJSON(b []byte) error {
	var s stored
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*f = Feature{Categories: s.Categories, Other: s.Other, Nulls: s.Nulls, Unsupported: s.Unsupported}
	if len(s.Sketch) > 0 {
		if err := f.Numbers.UnmarshalBinary(s.Sketch); err != nil {
			return fmt.Errorf("profile: feature sketch: %w", err)
		}
	}
	return nil
}
