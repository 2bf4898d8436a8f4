package fairness

// linearLevels is how many levels a dictionary scans before it builds a map:
// a protected attribute has few groups, and comparing a label with a handful
// of others is cheaper than hashing it.
const linearLevels = 8

// dictionary assigns small integer codes to labels in first-seen order.
type dictionary struct {
	levels []string
	index  map[string]int
}

// code returns the code of v, adding v if it is new.
func (d *dictionary) code(v string) int {
	if d.index != nil {
		if c, ok := d.index[v]; ok {
			return c
		}
	} else {
		for i, l := range d.levels {
			if l == v {
				return i
			}
		}
	}
	d.levels = append(d.levels, v)
	if d.index == nil && len(d.levels) > linearLevels {
		d.index = make(map[string]int, 2*len(d.levels))
		for i, l := range d.levels {
			d.index[l] = i
		}
	} else if d.index != nil {
		d.index[v] = len(d.levels) - 1
	}
	return len(d.levels) - 1
}
