package quantile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// encodingVersion is the first byte of MarshalBinary's output.
const encodingVersion = 1

// MarshalBinary encodes the sketch in the versioned format described in the
// package documentation. Equal sketches (for instance the same values merged
// in different orders) encode to identical bytes.
//
// MarshalBinary writes a compact, versioned format (version 1):
//
//	byte     version (1)
//	8 bytes  α as IEEE-754 bits, little-endian
//	uvarint  zero count
//	uvarint  non-finite count
//	store ×2 (positive, then negative):
//	         uvarint bucket count B (0 for an empty store),
//	         if B > 0: zigzag varint lowest key, then B uvarint counts
//	if Count() > 0: 8 bytes min, 8 bytes max (IEEE-754 bits, little-endian)
//	sum:     byte sign (0 or 1), uvarint limb count L,
//	         if L > 0: uvarint base, then L uvarint 32-bit limbs (low first);
//	         |sum| = Σ limb_i · 2^(32·(base+i) − 1074)
//
// The encoding is canonical (first and last stored bucket and limb are
// nonzero), so equal sketches encode to equal bytes. UnmarshalBinary
// validates every field and returns an error wrapping ErrCorrupt for any
// malformed input; it never panics.
func (s *Sketch) MarshalBinary() ([]byte, error) {
	neg, base, mag := s.sum.canonical()
	pos, ng := s.pos.used(), s.neg.used()
	b := make([]byte, 0, 64+5*len(mag)+2*(len(pos)+len(ng)))
	b = append(b, encodingVersion)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(s.Alpha()))
	b = binary.AppendUvarint(b, s.zero)
	b = binary.AppendUvarint(b, s.nonFinite)
	b = appendStore(b, &s.pos)
	b = appendStore(b, &s.neg)
	if s.Count() > 0 {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(s.min))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(s.max))
	}
	if neg {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(mag)))
	if len(mag) > 0 {
		b = binary.AppendUvarint(b, uint64(base))
		for _, l := range mag {
			b = binary.AppendUvarint(b, uint64(l))
		}
	}
	return b, nil
}

func appendStore(b []byte, st *store) []byte {
	used := st.used()
	b = binary.AppendUvarint(b, uint64(len(used)))
	if len(used) == 0 {
		return b
	}
	b = binary.AppendVarint(b, int64(st.lo))
	for _, c := range used {
		b = binary.AppendUvarint(b, c)
	}
	return b
}

// UnmarshalBinary replaces s with the sketch that MarshalBinary encoded in
// data, reusing s's buckets when they are large enough. Malformed,
// truncated, inconsistent or non-canonical input returns an error wrapping
// ErrCorrupt and leaves s unchanged; it never panics.
func (s *Sketch) UnmarshalBinary(data []byte) error {
	// A first pass validates without allocating; the second, which cannot
	// fail, writes into s.
	var scratch Sketch
	d := decoder{b: data}
	if err := d.sketch(&scratch); err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	d = decoder{b: data, write: true}
	if err := d.sketch(s); err != nil { // only if data changed in between
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return nil
}

var (
	errTruncated = errors.New("truncated")
	errVarint    = errors.New("bad or non-minimal varint")
)

// decoder reads an encoding. Unless write is set it only validates: stores
// get their range and count but no buckets, and the sum no limbs.
type decoder struct {
	b     []byte
	write bool
}

func (d *decoder) byte() (byte, error) {
	if len(d.b) < 1 {
		return 0, errTruncated
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c, nil
}

func (d *decoder) float() (float64, error) {
	if len(d.b) < 8 {
		return 0, errTruncated
	}
	f := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
	d.b = d.b[8:]
	return f, nil
}

// uvarint is binary.Uvarint that also rejects non-minimal encodings (a
// final 0x00 byte), so that only canonical encodings decode.
func uvarint(b []byte) (uint64, int) {
	x, n := binary.Uvarint(b)
	if n > 1 && b[n-1] == 0 {
		return 0, -n
	}
	return x, n
}

func (d *decoder) uvarint() (uint64, error) {
	x, n := uvarint(d.b)
	if n <= 0 {
		return 0, errVarint
	}
	d.b = d.b[n:]
	return x, nil
}

func (d *decoder) varint() (int64, error) {
	ux, err := d.uvarint()
	x := int64(ux >> 1) // zigzag, as binary.Varint
	if ux&1 != 0 {
		x = ^x
	}
	return x, err
}

// sketch decodes into s, overwriting every field.
func (d *decoder) sketch(s *Sketch) error {
	v, err := d.byte()
	if err != nil {
		return err
	}
	if v != encodingVersion {
		return fmt.Errorf("unknown version %d", v)
	}
	alpha, err := d.float()
	if err != nil {
		return err
	}
	if !(alpha >= MinAlpha && alpha <= MaxAlpha) {
		return fmt.Errorf("alpha %v outside [%v, %v]", alpha, MinAlpha, MaxAlpha)
	}
	if s.m.alpha != alpha || s.m.multiplier == 0 {
		s.m = newMapping(alpha)
	}
	s.min, s.max = math.Inf(1), math.Inf(-1)
	if s.zero, err = d.uvarint(); err != nil {
		return err
	}
	if s.nonFinite, err = d.uvarint(); err != nil {
		return err
	}
	if err := d.store(&s.pos, s.m.minKey, s.m.maxKey); err != nil {
		return fmt.Errorf("positive store: %w", err)
	}
	if err := d.store(&s.neg, -s.m.maxKey, -s.m.minKey); err != nil {
		return fmt.Errorf("negative store: %w", err)
	}
	n, c := bits.Add64(s.pos.count, s.neg.count, 0)
	if _, c2 := bits.Add64(n, s.zero, 0); c != 0 || c2 != 0 {
		return errors.New("count overflows uint64")
	}
	if s.Count() > 0 {
		if err := d.minMax(s); err != nil {
			return err
		}
	}
	if err := d.sum(&s.sum); err != nil {
		return fmt.Errorf("sum: %w", err)
	}
	if len(d.b) != 0 {
		return fmt.Errorf("%d trailing bytes", len(d.b))
	}
	return nil
}

// store decodes a store whose keys must lie in [minKey, maxKey].
func (d *decoder) store(st *store, minKey, maxKey int32) error {
	nb, err := d.uvarint()
	if err != nil {
		return err
	}
	if nb == 0 {
		st.count = 0
		if d.write {
			clear(st.bins)
		}
		return nil
	}
	if nb > MaxBuckets {
		return fmt.Errorf("%d buckets, more than %d", nb, MaxBuckets)
	}
	lo, err := d.varint()
	if err != nil {
		return err
	}
	if lo < int64(minKey) || lo+int64(nb)-1 > int64(maxKey) {
		return fmt.Errorf("keys [%d, %d] outside [%d, %d]", lo, lo+int64(nb)-1, minKey, maxKey)
	}
	if uint64(len(d.b)) < nb { // every count takes at least one byte
		return errTruncated
	}
	var bins []uint64
	if d.write {
		if n := min(cap(st.bins), MaxBuckets); uint64(n) >= nb {
			bins = st.bins[:n]
			clear(bins)
		} else {
			bins = make([]uint64, nb)
		}
	}
	var total, first, last uint64
	b := d.b
	for i := range int(nb) {
		var c uint64
		if len(b) > 0 && b[0] < 0x80 { // the common one-byte count
			c, b = uint64(b[0]), b[1:]
		} else {
			x, n := uvarint(b)
			if n <= 0 {
				return errVarint
			}
			c, b = x, b[n:]
		}
		if d.write {
			bins[i] = c
		}
		if i == 0 {
			first = c
		}
		last = c
		if total+c < total {
			return errors.New("count overflows uint64")
		}
		total += c
	}
	d.b = b
	if first == 0 || last == 0 {
		return errors.New("first or last bucket empty")
	}
	*st = store{bins: bins, offset: int32(lo), lo: int32(lo), hi: int32(lo) + int32(nb) - 1, count: total}
	return nil
}

// minMax decodes the minimum and maximum and checks them against the counts.
func (d *decoder) minMax(s *Sketch) error {
	lo, err := d.float()
	if err != nil {
		return err
	}
	hi, err := d.float()
	if err != nil {
		return err
	}
	finite := func(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
	t := s.m.minIndexable
	switch {
	case !finite(lo) || !finite(hi) || lo > hi:
		return fmt.Errorf("bad min %v, max %v", lo, hi)
	case s.neg.count > 0 && lo > -t, s.pos.count > 0 && hi < t,
		s.zero > 0 && (lo >= t || hi <= -t),
		s.neg.count == 0 && lo <= -t, s.pos.count == 0 && hi >= t:
		return fmt.Errorf("min %v, max %v disagree with the counts", lo, hi)
	}
	s.min, s.max = lo, hi
	return nil
}

func (d *decoder) sum(e *exactSum) error {
	sign, err := d.byte()
	if err != nil {
		return err
	}
	n, err := d.uvarint()
	if err != nil {
		return err
	}
	switch {
	case sign > 1:
		return fmt.Errorf("bad sign %d", sign)
	case n > maxLimbs:
		return fmt.Errorf("%d limbs", n)
	case n == 0 && sign != 0:
		return errors.New("negative zero")
	}
	var base uint64
	if n > 0 {
		if base, err = d.uvarint(); err != nil {
			return err
		}
		if base+n > maxLimbs {
			return fmt.Errorf("limbs [%d, %d) beyond %d", base, base+n, maxLimbs)
		}
	}
	var limbs []int64
	if d.write {
		limbs = e.limbs[:0]
	}
	var first, last uint64
	for i := range n {
		l, err := d.uvarint()
		if err != nil {
			return err
		}
		if l > limbMask {
			return fmt.Errorf("limb %d above 32 bits", l)
		}
		if i == 0 {
			first = l
		}
		last = l
		switch {
		case !d.write:
		case sign == 1:
			limbs = append(limbs, -int64(l))
		default:
			limbs = append(limbs, int64(l))
		}
	}
	if n > 0 && (first == 0 || last == 0) {
		return errors.New("first or last limb zero")
	}
	*e = exactSum{limbs: limbs, base: int(base)}
	return nil
}
