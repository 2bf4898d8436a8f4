package evaluation

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// classSet is a sorted list of distinct labels, numbers or strings.
type classSet struct {
	isStr bool
	nums  []float64
	strs  []string
}

func (s classSet) len() int {
	if s.isStr {
		return len(s.strs)
	}
	return len(s.nums)
}

func (s classSet) label(i int) Label {
	if s.isStr {
		return StringLabel(s.strs[i])
	}
	return NumberLabel(s.nums[i])
}

// index returns the position of l, or -1.
func (s classSet) index(l Label) int {
	if s.isStr {
		if i, ok := slices.BinarySearch(s.strs, l.str); ok {
			return i
		}
		return -1
	}
	if i, ok := slices.BinarySearch(s.nums, l.num); ok {
		return i
	}
	return -1
}

// String renders up to ten labels, as "[0 1 2]".
func (s classSet) String() string {
	n := s.len()
	parts := make([]string, 0, min(n, 11))
	for i := 0; i < n && i < 10; i++ {
		parts = append(parts, s.label(i).String())
	}
	if n > 10 {
		parts = append(parts, fmt.Sprintf("... (%d in all)", n))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// subset returns the classes whose keep flag is set, with the old-to-new
// index map (-1 for dropped classes).
func (s classSet) subset(keep []bool) (classSet, []int32) {
	out := classSet{isStr: s.isStr}
	remap := make([]int32, s.len())
	for i := range remap {
		if !keep[i] {
			remap[i] = -1
			continue
		}
		remap[i] = int32(out.len())
		if s.isStr {
			out.strs = append(out.strs, s.strs[i])
		} else {
			out.nums = append(out.nums, s.nums[i])
		}
	}
	return out, remap
}

// encoder maps labels to dense ids. With declared labels it is fixed: an
// unknown value is an error. Otherwise ids are handed out in first-seen
// order and finish sorts them.
type encoder struct {
	isStr bool
	fixed bool
	nums  []float64
	strs  []string
	numID map[float64]int32
	strID map[string]int32
}

func newEncoder(isStr bool) *encoder {
	e := &encoder{isStr: isStr}
	if isStr {
		e.strID = make(map[string]int32)
	} else {
		e.numID = make(map[float64]int32)
	}
	return e
}

// declare fixes the label set to the (validated, sorted) declared labels.
func (e *encoder) declare(c Column) {
	for i := 0; i < c.Len(); i++ {
		if e.isStr {
			e.strID[c.strs[i]] = int32(i)
		} else {
			e.numID[c.nums[i]] = int32(i)
		}
	}
	e.nums, e.strs = c.nums, c.strs
	e.fixed = true
}

func (e *encoder) count() int {
	if e.isStr {
		return len(e.strs)
	}
	return len(e.nums)
}

// encode returns the id of every element of c.
func (e *encoder) encode(field string, c Column) ([]int32, error) {
	ids := make([]int32, c.Len())
	if e.isStr {
		last, lastID := "", int32(-1)
		for i, v := range c.strs {
			if lastID >= 0 && v == last {
				ids[i] = lastID
				continue
			}
			id, ok := e.strID[v]
			if !ok {
				if err := e.admit(field, i, StringLabel(v)); err != nil {
					return nil, err
				}
				id = int32(len(e.strs))
				e.strID[v] = id
				e.strs = append(e.strs, v)
			}
			ids[i], last, lastID = id, v, id
		}
		return ids, nil
	}
	last, lastID := 0.0, int32(-1)
	for i, v := range c.nums {
		if lastID >= 0 && v == last {
			ids[i] = lastID
			continue
		}
		id, ok := e.probe(v)
		if !ok {
			if err := e.admit(field, i, NumberLabel(v)); err != nil {
				return nil, err
			}
			id = int32(len(e.nums))
			e.numID[v] = id
			e.nums = append(e.nums, v)
		}
		ids[i], last, lastID = id, v, id
	}
	return ids, nil
}

// probe finds a numeric label's id, scanning the first few labels before
// falling back to the map: most requests have a handful of classes.
func (e *encoder) probe(v float64) (int32, bool) {
	if len(e.nums) <= 8 {
		for i, x := range e.nums {
			if x == v {
				return int32(i), true
			}
		}
		return 0, false
	}
	id, ok := e.numID[v]
	return id, ok
}

// admit checks that a new label may join the set.
func (e *encoder) admit(field string, i int, l Label) error {
	if e.fixed {
		return fieldErr(field, "element %d is %s, which is not in labels", i, l)
	}
	if e.count() >= MaxClasses {
		return fieldErr(field, "too many distinct labels: got more than %d, want at most %d", MaxClasses, MaxClasses)
	}
	return nil
}

// finish sorts the labels and rewrites the id arrays to sorted positions.
func (e *encoder) finish(idArrays ...[]int32) classSet {
	set := classSet{isStr: e.isStr}
	if e.fixed {
		set.nums, set.strs = e.nums, e.strs
		return set
	}
	n := e.count()
	order := make([]int32, n) // sorted position -> first-seen id
	for i := range order {
		order[i] = int32(i)
	}
	if e.isStr {
		slices.SortFunc(order, func(a, b int32) int { return strings.Compare(e.strs[a], e.strs[b]) })
	} else {
		slices.SortFunc(order, func(a, b int32) int {
			return cmpFloat(e.nums[a], e.nums[b])
		})
	}
	rank := make([]int32, n) // first-seen id -> sorted position
	for pos, id := range order {
		rank[id] = int32(pos)
		if e.isStr {
			set.strs = append(set.strs, e.strs[id])
		} else {
			set.nums = append(set.nums, e.nums[id])
		}
	}
	for _, ids := range idArrays {
		for i, id := range ids {
			ids[i] = rank[id]
		}
	}
	return set
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// firstContinuous returns the index of the first value that makes a numeric
// column "continuous" in scikit-learn's type_of_target: a value that does not
// survive a cast to int64 (non-integral, or outside the int64 range), or -1.
func firstContinuous(v []float64) int {
	const two63 = 9223372036854775808.0
	for i, x := range v {
		if x != math.Trunc(x) || x >= two63 || x < -two63 {
			return i
		}
	}
	return -1
}
