package bias

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/vigilhq/vigil/platform/jsonnum"
	"github.com/vigilhq/vigil/platform/web"
)

// values is one array of the label-supplied form (y_true, y_pred or a
// group_data column), dictionary-encoded: element i is distinct[codes[i]].
// A million rows of a few labels are a million small integers and a few
// decoded values, which is what the audit needs (an outcome or a group
// label per distinct value), instead of a million interface values.
type values struct {
	codes []uint32
	// distinct holds the decoded values as encoding/json decodes them into
	// any: nil, string, float64 or bool (and, from generic, arrays and
	// objects too).
	distinct []any
}

// size is the number of elements; a nil values (JSON null) has none.
func (v *values) size() int {
	if v == nil {
		return 0
	}
	return len(v.codes)
}

// generic wraps an array decoded into []any, one distinct value per
// element: the slow path's values. A nil array stays nil.
func generic(vals []any) *values {
	if vals == nil {
		return nil
	}
	v := &values{codes: make([]uint32, len(vals)), distinct: vals}
	for i := range v.codes {
		v.codes[i] = uint32(i)
	}
	return v
}

// errNotPlain refuses an array that the typed reading leaves to the
// generic one (which gives the answer): anything but an array of strings,
// finite numbers, booleans and null, or a string that decodes to text
// holding U+0000 or bytes that are not UTF-8.
var errNotPlain = errors.New("bias: not an array of plain JSON scalars")

// UnmarshalJSON reads a JSON array of scalars straight into codes and
// distinct values, decoding each distinct element text once, to the value
// encoding/json gives it in an any. It refuses (errNotPlain) every array
// it does not read exactly so; ParseRequest then reads the body again the
// generic way.
func (v *values) UnmarshalJSON(b []byte) error {
	i := web.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return errNotPlain
	}
	v.codes = make([]uint32, 0, bytes.Count(b, []byte{','})+1)
	d := dictionary{index: map[string]uint32{}}
	if i = web.SkipSpace(b, i+1); i < len(b) && b[i] == ']' {
		return end(b, i+1)
	}
	for i < len(b) {
		n := tokenEnd(b, i)
		if n <= i {
			return errNotPlain
		}
		code, err := d.code(b[i:n])
		if err != nil {
			return err
		}
		v.codes = append(v.codes, code)
		if i = web.SkipSpace(b, n); i >= len(b) {
			break
		}
		switch b[i] {
		case ',':
			i = web.SkipSpace(b, i+1)
		case ']':
			v.distinct = d.values
			return end(b, i+1)
		default:
			return errNotPlain
		}
	}
	return errNotPlain
}

// end accepts nothing but whitespace from b[i] on.
func end(b []byte, i int) error {
	if web.SkipSpace(b, i) != len(b) {
		return errNotPlain
	}
	return nil
}

// dictionary gives each distinct element text its code.
type dictionary struct {
	index  map[string]uint32
	values []any
	// first are the texts of the first few distinct elements (slices of
	// the array being read), searched before the map: a column of a few
	// labels never hashes.
	first [][]byte
}

// firstFew is how many distinct texts are searched without the map.
const firstFew = 8

// code returns the code of the element text tok, decoding it when new.
func (d *dictionary) code(tok []byte) (uint32, error) {
	for c, t := range d.first {
		if bytes.Equal(tok, t) {
			return uint32(c), nil
		}
	}
	if len(d.values) > firstFew {
		if c, ok := d.index[string(tok)]; ok {
			return c, nil
		}
	}
	val, err := scalar(tok)
	if err != nil {
		return 0, err
	}
	c := uint32(len(d.values))
	d.values = append(d.values, val)
	if len(d.first) < firstFew {
		d.first = append(d.first, tok)
	} else {
		d.index[string(tok)] = c
	}
	return c, nil
}

// scalar decodes one element's text as encoding/json would into an any.
func scalar(tok []byte) (any, error) {
	switch tok[0] {
	case '"':
		return text(tok)
	case 't', 'f', 'n':
		switch string(tok) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		case "null":
			return nil, nil
		}
		return nil, errNotPlain
	}
	f, n, ok := jsonnum.Read(tok)
	if !ok || n != len(tok) || math.IsInf(f, 0) {
		return nil, errNotPlain
	}
	return f, nil
}

// text decodes a JSON string token.
func text(tok []byte) (any, error) {
	raw := tok[1 : len(tok)-1]
	var s string
	if bytes.IndexByte(raw, '\\') < 0 {
		for _, c := range raw {
			if c < 0x20 {
				return nil, errNotPlain
			}
		}
		s = string(raw)
	} else if err := json.Unmarshal(tok, &s); err != nil {
		return nil, errNotPlain
	}
	if strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s) {
		return nil, errNotPlain
	}
	return s, nil
}

// tokenEnd returns the index after the scalar's text starting at b[i]: a
// string to its closing quote, anything else up to the next comma,
// bracket or whitespace; i when there is none.
func tokenEnd(b []byte, i int) int {
	if b[i] == '"' {
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '"':
				return j + 1
			case '\\':
				j++
			}
		}
		return i
	}
	j := i
	for j < len(b) {
		switch b[j] {
		case ',', ']', ' ', '\t', '\n', '\r', '[', '{', '}', ':', '"':
			return j
		}
		j++
	}
	return j
}
