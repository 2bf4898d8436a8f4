package toxicity_test

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vigilhq/vigil/platform/outbound"
	"github.com/vigilhq/vigil/toxicity"
)

var update = flag.Bool("update", false, "rewrite testdata/measured.txt")

// TestBuiltinMeasured measures the built-in scorer's precision and recall
// per head (threshold 0.5) on testdata/labelled.jsonl and compares them
// with testdata/measured.txt, which docs/llm.md prints; -update rewrites it.
func TestBuiltinMeasured(t *testing.T) {
	f, err := os.Open("testdata/labelled.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type counts struct{ tp, fp, fn int }
	per := map[string]*counts{}
	for _, h := range toxicity.Heads {
		per[h] = &counts{}
	}
	c := &toxicity.Checker{Scorer: toxicity.Builtin{}}
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var row struct {
			Text  string   `json:"text"`
			Heads []string `json:"heads"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		n++
		got, err := c.Check(context.Background(), row.Text)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range toxicity.Heads {
			pred, want := got.Scores[h] >= toxicity.DefaultThreshold, slices.Contains(row.Heads, h)
			switch {
			case pred && want:
				per[h].tp++
			case pred:
				per[h].fp++
			case want:
				per[h].fn++
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| head | labelled | precision | recall |\n|---|---|---|---|\n")
	for _, h := range toxicity.Heads {
		k := per[h]
		fmt.Fprintf(&b, "| %s | %d | %s | %s |\n", h, k.tp+k.fn, ratio(k.tp, k.tp+k.fp), ratio(k.tp, k.tp+k.fn))
	}
	fmt.Fprintf(&b, "\n%d texts, threshold %.1f.\n", n, toxicity.DefaultThreshold)
	if *update {
		if err := os.WriteFile("testdata/measured.txt", []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("testdata/measured.txt")
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("got\n%s\nwant (testdata/measured.txt)\n%s", b.String(), want)
	}
}

func ratio(a, b int) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", float64(a)/float64(b))
}

// TestHTTPFormats scores through a real loopback HTTP server speaking
// each request shape, and checks what the adapter sent.
func TestHTTPFormats(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got = append(got, r.URL.Path+"?"+r.URL.RawQuery+" "+r.Header.Get("Authorization")+" "+string(body))
		switch r.URL.Path {
		case "/perspective":
			io.WriteString(w, `{"attributeScores":{"TOXICITY":{"summaryScore":{"value":0.9}},"THREAT":{"summaryScore":{"value":0.2}},
				"PROFANITY":{"summaryScore":{"value":0.7}}}}`)
		case "/openai":
			io.WriteString(w, `{"results":[{"category_scores":{"harassment":0.8,"hate":0.1,"violence":0.6,"sexual":0.05}}]}`)
		case "/plain":
			io.WriteString(w, `{"scores":{"toxicity":0.3,"insult":0.4}}`)
		default:
			w.WriteHeader(500)
		}
	}))
	defer srv.Close()
	guard := &outbound.Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}
	for _, c := range []struct {
		format, want string
		flagged      bool
	}{
		{toxicity.FormatPerspective, "identity_attack=0 insult=0 obscene=0.7 severe_toxicity=0 threat=0.2 toxicity=0.9", true},
		{toxicity.FormatOpenAI, "identity_attack=0.1 insult=0.8 obscene=0.05 severe_toxicity=0 threat=0.6 toxicity=0.8", true},
		{toxicity.FormatPlain, "identity_attack=0 insult=0.4 obscene=0 severe_toxicity=0 threat=0 toxicity=0.3", false},
	} {
		h, err := toxicity.NewHTTP(guard, srv.URL+"/"+c.format, c.format, "k3y", time.Second)
		if err != nil {
			t.Fatal(err)
		}
		res, err := (&toxicity.Checker{Scorer: h}).Check(context.Background(), "some text")
		if err != nil {
			t.Fatalf("%s: %v", c.format, err)
		}
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(res.Scores)) {
			parts = append(parts, fmt.Sprintf("%s=%g", k, res.Scores[k]))
		}
		if s := strings.Join(parts, " "); s != c.want || res.Flagged != c.flagged || res.Scorer != "http:"+c.format {
			t.Errorf("%s: got %s flagged %v by %s, want %s flagged %v", c.format, s, res.Flagged, res.Scorer, c.want, c.flagged)
		}
	}
	for i, want := range []string{`/perspective?key=k3y  {"comment":{"text":"some text"}`, `/openai? Bearer k3y {"input":"some text"}`,
		`/plain? Bearer k3y {"text":"some text"}`} {
		if i >= len(got) || !strings.HasPrefix(got[i], want) {
			t.Errorf("request %d: got %q, want it to start with %q", i, got, want)
		}
	}
	if _, err := toxicity.NewHTTP(&outbound.Guard{}, srv.URL+"/plain", toxicity.FormatPlain, "", time.Second); !outbound.Refused(err) {
		t.Errorf("got %v for a loopback target not allowed, want the guard's refusal", err)
	}
	h, _ := toxicity.NewHTTP(guard, srv.URL+"/broken", toxicity.FormatPlain, "", time.Second)
	if _, err := (&toxicity.Checker{Scorer: h}).Check(context.Background(), "x"); err == nil {
		t.Error("got no error from a scorer answering 500, want one")
	}
}
