package webtest

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// The one deliberate difference between web.DecodeBytes and encoding/json:
// encoding/json fills a field from a key that matches its name only
// case-insensitively (LATENCY_MS for latency_ms); DecodeBytes refuses the
// key as an unknown field. foldedKeys is the test's own account of such
// keys, by another way than web's: the keys of body against those of the
// value encoding/json decoded from it, encoded again.

// foldedKeys reads body, which encoding/json decoded to decoded, and
// returns the paths (a.b[2].c, as web names fields) of the keys that are
// missing from decoded encoded again but match a key there
// case-insensitively: the keys encoding/json took for another name. A key
// sent twice in one object is not looked into (its values merge or
// replace one another); unsure holds the paths of those. ok is false when
// the test cannot tell.
func foldedKeys(body []byte, decoded any) (folded, unsure []string, ok bool) {
	// Numbers are read as text: one out of float64's range (1e700) is
	// still a key's value to walk past.
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	sent, err := readNode(dec)
	if err != nil {
		return nil, nil, false
	}
	text, err := json.Marshal(decoded)
	if err != nil {
		return nil, nil, false
	}
	var kept any
	dec = json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	if err := dec.Decode(&kept); err != nil {
		return nil, nil, false
	}
	var r keyReport
	r.walk(sent, kept, "")
	return r.folded, r.unsure, true
}

// node is a JSON value as sent: an object's keys in order, duplicates
// included, with their values, or an array's elements.
type node struct {
	obj, arr bool
	keys     []string
	vals     []*node
}

// readNode reads the next JSON value of dec.
func readNode(dec *json.Decoder) (*node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return &node{}, nil
	}
	n := &node{obj: d == '{', arr: d == '['}
	for dec.More() {
		if n.obj {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key, _ := k.(string)
			n.keys = append(n.keys, key)
		}
		v, err := readNode(dec)
		if err != nil {
			return nil, err
		}
		n.vals = append(n.vals, v)
	}
	_, err = dec.Token()
	return n, err
}

// keyReport collects what foldedKeys returns.
type keyReport struct{ folded, unsure []string }

// walk compares the keys of n, at path, with those of kept.
func (r *keyReport) walk(n *node, kept any, path string) {
	switch {
	case n.obj:
		m, ok := kept.(map[string]any)
		if !ok {
			return
		}
		count := map[string]int{}
		for _, k := range n.keys {
			count[k]++
		}
		for i, k := range n.keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			v, in := m[k]
			switch {
			case !in && foldsTo(m, k):
				r.folded = append(r.folded, p)
			case in && count[k] > 1:
				r.unsure = append(r.unsure, p)
			case in:
				r.walk(n.vals[i], v, p)
			}
		}
	case n.arr:
		a, ok := kept.([]any)
		if !ok || len(a) != len(n.vals) {
			return
		}
		for i, v := range n.vals {
			r.walk(v, a[i], path+"["+strconv.Itoa(i)+"]")
		}
	}
}

// foldsTo reports whether a key of m matches k case-insensitively.
func foldsTo(m map[string]any, k string) bool {
	for name := range m {
		if strings.EqualFold(name, k) {
			return true
		}
	}
	return false
}

// under reports whether field is one of paths or inside one of them.
func under(field string, paths []string) bool {
	for _, p := range paths {
		if field == p || strings.HasPrefix(field, p+".") || strings.HasPrefix(field, p+"[") {
			return true
		}
	}
	return false
}
