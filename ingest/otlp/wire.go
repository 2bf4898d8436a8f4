package otlp

import (
	"math"
	"strconv"
	"unicode/utf8"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// DecodeCalls reads the LLM calls of an export in format by resource, and
// how many spans were not LLM calls: Decode then Calls. A protobuf export
// is read straight from the wire, without building the whole request (a
// span's every attribute and value as a message of its own); whenever that
// reading meets anything but a plain export (a malformed body, a value set
// twice, deep nesting) it leaves the body to Decode, so the answer and any
// error are Decode's.
func DecodeCalls(body []byte, format string) ([]Batch, int, error) {
	if format == Protobuf {
		if batches, ignored, ok := wireCalls(body); ok {
			return batches, ignored, nil
		}
	}
	req, err := Decode(body, format)
	if err != nil {
		return nil, 0, err
	}
	batches, ignored := Calls(req)
	return batches, ignored, nil
}

// maxWireDepth bounds the nesting of attribute values read from the wire;
// deeper ones are left to Decode.
const maxWireDepth = 32

// field is one field of a protobuf message: v holds a varint or fixed
// value, b the bytes of a length-delimited one.
type field struct {
	num protowire.Number
	typ protowire.Type
	v   uint64
	b   []byte
}

// fields calls fn with each field of the message b, and reports false
// when b is malformed or fn returned false.
func fields(b []byte, fn func(f field) bool) bool {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || num > protowire.MaxValidNumber {
			return false
		}
		b = b[n:]
		f := field{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			f.v, n = protowire.ConsumeVarint(b)
		case protowire.Fixed64Type:
			f.v, n = protowire.ConsumeFixed64(b)
		case protowire.Fixed32Type:
			var v uint32
			v, n = protowire.ConsumeFixed32(b)
			f.v = uint64(v)
		case protowire.BytesType:
			f.b, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 || !fn(f) {
			return false
		}
		b = b[n:]
	}
	return true
}

// is reports whether f is field num of type typ: a known field sent with
// another wire type is an unknown field to protobuf, and skipped.
func (f field) is(num protowire.Number, typ protowire.Type) bool {
	return f.num == num && f.typ == typ
}

// text is a string field, which must be UTF-8 as protobuf requires.
func (f field) text() (string, bool) {
	return string(f.b), utf8.Valid(f.b)
}

// wireCalls is Calls(Decode(body, Protobuf)) read from the wire; ok is
// false when the body is to be left to Decode.
func wireCalls(body []byte) (batches []Batch, ignored int, ok bool) {
	ok = fields(body, func(f field) bool {
		if !f.is(1, protowire.BytesType) {
			return true
		}
		b, n, ok := wireResourceSpans(f.b)
		ignored += n
		if ok && len(b.Calls) > 0 {
			batches = append(batches, b)
		}
		return ok
	})
	return batches, ignored, ok
}

func wireResourceSpans(m []byte) (b Batch, ignored int, ok bool) {
	var res wireAttrs
	spans := make([]span, 0, 64)
	ok = fields(m, func(f field) bool {
		switch {
		case f.is(1, protowire.BytesType): // resource
			return fields(f.b, func(f field) bool {
				switch {
				case f.is(1, protowire.BytesType):
					return res.add(f.b)
				case f.is(3, protowire.BytesType): // entity_refs
					return validEntityRef(f.b)
				}
				return true
			})
		case f.is(2, protowire.BytesType): // scope_spans
			return fields(f.b, func(f field) bool {
				switch {
				case f.is(1, protowire.BytesType):
					return validScope(f.b)
				case f.is(2, protowire.BytesType):
					sp, ok := wireSpan(f.b)
					spans = append(spans, sp)
					return ok
				case f.is(3, protowire.BytesType):
					return utf8.Valid(f.b)
				}
				return true
			})
		case f.is(3, protowire.BytesType): // schema_url
			return utf8.Valid(f.b)
		}
		return true
	})
	if !ok {
		return b, 0, false
	}
	b = Batch{ModelID: res.str(AttrModelID), ServiceName: res.str(AttrServiceName)}
	for _, sp := range spans {
		c, isCall := sp.call()
		if !isCall {
			ignored++
			continue
		}
		b.Calls = append(b.Calls, c)
	}
	return b, ignored, true
}

func wireSpan(m []byte) (sp span, ok bool) {
	a := make(wireAttrs, 0, 16) // a GenAI span has about ten
	ok = fields(m, func(f field) bool {
		switch {
		case f.is(1, protowire.BytesType):
			sp.traceID = f.b
		case f.is(2, protowire.BytesType):
			sp.spanID = f.b
		case f.is(3, protowire.BytesType): // trace_state
			return utf8.Valid(f.b)
		case f.is(5, protowire.BytesType):
			var ok bool
			sp.name, ok = f.text()
			return ok
		case f.is(7, protowire.Fixed64Type):
			sp.start = f.v
		case f.is(8, protowire.Fixed64Type):
			sp.end = f.v
		case f.is(9, protowire.BytesType):
			return a.add(f.b)
		case f.is(11, protowire.BytesType):
			ev, ok := wireEvent(f.b)
			sp.events = append(sp.events, ev)
			return ok
		case f.is(13, protowire.BytesType): // links
			return fields(f.b, func(f field) bool {
				switch {
				case f.is(3, protowire.BytesType):
					return utf8.Valid(f.b)
				case f.is(4, protowire.BytesType):
					return validKeyValue(f.b, 0)
				}
				return true
			})
		case f.is(15, protowire.BytesType): // status: merged when sent twice
			return fields(f.b, func(f field) bool {
				switch {
				case f.is(2, protowire.BytesType):
					var ok bool
					sp.message, ok = f.text()
					return ok
				case f.is(3, protowire.VarintType):
					sp.failed = int32(f.v) == 2 // STATUS_CODE_ERROR
				}
				return true
			})
		}
		return true
	})
	sp.attrs = a
	return sp, ok
}

func wireEvent(m []byte) (ev event, ok bool) {
	var a wireAttrs
	ok = fields(m, func(f field) bool {
		switch {
		case f.is(2, protowire.BytesType):
			var ok bool
			ev.name, ok = f.text()
			return ok
		case f.is(3, protowire.BytesType):
			return a.add(f.b)
		}
		return true
	})
	ev.attrs = a
	return ev, ok
}

// validScope checks an InstrumentationScope's strings and attributes.
func validScope(m []byte) bool {
	return fields(m, func(f field) bool {
		switch {
		case f.is(1, protowire.BytesType), f.is(2, protowire.BytesType):
			return utf8.Valid(f.b)
		case f.is(3, protowire.BytesType):
			return validKeyValue(f.b, 0)
		}
		return true
	})
}

// validEntityRef checks an EntityRef's strings.
func validEntityRef(m []byte) bool {
	return fields(m, func(f field) bool {
		if f.typ == protowire.BytesType && f.num >= 1 && f.num <= 4 {
			return utf8.Valid(f.b)
		}
		return true
	})
}

// wireKV is one attribute as sent: its key, and its AnyValue's bytes.
type wireKV struct {
	key, value []byte
}

// wireAttrs is attributes in the order sent; a key sent again wins, as
// it does in the decoded request's map.
type wireAttrs []wireKV

// add reads one KeyValue: ok is false when it is malformed or needs
// Decode (its value sent twice, which protobuf merges).
func (a *wireAttrs) add(m []byte) bool {
	var kv wireKV
	values := 0
	ok := fields(m, func(f field) bool {
		switch {
		case f.is(1, protowire.BytesType):
			kv.key = f.b
			return utf8.Valid(f.b)
		case f.is(2, protowire.BytesType):
			kv.value = f.b
			values++
			return values == 1 && validAnyValue(f.b, 1)
		}
		return true
	})
	if ok {
		*a = append(*a, kv)
	}
	return ok
}

// validKeyValue checks a KeyValue as add does, keeping nothing.
func validKeyValue(m []byte, depth int) bool {
	values := 0
	return fields(m, func(f field) bool {
		switch {
		case f.is(1, protowire.BytesType):
			return utf8.Valid(f.b)
		case f.is(2, protowire.BytesType):
			values++
			return values == 1 && validAnyValue(f.b, depth+1)
		}
		return true
	})
}

// validAnyValue checks an AnyValue: well formed, its strings UTF-8, at
// most one of its oneof members sent (protobuf's rules for a member sent
// again or replaced are Decode's to apply), nested at most maxWireDepth.
func validAnyValue(m []byte, depth int) bool {
	if depth > maxWireDepth {
		return false
	}
	members := 0
	return fields(m, func(f field) bool {
		if f.num < 1 || f.num > 8 {
			return true
		}
		members++
		if members > 1 {
			return false
		}
		switch {
		case f.is(1, protowire.BytesType):
			return utf8.Valid(f.b)
		case f.is(5, protowire.BytesType), f.is(6, protowire.BytesType): // array, kvlist
			return fields(f.b, func(e field) bool {
				switch {
				case e.is(1, protowire.BytesType) && f.num == 5:
					return validAnyValue(e.b, depth+1)
				case e.is(1, protowire.BytesType):
					return validKeyValue(e.b, depth)
				}
				return true
			})
		}
		return true
	})
}

// find is the value of key's last KeyValue, and whether there is one.
func (a wireAttrs) find(key string) ([]byte, bool) {
	for i := len(a) - 1; i >= 0; i-- {
		if string(a[i].key) == key {
			return a[i].value, true
		}
	}
	return nil, false
}

// scalar is the oneof member an AnyValue checked by validAnyValue holds
// (num 0 for none); v and b as in field.
func scalar(m []byte) field {
	var out field
	fields(m, func(f field) bool {
		if f.num >= 1 && f.num <= 8 {
			out = f
		}
		return true
	})
	return out
}

func (a wireAttrs) str(key string) string {
	m, ok := a.find(key)
	if !ok {
		return ""
	}
	switch f := scalar(m); {
	case f.is(1, protowire.BytesType):
		return string(f.b)
	case f.is(2, protowire.VarintType):
		return strconv.FormatBool(protowire.DecodeBool(f.v))
	case f.is(3, protowire.VarintType):
		return strconv.FormatInt(int64(f.v), 10)
	case f.is(4, protowire.Fixed64Type):
		return strconv.FormatFloat(math.Float64frombits(f.v), 'g', -1, 64)
	case f.is(5, protowire.BytesType), f.is(6, protowire.BytesType):
		v := &commonpb.AnyValue{}
		if err := proto.Unmarshal(m, v); err != nil {
			return ""
		}
		return text(v)
	}
	return ""
}

func (a wireAttrs) count(keys ...string) int64 {
	for _, k := range keys {
		m, ok := a.find(k)
		if !ok {
			continue
		}
		switch f := scalar(m); {
		case f.is(3, protowire.VarintType):
			return int64(f.v)
		case f.is(4, protowire.Fixed64Type):
			if d := math.Float64frombits(f.v); d == float64(int64(d)) {
				return int64(d)
			}
		case f.is(1, protowire.BytesType):
			if n, err := strconv.ParseInt(string(f.b), 10, 64); err == nil {
				return n
			}
		}
	}
	return -1
}
