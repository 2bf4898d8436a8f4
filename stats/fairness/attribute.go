package fairness

// Attribute is one protected attribute: a group label per row, in one of two
// forms. Values holds the labels as strings, "" marking a missing value (the
// caller maps JSON null and an absent key to ""). Levels and Codes hold them
// dictionary-encoded, as columnar stores hand them out: row i belongs to
// Levels[Codes[i]], and a negative code marks a missing value. Set one form.
type Attribute struct {
	// Name is the attribute's name, e.g. "gender"; unique within an Input.
	Name string
	// Values is the per-row group label; "" is missing.
	Values []string
	// Levels are the distinct group labels of the encoded form: unique, not "".
	Levels []string
	// Codes is the per-row index into Levels; negative is missing.
	Codes []int32
}

// rows is the number of rows the attribute holds.
func (a Attribute) rows() int {
	if a.Values != nil {
		return len(a.Values)
	}
	return len(a.Codes)
}

// validate checks the attribute's form against n rows.
func (a Attribute) validate(n int) error {
	if a.Name == "" {
		return invalid("attribute with no name")
	}
	if a.Values != nil && (a.Levels != nil || a.Codes != nil) {
		return invalid("attribute %q: got both values and codes, want one form", a.Name)
	}
	if a.Values == nil && a.Codes == nil {
		return invalid("attribute %q: no values", a.Name)
	}
	if a.rows() != n {
		return invalid("attribute %q: got %d values, want %d (one per prediction)", a.Name, a.rows(), n)
	}
	seen := make(map[string]bool, len(a.Levels))
	for _, l := range a.Levels {
		if l == "" {
			return invalid("attribute %q: empty level, want a group label (missing values take a negative code)", a.Name)
		}
		if seen[l] {
			return invalid("attribute %q: level %q twice", a.Name, l)
		}
		seen[l] = true
	}
	return nil
}

// badCode is the error for a code outside an attribute's k levels.
func badCode(name string, code int32, row, k int) error {
	return invalid("attribute %q: code %d at row %d, want below %d levels (or negative for missing)", name, code, row, k)
}
