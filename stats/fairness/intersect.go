package fairness

// IntersectionSeparator joins the labels of an intersectional group, as in
// "female & black".
const IntersectionSeparator = " & "

// Intersect returns the combined column the spec asks callers to supply for
// intersectional groups: one group per combination of the parts' groups
// that occurs, labelled with the parts' labels joined by
// IntersectionSeparator in the order of parts. A row missing any part is
// missing. The result is in the encoded form (Levels and Codes).
func Intersect(name string, parts ...Attribute) (Attribute, error) {
	if len(parts) < 2 {
		return Attribute{}, invalid("intersection %q: got %d attributes, want at least 2", name, len(parts))
	}
	n := parts[0].rows()
	for _, p := range parts {
		if err := p.validate(n); err != nil {
			return Attribute{}, err
		}
	}
	out := Attribute{Name: name}
	for i, p := range parts {
		levels, codes, err := encode(p)
		if err != nil {
			return Attribute{}, err
		}
		if i == 0 {
			out.Levels, out.Codes = levels, codes
		} else {
			out.Levels, out.Codes = combine(out.Levels, out.Codes, levels, codes)
		}
	}
	return out, nil
}

// encode returns an attribute in the encoded form, or an error for a code
// outside its levels.
func encode(a Attribute) ([]string, []int32, error) {
	if a.Values == nil {
		for i, c := range a.Codes {
			if int(c) >= len(a.Levels) {
				return nil, nil, badCode(a.Name, c, i, len(a.Levels))
			}
		}
		return a.Levels, a.Codes, nil
	}
	var d dictionary
	codes := make([]int32, len(a.Values))
	for i, v := range a.Values {
		codes[i] = -1
		if v != "" {
			codes[i] = int32(d.code(v))
		}
	}
	return d.levels, codes, nil
}

// combine pairs two encoded columns row by row.
func combine(la []string, ca []int32, lb []string, cb []int32) ([]string, []int32) {
	seen := make(map[int64]int32)
	var levels []string
	codes := make([]int32, len(ca))
	for i := range ca {
		if ca[i] < 0 || cb[i] < 0 {
			codes[i] = -1
			continue
		}
		key := int64(ca[i])*int64(len(lb)) + int64(cb[i])
		c, ok := seen[key]
		if !ok {
			c = int32(len(levels))
			seen[key] = c
			levels = append(levels, la[ca[i]]+IntersectionSeparator+lb[cb[i]])
		}
		codes[i] = c
	}
	return levels, codes
}
