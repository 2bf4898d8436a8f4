package web

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// keyScanner reads the keys of JSON text that a decoder has accepted
// already, so it checks no syntax: on text that is not JSON it stops early
// and finds nothing. What a shape does not look into it skips without
// decoding (skip).
type keyScanner struct {
	b []byte
	i int
}

// value reads the value at s.i, of shape sh, and returns the path of its
// first key that is not one of the exact names of sh, relative to the
// value, and true; or "", false.
func (s *keyScanner) value(sh *shape) (string, bool) {
	s.space()
	if s.i >= len(s.b) {
		return "", false
	}
	switch {
	case sh == nil:
	case sh.fields != nil && s.b[s.i] == '{':
		return s.object(sh)
	case sh.values != nil && s.b[s.i] == '{':
		return s.object(sh)
	case sh.elem != nil && s.b[s.i] == '[':
		return s.array(sh.elem)
	}
	s.skip()
	return "", false
}

// object reads the object at s.i, whose keys must be exact names of sh;
// any key, for a map's.
func (s *keyScanner) object(sh *shape) (string, bool) {
	s.i++ // {
	for {
		s.space()
		if s.i >= len(s.b) || s.b[s.i] != '"' { // }
			s.i++
			return "", false
		}
		start := s.i
		s.i = skipString(s.b, s.i)
		raw := s.b[start:s.i]
		child, ok := sh.values, sh.values != nil // a map's key is data
		switch {
		case ok:
		case bytes.IndexByte(raw, '\\') < 0 && len(raw) >= 2:
			child, ok = sh.fields[string(raw[1:len(raw)-1])]
		default:
			child, ok = sh.fields[unquote(raw)]
		}
		if !ok {
			return unquote(raw), true
		}
		s.space()
		s.i++ // :
		if p, bad := s.value(child); bad {
			return within(unquote(raw), p), true
		}
		if !s.next() {
			return "", false
		}
	}
}

// array reads the array at s.i, whose elements have shape elem.
func (s *keyScanner) array(elem *shape) (string, bool) {
	s.i++ // [
	for n := 0; ; n++ {
		s.space()
		if s.i >= len(s.b) || s.b[s.i] == ']' {
			s.i++
			return "", false
		}
		if p, bad := s.value(elem); bad {
			return within("["+strconv.Itoa(n)+"]", p), true
		}
		if !s.next() {
			return "", false
		}
	}
}

// next reads the comma before the next member or element and reports
// whether there is one; else it reads the closing } or ].
func (s *keyScanner) next() bool {
	s.space()
	s.i++
	return s.i <= len(s.b) && s.b[s.i-1] == ','
}

// space skips whitespace.
func (s *keyScanner) space() { s.i = SkipSpace(s.b, s.i) }

// SkipSpace returns the index of the first byte at or after b[i] that is
// not JSON whitespace; len(b) if there is none. The scanners of typed
// request bodies (bias, drift) share it.
func SkipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// structural marks the bytes that skip looks at inside an object or
// array; ends, those that end a number or literal.
var structural, ends = [256]bool{'"': true, '{': true, '}': true, '[': true, ']': true},
	[256]bool{',': true, '}': true, ']': true, ' ': true, '\t': true, '\n': true, '\r': true}

// skip skips the value at s.i.
func (s *keyScanner) skip() {
	b, i := s.b, s.i
	if i >= len(b) {
		return
	}
	switch b[i] {
	case '"':
		s.i = skipString(b, i)
		return
	case '{', '[':
	default:
		for i < len(b) && !ends[b[i]] {
			i++
		}
		s.i = i
		return
	}
	depth := 0
	for i < len(b) {
		if !structural[b[i]] {
			i++
			continue
		}
		switch b[i] {
		case '"':
			i = skipString(b, i)
			continue
		case '{', '[':
			depth++
		default:
			if depth--; depth == 0 {
				s.i = i + 1
				return
			}
		}
		i++
	}
	s.i = i
}

// skipString returns the index after the string that starts at b[i], a
// quote; len(b) if it does not end.
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '"':
			return j + 1
		case '\\':
			j++
		}
	}
	return len(b)
}

// unquote returns the text of the JSON string raw, quotes included, as a
// decoder reads it; raw itself if it does not decode.
func unquote(raw []byte) string {
	if len(raw) >= 2 && bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1])
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return string(raw)
	}
	return s
}

// within returns path p of a value under seg, a key or [index]:
// seg.p, or seg[i] for an index.
func within(seg, p string) string {
	switch {
	case p == "":
		return seg
	case p[0] == '[':
		return seg + p
	}
	return seg + "." + p
}
