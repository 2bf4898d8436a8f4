package drift

import (
	"encoding/json"
	"hash/fnv"
	"math/bits"
	"unicode/utf8"
)

// MaxSampleRows is the most rows a reference's Sample keeps: as many as
// one explanation's background (explanation.MaxBackground).
const MaxSampleRows = 200

// maxSampleString is the most bytes a sampled string keeps; a longer one
// is cut (at a character boundary): a sample row is a background row of
// an explanation, where a string is never a usable number.
const maxSampleString = 256

// A Sample is a uniform sample of the rows of an uploaded reference's
// reference_data: a reservoir (Algorithm R) of at most MaxSampleRows rows
// over the Seen rows offered since the reference was put. Row n (counted
// from 0 across the PUT and every append) is kept for certain while the
// reservoir is not full, else it replaces the row at j when j < size,
// where j is uniform in [0, n] and drawn from a hash of the model's seed
// and n alone: the same uploads give the same sample, and after any
// sequence of appends every row offered is kept with probability
// min(1, MaxSampleRows/Seen), as if all had been uploaded at once.
//
// A row maps each reference_data feature to its value: a number (one
// beyond float64's range is null), a string (cut to 256 bytes), a boolean
// or null.
type Sample struct {
	Seen int64            `json:"seen"`
	Rows []map[string]any `json:"rows"`
}

// SampleSeed is the seed of a model's Sample: a hash of its id.
func SampleSeed(modelID string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(modelID))
	return h.Sum64()
}

// draw is row n's index in [0, n], uniform, from seed and n alone
// (SplitMix64's finaliser, then Lemire's multiply-shift: the bias is at
// most (n+1)/2⁶⁴).
func draw(seed uint64, n int64) int64 {
	z := seed + uint64(n+1)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	hi, _ := bits.Mul64(z, uint64(n+1))
	return int64(hi)
}

// Offer offers rows rows to s: row i is read by row(i), called only for
// the rows kept.
func (s *Sample) Offer(rows int, seed uint64, row func(i int) map[string]any) {
	for i := range rows {
		n := s.Seen
		s.Seen++
		if n < MaxSampleRows {
			s.Rows = append(s.Rows, row(i))
			continue
		}
		if j := draw(seed, n); j < MaxSampleRows {
			s.Rows[j] = row(i)
		}
	}
}

// sampleRows offers data's rows (a checked reference_data: every array
// of one length) to s.
func (s *Sample) sampleRows(data map[string][]json.RawMessage, seed uint64) {
	rows := 0
	for _, values := range data {
		rows = len(values)
		break
	}
	s.Offer(rows, seed, func(i int) map[string]any {
		row := make(map[string]any, len(data))
		for name, values := range data {
			row[name] = sampleValue(values[i])
		}
		return row
	})
}

// sampleValue is raw as a Sample keeps it.
func sampleValue(raw json.RawMessage) any {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		// A number beyond float64's range.
		return nil
	}
	if s, ok := v.(string); ok && len(s) > maxSampleString {
		cut := maxSampleString
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return s[:cut]
	}
	return v
}
