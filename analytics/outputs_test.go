package analytics

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestOutputLabels(t *testing.T) {
	long := strings.Repeat("x", MaxLabelBytes+1)
	var many strings.Builder
	many.WriteString("{")
	for i := range MaxLabels + 3 {
		fmt.Fprintf(&many, `"f%02d":%d,`, i, i)
	}
	many.WriteString(`"last":1}`)
	var first16 []Label
	for i := range MaxLabels {
		first16 = append(first16, Label{fmt.Sprintf("f%02d", i), fmt.Sprint(i)})
	}
	for _, c := range []struct {
		out  string
		want []Label
	}{
		{`{"prediction":"approved","score":0.83}`, []Label{{"prediction", "approved"}}},
		{`{"class":2,"ok":true,"bad":false}`, []Label{{"class", "2"}, {"ok", "true"}, {"bad", "false"}}},
		{`{"a":1.0,"b":1e0,"c":-3,"d":2.5,"e":1e300}`, []Label{{"a", "1"}, {"b", "1"}, {"c", "-3"}}},
		{`{"n":null,"o":{"x":"y"},"l":["a"],"s":"` + long + `"}`, nil},
		{`{"esc":"caf\u00e9 \"q\""}`, []Label{{"esc", `café "q"`}}},
		{`{}`, nil},
		{`[1,2]`, nil},
		{`"text"`, nil},
		{``, nil},
		{many.String(), first16},
	} {
		if got := OutputLabels(json.RawMessage(c.out)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("OutputLabels(%.60s): got %v, want %v", c.out, got, c.want)
		}
	}
}

func TestOutputDistributionCap(t *testing.T) {
	d := OutputDistribution{}
	for i := range MaxValues + 10 {
		d.Add(Label{"id", fmt.Sprintf("v%03d", i)}, int64(1000-i))
	}
	d.Add(Label{"small", "a"}, 3)
	text, err := d.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got := OutputDistribution{}
	if err := got.MergeEncoded(text); err != nil {
		t.Fatal(err)
	}
	id := got["id"]
	var otherWant int64
	for i := MaxValues; i < MaxValues+10; i++ {
		otherWant += int64(1000 - i)
	}
	if len(id.Values) != MaxValues || id.Other != otherWant || id.Values["v000"] != 1000 || id.Values[fmt.Sprintf("v%03d", MaxValues)] != 0 {
		t.Errorf("got %d values, other %d, v000 %d; want %d kept (the most frequent), other %d, v000 1000",
			len(id.Values), id.Other, id.Values["v000"], MaxValues, otherWant)
	}
	if s := got["small"]; s.Values["a"] != 3 || s.Other != 0 {
		t.Errorf("got small %+v, want a:3 other 0", s)
	}
	got.Merge(got)
	if got["id"].Other != 2*otherWant {
		t.Errorf("got other %d after merging with itself, want %d", got["id"].Other, 2*otherWant)
	}
}

func TestOutputDistributionText(t *testing.T) {
	var empty OutputDistribution
	if text, err := empty.Encode(); err != nil || len(text) != 0 {
		t.Errorf("got %q, %v for an empty distribution, want \"\"", text, err)
	}
	for _, bad := range []string{`{`, `{"f":null}`, `{"f":{"other":1}}`, `[1]`} {
		if err := (OutputDistribution{}).MergeEncoded([]byte(bad)); err == nil {
			t.Errorf("MergeEncoded(%s): got nil error, want one", bad)
		}
	}
}

func TestCover(t *testing.T) {
	at := func(h, m, s int) time.Time { return time.Date(2026, 3, 1, h, m, s, 0, time.UTC) }
	for _, c := range []struct {
		from, to          time.Time
		head, hours, tail Range
	}{
		{at(10, 0, 0), at(13, 0, 0), Range{at(10, 0, 0), at(10, 0, 0)}, Range{at(10, 0, 0), at(13, 0, 0)}, Range{at(13, 0, 0), at(13, 0, 0)}},
		{at(10, 17, 30), at(13, 2, 1), Range{at(10, 17, 0), at(11, 0, 0)}, Range{at(11, 0, 0), at(13, 0, 0)}, Range{at(13, 0, 0), at(13, 3, 0)}},
		{at(10, 17, 0), at(10, 59, 59), Range{at(10, 17, 0), at(11, 0, 0)}, Range{at(11, 0, 0), at(11, 0, 0)}, Range{at(11, 0, 0), at(11, 0, 0)}},
		{at(10, 59, 0), at(11, 1, 0), Range{at(10, 59, 0), at(11, 1, 0)}, Range{at(11, 0, 0), at(11, 0, 0)}, Range{at(11, 1, 0), at(11, 1, 0)}},
	} {
		head, hours, tail := Cover(Range{c.from, c.to})
		if head != c.head || hours != c.hours || tail != c.tail {
			t.Errorf("Cover(%v, %v): got %v %v %v, want %v %v %v", c.from, c.to, head, hours, tail, c.head, c.hours, c.tail)
		}
	}
}
