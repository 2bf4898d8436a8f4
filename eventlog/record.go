package eventlog

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
	"unicode/utf8"
)

// The binary prediction record. EncodeEvent writes a Prediction as
//
//	0x00 0x01 'p'                    magic (no JSON text starts with NUL), version 1, kind
//	org_id, model_id, prediction_id  each a uvarint length and the bytes
//	seconds, nanoseconds, offset     the timestamp: Unix seconds (varint), nanoseconds (uvarint),
//	                                 zone offset in seconds (varint; 0 is UTC)
//	latency                          0, or 1 and the float64's 8 bytes little-endian
//	input_data, output_data, metadata  each a uvarint length and the JSON text
//
// The documents are the JSON text the caller sent, compacted and
// HTML-escaped the way encoding/json writes a json.RawMessage (only when
// they hold a byte that this changes, which a compact client document
// does not): never decoded, never encoded again. The header (kind, org,
// model) comes first, so that a reader can skip a record without reading
// its documents (RecordModel). DecodeEvent reads this record and the JSON
// records the log held before it (a first byte '{'), so an old log is
// read as it is: no migration.
const (
	recordMagic   = 0x00
	recordVersion = 0x01
	kindByteP     = 'p'
)

// errRecord reports a binary record cut short or malformed.
var errRecord = errors.New("malformed binary prediction record")

// IsBinary reports whether value is a binary record (not JSON).
func IsBinary(value []byte) bool { return len(value) > 0 && value[0] == recordMagic }

// appendPrediction appends p's binary record to dst.
func appendPrediction(dst []byte, p Prediction) ([]byte, error) {
	dst = append(dst, recordMagic, recordVersion, kindByteP)
	for _, s := range []string{p.OrgID, p.ModelID, p.PredictionID} {
		dst = appendString(dst, s)
	}
	if y := p.Timestamp.Year(); y < 0 || y > 9999 {
		return nil, fmt.Errorf("encode event: timestamp year %d outside of range [0,9999]", y)
	}
	_, off := p.Timestamp.Zone()
	dst = binary.AppendVarint(dst, p.Timestamp.Unix())
	dst = binary.AppendUvarint(dst, uint64(p.Timestamp.Nanosecond()))
	dst = binary.AppendVarint(dst, int64(off))
	if p.LatencyMS == nil {
		dst = append(dst, 0)
	} else {
		if math.IsNaN(*p.LatencyMS) || math.IsInf(*p.LatencyMS, 0) {
			return nil, fmt.Errorf("encode event: unsupported value: %v", *p.LatencyMS)
		}
		dst = binary.LittleEndian.AppendUint64(append(dst, 1), math.Float64bits(*p.LatencyMS))
	}
	for _, doc := range []json.RawMessage{p.InputData, p.OutputData, p.Metadata} {
		d, err := document(doc)
		if err != nil {
			return nil, fmt.Errorf("encode event: %w", err)
		}
		dst = binary.AppendUvarint(dst, uint64(len(d)))
		dst = append(dst, d...)
	}
	return dst, nil
}

// appendString appends s as encoding/json would read it back: invalid
// UTF-8 bytes each become U+FFFD.
func appendString(dst []byte, s string) []byte {
	if !utf8.ValidString(s) {
		var b bytes.Buffer
		for i := 0; i < len(s); {
			r, n := utf8.DecodeRuneInString(s[i:])
			b.WriteRune(r) // RuneError for an invalid byte
			i += n
		}
		s = b.String()
	}
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

// document is doc as encoding/json writes a json.RawMessage: "null" when
// empty, else compacted with <, >, &, U+2028 and U+2029 escaped. A
// document holding none of the bytes that changes is returned as is.
func document(doc json.RawMessage) ([]byte, error) {
	if len(doc) == 0 {
		return []byte("null"), nil
	}
	for _, c := range doc {
		switch c {
		case ' ', '\t', '\n', '\r', '<', '>', '&', 0xE2:
			return json.Marshal(doc)
		}
	}
	return doc, nil
}

// decodePrediction reads a binary record into p.
func decodePrediction(value []byte, p *Prediction) error {
	if len(value) < 3 || value[1] != recordVersion || value[2] != kindByteP {
		return fmt.Errorf("decode event: %w: version or kind", errRecord)
	}
	r := reader{b: value, i: 3}
	// The three ids share one string: one allocation.
	start := r.i
	var lens [3]int
	for k := range lens {
		lens[k] = r.skip()
	}
	ids := string(value[start:r.i])
	at := 0
	var strs [3]string
	for k, n := range lens {
		at += uvarintLen(uint64(n))
		if at+n > len(ids) {
			return fmt.Errorf("decode event: %w", errRecord)
		}
		strs[k] = ids[at : at+n]
		at += n
	}
	sec, nsec, off := r.varint(), r.uvarint(), r.varint()
	var lat *float64
	if r.byte() == 1 {
		if b := r.take(8); b != nil {
			v := math.Float64frombits(binary.LittleEndian.Uint64(b))
			lat = &v
		}
	}
	docsStart := r.i
	var docs [3][2]int
	for k := range docs {
		n := int(r.uvarint())
		docs[k] = [2]int{r.i, r.i + n}
		r.take(n)
	}
	if r.err {
		return fmt.Errorf("decode event: %w", errRecord)
	}
	// The documents share one copy of their bytes: the record's buffer
	// belongs to the log's reader.
	buf := bytes.Clone(value[docsStart:r.i])
	doc := func(k int) json.RawMessage {
		lo, hi := docs[k][0]-docsStart, docs[k][1]-docsStart
		return json.RawMessage(buf[lo:hi:hi])
	}
	ts := time.Unix(sec, int64(nsec)).UTC()
	if off != 0 {
		ts = ts.In(time.FixedZone("", int(off)))
	}
	*p = Prediction{OrgID: strs[0], ModelID: strs[1], PredictionID: strs[2], Timestamp: ts, LatencyMS: lat,
		InputData: doc(0), OutputData: doc(1), Metadata: doc(2)}
	return nil
}

// RecordModel returns the organization and model of a binary prediction
// record without reading the rest; ok is false for any other value.
func RecordModel(value []byte) (orgID, modelID string, ok bool) {
	if len(value) < 3 || value[0] != recordMagic || value[1] != recordVersion || value[2] != kindByteP {
		return "", "", false
	}
	r := reader{b: value, i: 3}
	org, model := r.bytes(), r.bytes()
	if r.err {
		return "", "", false
	}
	return string(org), string(model), true
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// reader reads a binary record; a read past its end sets err and yields
// zeros.
type reader struct {
	b   []byte
	i   int
	err bool
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b[min(r.i, len(r.b)):])
	if n <= 0 {
		r.err = true
		return 0
	}
	r.i += n
	return v
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b[min(r.i, len(r.b)):])
	if n <= 0 {
		r.err = true
		return 0
	}
	r.i += n
	return v
}

func (r *reader) byte() byte {
	if r.i >= len(r.b) {
		r.err = true
		return 0
	}
	r.i++
	return r.b[r.i-1]
}

// take returns the next n bytes.
func (r *reader) take(n int) []byte {
	if n < 0 || n > len(r.b)-r.i {
		r.err = true
		r.i = len(r.b)
		return nil
	}
	r.i += n
	return r.b[r.i-n : r.i]
}

// bytes reads a uvarint length and returns that many bytes.
func (r *reader) bytes() []byte {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.err = true
		return nil
	}
	return r.take(int(n))
}

// skip reads a uvarint length and steps over that many bytes, returning
// the length.
func (r *reader) skip() int {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.err = true
		return 0
	}
	r.take(int(n))
	return int(n)
}
