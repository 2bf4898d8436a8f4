package drift

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/vigilhq/vigil/platform/web"
)

// MaxFeatures is the most features one detection request may carry.
const MaxFeatures = 10000

// Request is a POST /drift/detect body, checked for shape: the feature
// arrays are located but not read yet (Detect reads them in parallel), so
// that the model can be looked up before the expensive part.
type Request struct {
	ModelID string
	// Features are the features of reference_data, each with its two
	// arrays, sorted by name.
	Features []Feature
	// Method and Threshold are the request's config; they apply to every
	// feature and take precedence over the model's configuration.
	Method    Method
	Threshold *float64
	// Record is the body's record: false keeps the result from being
	// stored as a drift report; nil (left out) stores it.
	Record *bool
}

// Feature is one feature's two JSON arrays, as sent.
type Feature struct {
	Name               string
	Reference, Current []byte
}

// requestConfig is the config member of the body.
type requestConfig struct {
	Threshold *float64 `json:"threshold"`
	Method    Method   `json:"method"`
}

// ParseRequest checks the shape of a POST /drift/detect body: a JSON object
// with model_id, reference_data and current_data (objects of feature name
// to array, with the same features) and an optional config. Malformed JSON
// is a 400, everything else a 422 naming the field (reference_data.age);
// every problem found is reported at once. The arrays' contents are checked
// by Detect. A body is read quickly first (see scanner.quick), and read
// again with every check in order when that finds anything amiss, so the
// answer is always the full check's.
func ParseRequest(body []byte) (Request, error) {
	s := scanner{b: body, quick: true}
	if req, err := s.parse(); err == nil && s.confirm() {
		return req, nil
	}
	s = scanner{b: body}
	return s.parse()
}

// parse reads the body as ParseRequest describes.
func (s *scanner) parse() (Request, error) {
	var req Request
	var v web.Problems
	var ref, cur map[string][]byte
	body := s.b
	s.i = web.SkipSpace(body, 0)
	if s.i >= len(body) || body[s.i] != '{' {
		return req, web.BadRequest("request body must be a JSON object")
	}
	seen := map[string]bool{}
	err := s.members(func(name string) error {
		if seen[name] {
			v.Add(name, "appears twice")
		}
		seen[name] = true
		var err error
		switch name {
		case "reference_data":
			ref, err = s.data(&v, name)
			return err
		case "current_data":
			cur, err = s.data(&v, name)
			return err
		}
		raw, err := s.value()
		if err != nil {
			return err
		}
		switch name {
		case "model_id":
			if err := json.Unmarshal(raw, &req.ModelID); err != nil {
				v.Add("model_id", "must be a string")
			}
		case "config":
			req.config(&v, raw)
		case "record":
			if !bytes.Equal(raw, []byte("null")) && json.Unmarshal(raw, &req.Record) != nil {
				v.Add("record", "must be a boolean")
			}
		default:
			v.Add(name, "is not an accepted field")
		}
		return nil
	})
	if err != nil {
		return req, err
	}
	if web.SkipSpace(body, s.i) != len(body) {
		return req, web.BadRequest("malformed JSON: unexpected data after the JSON value")
	}
	v.Required("model_id", req.ModelID)
	v.Text("model_id", req.ModelID)
	req.pair(&v, ref, cur)
	return req, v.Err()
}

// config decodes the config member.
func (r *Request) config(v *web.Problems, raw []byte) {
	if bytes.Equal(raw, []byte("null")) {
		return
	}
	var c requestConfig
	if err := web.DecodeBytes(raw, &c); err != nil {
		var e *web.Error
		if errors.As(err, &e) && e.Status == http.StatusUnprocessableEntity {
			for field, problem := range e.Details {
				v.Add("config."+field, fmt.Sprint(problem))
			}
			return
		}
		v.Add("config", "must be an object {threshold, method}")
		return
	}
	if !c.Method.Valid() {
		v.Add("config.method", "must be one of "+strings.Join(methodNames(), ", "))
	}
	if c.Threshold != nil {
		checkThreshold(v, "config.threshold", c.Method, *c.Threshold)
	}
	r.Method, r.Threshold = c.Method, c.Threshold
}

// pair matches the features of both sides.
func (r *Request) pair(v *web.Problems, ref, cur map[string][]byte) {
	for side, m := range map[string]map[string][]byte{"reference_data": ref, "current_data": cur} {
		switch {
		case m == nil:
			v.Add(side, "is required: an object of feature name to array of values")
		case len(m) == 0:
			v.Add(side, "got no features, want at least 1")
		case len(m) > MaxFeatures:
			v.Add(side, fmt.Sprintf("got %d features, want at most %d", len(m), MaxFeatures))
		}
	}
	if ref == nil || cur == nil {
		return
	}
	for name, raw := range ref {
		c, ok := cur[name]
		if !ok {
			v.Add("current_data."+name, "is missing: the feature is in reference_data, so current_data needs it too")
			continue
		}
		r.Features = append(r.Features, Feature{Name: name, Reference: raw, Current: c})
	}
	for name := range cur {
		if _, ok := ref[name]; !ok {
			v.Add("reference_data."+name, "is missing: the feature is in current_data, so reference_data needs it too")
		}
	}
	slices.SortFunc(r.Features, func(a, b Feature) int { return strings.Compare(a.Name, b.Name) })
}

// scanner walks the body. Only the two data objects are read by hand; the
// small members go through encoding/json.
type scanner struct {
	b []byte
	i int
	// quick takes the first ']' after a column's '[' as its end, unless
	// the column starts with a string, and leaves checking that no string,
	// array or object came before it to confirm, which checks every
	// column so located (in quick) at once, in parallel.
	quick   bool
	located [][]byte
	// holes are the located columns as byte ranges of b, brackets
	// included (for web.CheckJSON).
	holes [][2]int
}

// confirm reports whether every column a quick parse located is free of
// '"', '[' and '{' (so that its first ']' is its end, as the full check
// would have found), checking the columns on GOMAXPROCS goroutines.
func (s *scanner) confirm() bool {
	var next atomic.Int64
	var bad atomic.Bool
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(s.located)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(s.located) && !bad.Load(); i = int(next.Add(1) - 1) {
				if seg := s.located[i]; !plain(seg) {
					bad.Store(true)
				}
			}
		})
	}
	wg.Wait()
	return !bad.Load()
}

// plain reports whether seg, a column's text between its brackets, holds
// no string, array or object. It searches 64 KiB at a time for each of
// the three bytes, so that memory is read once and the second and third
// searches run in cache.
func plain(seg []byte) bool {
	const chunk = 64 << 10
	for len(seg) > 0 {
		c := seg[:min(chunk, len(seg))]
		if bytes.IndexByte(c, '"') >= 0 || bytes.IndexByte(c, '[') >= 0 || bytes.IndexByte(c, '{') >= 0 {
			return false
		}
		seg = seg[len(c):]
	}
	return true
}

// members reads the object at s.i, calling value with each name once s.i
// is at the value; value must move s.i past it.
func (s *scanner) members(value func(name string) error) error {
	s.i = web.SkipSpace(s.b, s.i+1)
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return nil
	}
	for {
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return web.BadRequest("malformed JSON: want a member name in double quotes")
		}
		end, escaped, ok := stringEnd(s.b, s.i)
		if !ok {
			return web.BadRequest("malformed JSON: a member name is not a valid string")
		}
		name := string(s.b[s.i+1 : end-1])
		if escaped {
			if err := json.Unmarshal(s.b[s.i:end], &name); err != nil {
				return web.BadRequest("malformed JSON: a member name is not a valid string")
			}
		}
		s.i = web.SkipSpace(s.b, end)
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return web.BadRequest("malformed JSON: want : after a member name")
		}
		s.i = web.SkipSpace(s.b, s.i+1)
		if s.i >= len(s.b) {
			return web.BadRequest("malformed JSON: unexpected end of the body")
		}
		if err := value(name); err != nil {
			return err
		}
		s.i = web.SkipSpace(s.b, s.i)
		if s.i >= len(s.b) {
			return web.BadRequest("malformed JSON: unexpected end of the body")
		}
		switch s.b[s.i] {
		case ',':
			s.i = web.SkipSpace(s.b, s.i+1)
		case '}':
			s.i++
			return nil
		default:
			return web.BadRequest("malformed JSON: want , or } after a member")
		}
	}
}

// data reads a reference_data or current_data member at s.i: an object of
// feature name to array (null is treated as absent).
func (s *scanner) data(v *web.Problems, field string) (map[string][]byte, error) {
	if s.b[s.i] != '{' {
		raw, err := s.value()
		if err == nil && !bytes.Equal(raw, []byte("null")) {
			v.Add(field, "must be an object of feature name to array of values")
		}
		return nil, err
	}
	out := map[string][]byte{}
	err := s.members(func(name string) error {
		path := field + "." + name
		if _, dup := out[name]; dup {
			v.Add(path, "appears twice")
		}
		if s.b[s.i] != '[' {
			v.Add(path, "must be an array of values")
			_, err := s.value()
			return err
		}
		end, err := s.arrayEnd(path)
		if err != nil {
			return err
		}
		out[name] = s.b[s.i:end]
		s.i = end
		return nil
	})
	return out, err
}

// value reads any JSON value at s.i with encoding/json and returns it.
func (s *scanner) value() ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(s.b[s.i:]))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, &web.Error{Status: http.StatusBadRequest, Code: web.CodeBadRequest, Message: "malformed JSON: " + err.Error(), Err: err}
	}
	start := s.i
	s.i += int(dec.InputOffset())
	return s.b[start:s.i], nil
}

// arrayEnd returns the index after the array at s.b[s.i], a feature
// column. Its elements are checked when read (readColumn); here only
// strings are skipped, and a nested array or object is refused (422
// naming field). An array without strings ends at its first ']', found
// with a byte search (and, when quick, checked later by confirm).
func (s *scanner) arrayEnd(field string) (int, error) {
	b, i := s.b, s.i
	if j := bytes.IndexByte(b[i+1:], ']'); j >= 0 {
		seg := b[i+1 : i+1+j]
		if s.quick && b[web.SkipSpace(b, i+1)] != '"' {
			s.located = append(s.located, seg)
			s.holes = append(s.holes, [2]int{i, i + 2 + j})
			return i + 2 + j, nil
		}
		if plain(seg) {
			return i + 2 + j, nil
		}
	}
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '"':
			end, _, ok := stringEnd(b, j)
			if !ok {
				return 0, web.BadRequest("malformed JSON: " + field + " holds an invalid string")
			}
			j = end - 1
		case '[', '{':
			return 0, web.Invalid(field, "holds an array or object, want numbers, strings, booleans or null")
		case ']':
			return j + 1, nil
		}
	}
	return 0, web.BadRequest("malformed JSON: " + field + " is not closed")
}
