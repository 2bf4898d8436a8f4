package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestWellFormed: every body wellFormed refuses, with its status and the
// path of the value; and bodies that look close but are fine.
func TestWellFormed(t *testing.T) {
	many := func(dup string) string { // an object of 40 keys, one of them twice
		var b strings.Builder
		for i := range 40 {
			fmt.Fprintf(&b, `"k%02d":%d,`, i, i)
		}
		return `{"input_data":{` + b.String() + `"` + dup + `":1}}`
	}
	cases := []struct {
		in     string
		status int
		field  string
	}{
		{``, 0, ""},
		{` `, 0, ""},
		{`{}`, 0, ""},
		{`{"a":[1,2.5,-0,0e1,1E+2,"x",true,false,null,{},[]]}`, 0, ""},
		{`{"x":1e308,"y":-1.7976931348623157e308,"z":1e-400,"w":0.0000001e314}`, 0, ""},
		{`{"n":123456789012345678901234567890}`, 0, ""},
		{`{"s":"\ud83d\ude00 \u00e9 é 😀 \ufffd \"\\\/\b\f\n\r\t"}`, 0, ""},
		{`{"a":{"k":1},"b":{"k":1}}`, 0, ""}, // the same key in two objects
		{`{"a":1,"\u0061b":1}`, 0, ""},
		{many("k40"), 0, ""},
		{strings.Repeat(`[{"a":`, 5000) + "1" + strings.Repeat("}]", 5000), 0, ""},

		{`{"input_data":{"x":1e400}}`, 422, "input_data.x"},
		{`{"predictions":[{},{"output_data":{"y":[1,-1e309]}}]}`, 422, "predictions[1].output_data.y[1]"},
		{`1e400`, 422, "body"},
		{`{"a":` + "1" + strings.Repeat("0", 400) + `}`, 422, "a"},
		{`{"a":0.1e310}`, 422, "a"},
		{`{"s":"\ud800"}`, 422, "s"},
		{`{"s":"x\udc00y"}`, 422, "s"},
		{`{"s":"\ud800\u0041"}`, 422, "s"},
		{`{"s":"\ud800\ud800"}`, 422, "s"},
		{`{"t":["\udfff"]}`, 422, "t[0]"},
		{"{\"s\":\"\xff\"}", 422, "s"},
		{"{\"s\":\"\xed\xa0\x80\"}", 422, "s"}, // a surrogate in UTF-8
		{`{"m":{"a":1},"\ud800":2}`, 422, "body"},
		{`{"m":{"a":1,"\ud800":2}}`, 422, "m"},
		{`{"a":1,"a":2}`, 422, "a"},
		{`{"a":1,"\u0061":2}`, 422, "a"},
		{`{"metadata":{"tags":{"x":1,"y":2,"x":3}}}`, 422, "metadata.tags.x"},
		{`[{"a":[{"b":1,"b":1}]}]`, 422, "[0].a[0].b"},
		{many("k07"), 422, "input_data.k07"},
		{`{"c":[0.12345678901234567,-1, 2,3.25e2, 4 ,5,1e400]}`, 422, "c[6]"}, // a run of numbers
		{`{"c":[1, 2, "x", 3, 1e400]}`, 422, "c[4]"},
		{`{"c":[1, 2,[3, 4, 5, -1e400]]}`, 422, "c[2][3]"},

		{`{"a":}`, 400, ""},
		{`{"a":1,}`, 400, ""},
		{`[1,]`, 400, ""},
		{`[1, 2,]`, 400, ""},
		{`[1, 2, -]`, 400, ""},
		{`[1, 2, 1.]`, 400, ""},
		{`[1, 2, 01]`, 400, ""},
		{`[1, 2,  3`, 400, ""},
		{`[1,2,3,-Infinity]`, 400, ""},
		{`{"a":1} x`, 400, ""},
		{`{"a":01}`, 400, ""},
		{`{"a":1.}`, 400, ""},
		{`{"a":tru}`, 400, ""},
		{`{"a":"\x"}`, 400, ""},
		{`{"a":"\u12"}`, 400, ""},
		{"{\"a\":\"\t\"}", 400, ""},
		{`{"a":"x`, 400, ""},
		{`{"a" 1}`, 400, ""},
		{`{1:1}`, 400, ""},
		{`[`, 400, ""},
		{`]`, 400, ""},
		{strings.Repeat("[", 10001) + strings.Repeat("]", 10001), 400, ""},
		{`{"a":[NaN]}`, 400, ""},
		{`{"a":"\ud800","b":1,}`, 400, ""}, // malformed further on
		{`{"a":1e400,"a":"\ud800"}`, 422, "a"},
	}
	for _, c := range cases {
		e := wantRefusal(t, c.in, wellFormed([]byte(c.in), false), c.status, c.field)
		if e == nil || e.Status != c.status {
			continue
		}
		if c.field != "" && len(e.Details) != 1 {
			t.Errorf("%.60s: got details %v, want one naming %s", c.in, e.Details, c.field)
		}
		if c.status == 400 && !strings.HasPrefix(e.Message, "malformed JSON: ") {
			t.Errorf("%.60s: got message %q, want encoding/json's", c.in, e.Message)
		}
	}
}

// TestWellFormedSyntax: wellFormed takes for JSON exactly what
// encoding/json does, on every prefix of a body rich in syntax.
func TestWellFormedSyntax(t *testing.T) {
	body := `{"a" : [1, -2.5e+3, 0.0E-1, "s\"\\\u00e9", true, false, null, {"b": {}, "c": []}], "d": "é"}`
	for n := range len(body) + 1 {
		in := []byte(body[:n])
		syntaxOK := json.Valid(in) || strings.TrimSpace(string(in)) == ""
		var e *Error
		got := wellFormed(in, false)
		if bad := errors.As(got, &e) && e.Status == 400; bad == syntaxOK {
			t.Errorf("%s: got %v, want valid %t as encoding/json", in, got, syntaxOK)
		}
	}
}

// TestWellFormedAllocations: a valid body is read without allocating.
func TestWellFormedAllocations(t *testing.T) {
	body := []byte(`{"model_id":"m","predictions":[{"input_data":{"a":1,"b":"é","c":[1e300,2]},"\u0061x":{}}]}`)
	wellFormed(body, false) // fill the pool
	if n := testing.AllocsPerRun(100, func() { _ = wellFormed(body, false) }); n != 0 {
		t.Fatalf("got %v allocations, want 0", n)
	}
}

// FuzzWellFormed: wellFormed never panics, and takes for JSON exactly
// what encoding/json does.
func FuzzWellFormed(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":"\ud800"}]}`, `{"a":1,"a":2}`, `1e400`, `[{"\u0061":"é"}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = wellFormed(b, true)
		var e *Error
		err := wellFormed(b, false)
		syntaxBad := errors.As(err, &e) && e.Status == 400
		if blank := strings.TrimSpace(string(b)) == ""; !blank && syntaxBad == json.Valid(b) {
			t.Fatalf("%q: got %v, want malformed %t as encoding/json", b, err, !json.Valid(b))
		}
	})
}

// BenchmarkWellFormed reads a batch of 1000 predictions as a tabular model
// logs them, the body of ingest's BenchmarkLogBatch; beside it, for scale
// in the same run, encoding/json's json.Valid, which checks the syntax
// alone.
func BenchmarkWellFormed(b *testing.B) {
	items := make([]string, 1000)
	for i := range items {
		items[i] = fmt.Sprintf(`{"prediction_id":"pred-%08d","input_data":{"age":%d,"monthly_charges":%g,"plan":"pro",`+
			`"paperless_billing":true,"services":["phone","internet"],"address":{"country":"DE","city":"Berlin",`+
			`"lat":52.52,"lon":13.405}},"output_data":{"churn":false,"score":%g,"label":"retain"},"latency_ms":12.25,`+
			`"metadata":{"region":"eu-west-1","model_version":"v3.2.1","request_id":"req-%08d"}}`,
			i, 18+i%60, 19.5+float64(i%1000)/10, float64(i%1000)/1000, i)
	}
	body := []byte(`{"model_id":"0193a5b2-7c4d-7e8f-9a0b-1c2d3e4f5a6b","predictions":[` + strings.Join(items, ",") + `]}`)
	b.Run("wellFormed", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			if err := wellFormed(body, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json.Valid", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if !json.Valid(body) {
				b.Fatal("invalid")
			}
		}
	})
	// A drift detection's columns: 4 features of 250k numbers as
	// json.dumps writes them.
	var cols strings.Builder
	cols.WriteString(`{"model_id": "m", "reference_data": {`)
	for f := range 4 {
		if f > 0 {
			cols.WriteString(", ")
		}
		fmt.Fprintf(&cols, `"f%d": [`, f)
		for i := range 250_000 {
			if i > 0 {
				cols.WriteString(", ")
			}
			fmt.Fprintf(&cols, "%g", float64(i%20000-10000)/7777)
		}
		cols.WriteString("]")
	}
	cols.WriteString("}}")
	columns := []byte(cols.String())
	b.Run("columns", func(b *testing.B) {
		b.SetBytes(int64(len(columns)))
		b.ReportAllocs()
		for b.Loop() {
			if err := wellFormed(columns, true); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestWellFormedNonFinite: a route that reads NaN and ±Infinity itself
// gets them through, and every other check still holds.
func TestWellFormedNonFinite(t *testing.T) {
	for in, want := range map[string]int{
		`{"x":[NaN,Infinity,-Infinity,1]}`: 0,
		`[NaN]`:                            0,
		`{"x":[Nan]}`:                      400,
		`{"x":[-Inf]}`:                     400,
		`{"x":[NaN,]}`:                     400,
		`{"x":[NaN,1e400]}`:                422,
		`{"x":[1, 2, -Infinity, 3, NaN]}`:  0,
		`{"x":[1, 2, -Inf]}`:               400,
		`{"x":[1, 2, NaN, 3, 1e400]}`:      422,
		`{"x":[NaN],"x":[1]}`:              422,
	} {
		var e *Error
		err := wellFormed([]byte(in), true)
		if want == 0 && err != nil || want != 0 && (!errors.As(err, &e) || e.Status != want) {
			t.Errorf("%s: got %v, want status %d", in, err, want)
		}
	}
}
