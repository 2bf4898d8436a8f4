package fairness

import "math/bits"

// dictionary assigns small integer codes to labels in first-seen order. It
// is an open-addressing table of codes, at most half full, probed linearly
// from a hash of the label's length and first and last two bytes: a lookup
// costs a few byte loads, a multiply and usually one string comparison,
// whatever the number of labels, and no branch depends on which label a
// row holds.
type dictionary struct {
	levels []string
	slots  []int32 // code+1 per slot, 0 for empty
	shift  uint8   // 32 − log2(len(slots))
}

// slot is where v's probe sequence starts.
func (d *dictionary) slot(v string) uint32 {
	n := len(v)
	k := uint32(n)
	if n > 0 {
		k |= uint32(v[0])<<8 | uint32(v[n-1])<<16 | uint32(v[max(0, n-2)])<<24
	}
	return (k * 0x9E3779B1) >> d.shift
}

// code returns the code of v, adding v if it is new.
func (d *dictionary) code(v string) int {
	if d.slots == nil {
		d.grow(16)
	}
	mask := uint32(len(d.slots) - 1)
	for h := d.slot(v); ; h = (h + 1) & mask {
		c := d.slots[h]
		if c == 0 {
			break
		}
		if d.levels[c-1] == v {
			return int(c - 1)
		}
	}
	d.levels = append(d.levels, v)
	if 2*len(d.levels) > len(d.slots) {
		d.grow(2 * len(d.slots))
	} else {
		d.put(int32(len(d.levels) - 1))
	}
	return len(d.levels) - 1
}

// grow makes a table of n slots (a power of two) and puts every level in.
func (d *dictionary) grow(n int) {
	d.slots = make([]int32, n)
	d.shift = uint8(32 - bits.TrailingZeros(uint(n)))
	for c := range d.levels {
		d.put(int32(c))
	}
}

// put stores code c in the first free slot of its label's probe sequence.
func (d *dictionary) put(c int32) {
	mask := uint32(len(d.slots) - 1)
	h := d.slot(d.levels[c])
	for d.slots[h] != 0 {
		h = (h + 1) & mask
	}
	d.slots[h] = c + 1
}
