package web

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// A request body is JSON the whole way down, free-form objects
// (input_data, metadata, tags) included, in the sense of I-JSON (RFC 7493):
// wellFormed reads every byte of it once, before any decoder, and refuses
//
//   - a number beyond float64's range (1e400), which no engine stores and
//     no reader reads back: 422;
//   - a string holding an escaped UTF-16 surrogate that is not one of a
//     high-low pair ("\ud800"), or bytes that are not UTF-8: 422;
//   - a key twice in one object, at any depth: 422;
//   - text that is not JSON at all: 400, with encoding/json's message.
//
// Each 422 names the value by its JSON path (predictions[3].input_data.x).
// Numbers below float64's smallest magnitude read as 0 and are accepted, as
// are large integers that float64 holds only approximately.

// Problems wellFormed reports, by the path of the value.
const (
	problemRange     = "is a number beyond the range of float64 (magnitude at most 1.7976931348623157e308)"
	problemSurrogate = "holds an escaped UTF-16 surrogate (\\ud800-\\udfff) that is not one of a high-low pair"
	problemUTF8      = "holds bytes that are not UTF-8"
	problemTwice     = "appears twice in one object"
)

// errSyntax is text that is not JSON; wellFormed answers it as
// encoding/json words it.
var errSyntax = errors.New("not JSON")

// checkers reuses checkers, so that a body is read without allocating.
var checkers = sync.Pool{New: func() any { return new(checker) }}

// wellFormed checks body as the comment above describes; an empty or blank
// body passes (the route tells whether it needs one). With nonFinite, the
// values NaN, Infinity and -Infinity, as Python's json module writes them,
// are taken for numbers and left to the route's parser.
func wellFormed(body []byte, nonFinite bool) error {
	return checkHoles(body, nonFinite, nil)
}

// CheckJSON is the check wellFormed makes of a request body before the
// handler of a route that does not declare TypedBody, for the handler of
// one that does. Each hole is body[start:end] of an array at a value's
// place, in increasing order, that the caller vouches for: it holds no
// string, array or object, and its elements pass the check (JSON syntax,
// numbers within float64's range). A hole is stepped over unread, so that
// nil means the body passes provided every hole does; a hole whose start
// the check does not meet at a value's place is read as usual.
func CheckJSON(body []byte, nonFinite bool, holes ...[2]int) error {
	return checkHoles(body, nonFinite, holes)
}

// checkHoles is wellFormed stepping over holes (see CheckJSON).
func checkHoles(body []byte, nonFinite bool, holes [][2]int) error {
	c := checkers.Get().(*checker)
	c.b, c.i, c.nonFinite, c.holes = body, 0, nonFinite, holes
	c.stack, c.keys, c.scratch = c.stack[:0], c.keys[:0], c.scratch[:0]
	c.problem, c.where = "", ""
	err := c.check()
	switch {
	case err != nil:
		err = c.malformed()
	case c.problem != "":
		err = Invalid(c.where, c.problem)
	}
	c.b, c.holes = nil, nil
	if cap(c.stack) <= maxPooled && cap(c.keys) <= maxPooled && cap(c.scratch) <= maxPooled {
		checkers.Put(c) // one grown by a huge body is left to the collector
	}
	return err
}

// maxPooled bounds the slices of a checker put back for reuse.
const maxPooled = 1 << 12

// malformed is the 400 for text that is not JSON, which check met at i:
// in encoding/json's words, but for a body that may hold NaN and Infinity,
// which encoding/json would name instead.
func (c *checker) malformed() error {
	if !c.nonFinite {
		if err := DecodeOne(json.NewDecoder(bytes.NewReader(c.b)), new(json.RawMessage)); err != nil {
			return decodeError(err)
		}
	}
	return BadRequest("malformed JSON: invalid text at byte offset " + strconv.Itoa(c.i))
}

// checker is the state of one wellFormed call.
type checker struct {
	b []byte
	i int
	// stack holds the objects and arrays open at i, outermost first.
	stack []frame
	// keys holds the keys read of the objects open, each object's after
	// its parent's; scratch the text of those that hold escapes.
	keys    []key
	scratch []byte
	// escapedStart is where in scratch the key being read starts.
	escapedStart int
	// nonFinite admits NaN, Infinity and -Infinity (wellFormed).
	nonFinite bool
	// holes are the arrays stepped over unread (CheckJSON), those before
	// i already dropped.
	holes [][2]int
	// problem is the 422's detail for the first offending value, where its
	// path. Reading goes on to the end, so that text that is not JSON
	// further on answers 400 instead.
	problem, where string
}

// frame is an open object or array.
type frame struct {
	object bool
	// keys is where the object's keys start in checker.keys (for an
	// array, how many keys there were when it opened).
	keys int
	// n is the array's index at i.
	n int
}

// key is an object's key: b[start:end] of the body or, when escaped, of
// scratch.
type key struct {
	start, end int
	escaped    bool
}

// text returns k's text.
func (c *checker) text(k key) []byte {
	if k.escaped {
		return c.scratch[k.start:k.end]
	}
	return c.b[k.start:k.end]
}

// fail records problem for the value at the top of the stack, or with
// atObject for a key at its object, unless a problem came before.
func (c *checker) fail(problem string, atObject bool) {
	if c.problem == "" {
		c.problem, c.where = problem, c.path(atObject)
	}
}

// maxDepth is the deepest nesting of objects and arrays, encoding/json's.
const maxDepth = 10000

// linearKeys is how many keys an object may hold before its keys are
// checked for repeats by sorting, when it closes, rather than one by one.
const linearKeys = 16

// check reads the body, iteratively so that no depth overflows a stack.
func (c *checker) check() error {
	if c.space(); c.i == len(c.b) {
		return nil
	}
	for {
		if err := c.value(); err != nil {
			return err
		}
		// After a value: close what it ends, then find the next one.
		for {
			c.space()
			if len(c.stack) == 0 {
				if c.i != len(c.b) {
					return errSyntax
				}
				return nil
			}
			top := &c.stack[len(c.stack)-1]
			if c.i == len(c.b) {
				return errSyntax
			}
			switch ch := c.b[c.i]; {
			case ch == ',':
				c.i++
				if top.object {
					if err := c.member(); err != nil {
						return err
					}
				} else {
					top.n++
				}
			case ch == '}' && top.object:
				c.i++
				if err := c.closeObject(); err != nil {
					return err
				}
				continue
			case ch == ']' && !top.object:
				c.i++
				c.stack = c.stack[:len(c.stack)-1]
				continue
			default:
				return errSyntax
			}
			break
		}
	}
}

// value reads the value at i; an object or array is opened, and its first
// member's key read, for check to go on with.
func (c *checker) value() error {
	for {
		if c.space(); c.i == len(c.b) {
			return errSyntax
		}
		switch open := c.b[c.i]; open {
		case '{', '[':
			if open == '[' && c.hole() {
				return nil
			}
			empty, err := c.open(open == '{')
			switch {
			case err != nil:
				return err
			case empty:
				return nil
			case open == '{':
				if err := c.member(); err != nil {
					return err
				}
			}
			continue
		case '"':
			_, err := c.str(false)
			return err
		case 'N', 'I':
			if !c.nonFinite {
				return errSyntax
			}
			if c.b[c.i] == 'N' {
				return c.literal("NaN")
			}
			return c.literal("Infinity")
		case 't':
			return c.literal("true")
		case 'f':
			return c.literal("false")
		case 'n':
			return c.literal("null")
		}
		if err := c.number(); err != nil {
			return err
		}
		return c.numberRun()
	}
}

// numberRun reads on, after a number in an array, the numbers that follow
// it, each after a comma and at most one space (as encoding/json and
// Python's json module write them), in one tight loop rather than a round
// of check and value per element: the columns of a drift detection are
// millions of them. At anything else it stops before the comma, for check
// to read on as usual; a number it reads counts and is checked as there.
func (c *checker) numberRun() error {
	if len(c.stack) == 0 || c.stack[len(c.stack)-1].object {
		return nil
	}
	top := &c.stack[len(c.stack)-1]
	b := c.b
	for {
		i := c.i
		if i+2 >= len(b) || b[i] != ',' {
			return nil
		}
		if i++; b[i] == ' ' {
			i++
		}
		if ch := b[i]; !(ch >= '0' && ch <= '9' || ch == '-' && i+1 < len(b) && b[i+1] != 'I') {
			return nil
		}
		top.n++
		c.i = i
		if err := c.number(); err != nil {
			return err
		}
	}
}

// hole reports whether the array at i is the next hole, and if so steps
// over it as open and check would read it: one level deeper, then closed.
func (c *checker) hole() bool {
	for len(c.holes) > 0 && c.holes[0][0] < c.i {
		c.holes = c.holes[1:]
	}
	if len(c.holes) == 0 || c.holes[0][0] != c.i || len(c.stack)+1 > maxDepth {
		return false
	}
	c.i, c.holes = c.holes[0][1], c.holes[1:]
	return true
}

// open pushes the object or array at i and reports whether it is empty,
// in which case it is read and popped already.
func (c *checker) open(object bool) (empty bool, err error) {
	closing := byte(']')
	if object {
		closing = '}'
	}
	c.i++
	c.stack = append(c.stack, frame{object: object, keys: len(c.keys)})
	if len(c.stack) > maxDepth {
		return false, errSyntax
	}
	if c.space(); c.i < len(c.b) && c.b[c.i] == closing {
		c.i++
		c.stack = c.stack[:len(c.stack)-1]
		return true, nil
	}
	return false, nil
}

// member reads a key and its colon, and checks that the object has not had
// the key before.
func (c *checker) member() error {
	if c.space(); c.i == len(c.b) || c.b[c.i] != '"' {
		return errSyntax
	}
	k, err := c.str(true)
	if err != nil {
		return err
	}
	if c.space(); c.i == len(c.b) || c.b[c.i] != ':' {
		return errSyntax
	}
	c.i++
	own := c.keys[c.stack[len(c.stack)-1].keys:]
	c.keys = append(c.keys, k)
	if len(own) < linearKeys {
		for _, o := range own {
			if bytes.Equal(c.text(o), c.text(k)) {
				c.fail(problemTwice, false)
				break
			}
		}
	}
	return nil
}

// closeObject pops the object at the top of the stack; one of more than
// linearKeys keys has its keys checked for repeats now, by sorting them.
func (c *checker) closeObject() error {
	start := c.stack[len(c.stack)-1].keys
	if own := c.keys[start:]; len(own) > linearKeys {
		slices.SortFunc(own, func(a, b key) int { return bytes.Compare(c.text(a), c.text(b)) })
		for j := 1; j < len(own); j++ {
			if bytes.Equal(c.text(own[j-1]), c.text(own[j])) && c.problem == "" {
				c.keys = append(c.keys[:start], own[j])
				c.fail(problemTwice, false)
				break
			}
		}
	}
	c.keys = c.keys[:start]
	c.stack = c.stack[:len(c.stack)-1]
	return nil
}

// plain marks the bytes a string holds as they are: not a quote, a
// backslash, a control character or the start of a multi-byte sequence.
var plain = func() (t [256]bool) {
	for ch := 0x20; ch < 0x80; ch++ {
		t[ch] = ch != '"' && ch != '\\'
	}
	return t
}()

// special reports whether any of the 8 bytes of x is not plain: a quote,
// a backslash, a control character or one of 0x80 and above.
func special(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) &^ v & highs }
	return (x|(x-0x20*ones)|zero(x^'"'*ones)|zero(x^'\\'*ones))&highs != 0
}

// str reads the string at i. For a key (isKey) it returns the key, its
// text decoded into scratch when it holds escapes; a bad key is reported
// at its object.
func (c *checker) str(isKey bool) (key, error) {
	b := c.b
	i := c.i + 1
	k := key{start: i}
	for {
		for i+8 <= len(b) && !special(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
		}
		for i < len(b) && plain[b[i]] {
			i++
		}
		if i == len(b) {
			return k, errSyntax
		}
		switch ch := b[i]; {
		case ch == '"':
			c.i = i + 1
			if !k.escaped {
				k.end = i
				return k, nil
			}
			c.scratch = append(c.scratch, b[k.start:i]...)
			k.start, k.end = c.escapedStart, len(c.scratch)
			return k, nil
		case ch < 0x20:
			return k, errSyntax
		case ch >= 0x80:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size <= 1 {
				c.fail(problemUTF8, isKey)
			}
			i += size
		default: // a backslash
			if isKey && !k.escaped {
				k.escaped, c.escapedStart = true, len(c.scratch)
			}
			if isKey {
				c.scratch = append(c.scratch, b[k.start:i]...)
			}
			n, r, ok := escape(b, i)
			switch {
			case !ok:
				return k, errSyntax
			case r == lone:
				c.fail(problemSurrogate, isKey)
				r = utf8.RuneError
			}
			i += n
			if isKey {
				c.scratch = utf8.AppendRune(c.scratch, r)
				k.start = i
			}
		}
	}
}

// lone is what escape reads for a surrogate not in a pair.
const lone = -1

// escape reads the escape at b[i], a backslash: its length and the
// character it stands for, lone for a surrogate not in a pair; ok is false
// when it is no JSON escape.
func escape(b []byte, i int) (n int, r rune, ok bool) {
	if i+1 >= len(b) {
		return 0, 0, false
	}
	switch b[i+1] {
	case '"', '\\', '/':
		return 2, rune(b[i+1]), true
	case 'b':
		return 2, '\b', true
	case 'f':
		return 2, '\f', true
	case 'n':
		return 2, '\n', true
	case 'r':
		return 2, '\r', true
	case 't':
		return 2, '\t', true
	case 'u':
	default:
		return 0, 0, false
	}
	r1, ok := hex4(b, i+2)
	switch {
	case !ok:
		return 0, 0, false
	case !utf16.IsSurrogate(r1):
		return 6, r1, true
	case r1 >= 0xdc00: // a low surrogate first
		return 6, lone, true
	}
	if i+7 >= len(b) || b[i+6] != '\\' || b[i+7] != 'u' {
		return 6, lone, true
	}
	r2, ok := hex4(b, i+8)
	if !ok {
		return 0, 0, false
	}
	if r := utf16.DecodeRune(r1, r2); r != utf8.RuneError {
		return 12, r, true
	}
	return 6, lone, true
}

// hex4 reads the four hex digits at b[i].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, ch := range b[i : i+4] {
		switch {
		case '0' <= ch && ch <= '9':
			r = r<<4 | rune(ch-'0')
		case 'a' <= ch && ch <= 'f':
			r = r<<4 | rune(ch-'a'+10)
		case 'A' <= ch && ch <= 'F':
			r = r<<4 | rune(ch-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// literal reads true, false or null.
func (c *checker) literal(word string) error {
	if len(c.b)-c.i < len(word) || string(c.b[c.i:c.i+len(word)]) != word {
		return errSyntax
	}
	c.i += len(word)
	return nil
}

// number reads the number at i and refuses one beyond float64's range:
// one whose integer digits and exponent put it at 1e308 or above is parsed
// to tell.
func (c *checker) number() error {
	b, i := c.b, c.i
	start := i
	if i < len(b) && b[i] == '-' {
		i++
		if c.nonFinite && i < len(b) && b[i] == 'I' {
			c.i = i
			return c.literal("Infinity")
		}
	}
	digits := i
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return errSyntax
	}
	magnitude := i - digits // at most the integer digits' count of tens
	if b[digits] == '0' {
		magnitude = 0
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i == len(b) || b[i] < '0' || b[i] > '9' {
			return errSyntax
		}
		for i+8 <= len(b) && eightDigits(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		neg := false
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			neg = b[i] == '-'
			i++
		}
		if i == len(b) || b[i] < '0' || b[i] > '9' {
			return errSyntax
		}
		exp := 0
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
			exp = min(exp*10+int(b[i]-'0'), 1<<20)
		}
		if neg {
			exp = -exp
		}
		magnitude += exp
	}
	c.i = i
	if magnitude < 308 {
		return nil
	}
	f, err := strconv.ParseFloat(unsafe.String(&b[start], i-start), 64)
	if err != nil && math.IsInf(f, 0) {
		c.fail(problemRange, false)
	}
	return nil
}

// eightDigits reports whether the 8 bytes of x are all ASCII digits.
func eightDigits(x uint64) bool {
	const f0, d0, six = 0xF0F0F0F0F0F0F0F0, 0x3030303030303030, 0x0606060606060606
	return x&f0 == d0 && (x+six)&f0 == d0
}

// space skips whitespace.
func (c *checker) space() { c.i = SkipSpace(c.b, c.i) }

// path is the JSON path of the value at the top of the stack, or with
// atObject of the object at the top (whose key is at fault): "body" for the
// body itself.
func (c *checker) path(atObject bool) string {
	var p []byte
	keys := c.keys
	for j, f := range c.stack {
		if atObject && j == len(c.stack)-1 {
			break
		}
		if !f.object {
			p = strconv.AppendInt(append(p, '['), int64(f.n), 10)
			p = append(p, ']')
			continue
		}
		end := len(keys)
		if j+1 < len(c.stack) {
			end = c.stack[j+1].keys
		}
		if len(p) > 0 {
			p = append(p, '.')
		}
		p = append(p, c.text(keys[end-1])...)
	}
	if len(p) == 0 {
		return "body"
	}
	return string(p)
}
