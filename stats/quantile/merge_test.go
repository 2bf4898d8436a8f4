package quantile

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// wideValues mixes every kind of input: latencies, zeros, negatives, a range
// wide enough to collapse both stores, and non-finite values.
func wideValues(seed uint64, n int) []float64 {
	r := rand.New(rand.NewPCG(seed, 7))
	vs := make([]float64, n)
	for i := range vs {
		switch r.IntN(10) {
		case 0:
			vs[i] = 0
		case 1:
			vs[i] = -logUniform(r, 1e-250, 1e250)
		case 2:
			vs[i] = logUniform(r, 1e-300, 1e300)
		case 3:
			vs[i] = []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1e-320, -0.0}[r.IntN(5)]
		default:
			vs[i] = math.Exp(math.Log(0.08) + r.NormFloat64())
		}
	}
	return vs
}

// split cuts vs into k random parts and sketches each.
func split(t *testing.T, r *rand.Rand, vs []float64, k int) []*Sketch {
	t.Helper()
	parts := make([]*Sketch, k)
	for i := range parts {
		parts[i] = mustNew(t, DefaultAlpha)
	}
	for _, v := range vs {
		parts[r.IntN(k)].Add(v)
	}
	return parts
}

func mergeAll(t *testing.T, ss []*Sketch) *Sketch {
	t.Helper()
	out := mustNew(t, DefaultAlpha)
	for _, s := range ss {
		if err := out.Merge(s); err != nil {
			t.Fatalf("Merge: %v", err)
		}
	}
	return out
}

// mergeTree merges ss pairwise, as a balanced tree.
func mergeTree(t *testing.T, ss []*Sketch) *Sketch {
	t.Helper()
	if len(ss) == 1 {
		c := mustNew(t, DefaultAlpha)
		if err := c.Merge(ss[0]); err != nil {
			t.Fatalf("Merge: %v", err)
		}
		return c
	}
	l, r := mergeTree(t, ss[:len(ss)/2]), mergeTree(t, ss[len(ss)/2:])
	if err := r.Merge(l); err != nil {
		t.Fatalf("Merge: %v", err)
	}
	return r
}

// TestMergeOrderIndependent: the sketch of all values equals, byte for byte,
// any merge of sketches of a split of the values, in any order and tree
// shape, and the values added in any order.
func TestMergeOrderIndependent(t *testing.T) {
	for _, tc := range []struct {
		name string
		vs   []float64
	}{
		{"latency", generate(datasets[2], 1, 20_000)},
		{"mixed-sign", generate(datasets[8], 2, 20_000)},
		{"wide-collapsing", wideValues(3, 50_000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(11, 12))
			whole := sketchOf(t, DefaultAlpha, tc.vs)
			want := mustMarshal(t, whole)
			f := func(what string, s *Sketch) {
				t.Helper()
				if got := mustMarshal(t, s); string(got) != string(want) {
					t.Errorf("%s: encoding differs from the whole's (%d vs %d bytes)", what, len(got), len(want))
				}
			}
			shuffled := append([]float64(nil), tc.vs...)
			r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			f("shuffled adds", sketchOf(t, DefaultAlpha, shuffled))
			for _, k := range []int{2, 3, 17, 100} {
				parts := split(t, r, tc.vs, k)
				f("left fold", mergeAll(t, parts))
				r.Shuffle(k, func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
				f("shuffled fold", mergeAll(t, parts))
				f("tree", mergeTree(t, parts))
				// Merging into a non-empty sketch rather than an empty one.
				into := parts[0]
				for _, p := range parts[1:] {
					if err := into.Merge(p); err != nil {
						t.Fatalf("Merge: %v", err)
					}
				}
				f("into first part", into)
			}
		})
	}
}

// TestMergeCommutativeAssociative checks a∪b = b∪a and (a∪b)∪c = a∪(b∪c)
// on the encodings.
func TestMergeCommutativeAssociative(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ps := split(t, r, wideValues(9, 30_000), 3)
	a, b, c := ps[0], ps[1], ps[2]
	merge := func(x, y *Sketch) *Sketch {
		t.Helper()
		out := mustNew(t, DefaultAlpha)
		for _, s := range []*Sketch{x, y} {
			if err := out.Merge(s); err != nil {
				t.Fatalf("Merge: %v", err)
			}
		}
		return out
	}
	f := func(what string, x, y *Sketch) {
		t.Helper()
		if gx, gy := mustMarshal(t, x), mustMarshal(t, y); string(gx) != string(gy) {
			t.Errorf("%s: encodings differ", what)
		}
	}
	f("a∪b = b∪a", merge(a, b), merge(b, a))
	f("(a∪b)∪c = a∪(b∪c)", merge(merge(a, b), c), merge(a, merge(b, c)))
	f("(a∪c)∪b = (c∪b)∪a", merge(merge(a, c), b), merge(merge(c, b), a))
}

// TestMergeSplitAccuracy: the merged sketch answers like the sketch of the
// whole data, within α of the exact quantiles.
func TestMergeSplitAccuracy(t *testing.T) {
	vs := generate(datasets[3], 4, 50_000)
	r := rand.New(rand.NewPCG(1, 2))
	s := mergeAll(t, split(t, r, vs, 60))
	if got, want := s.Count(), uint64(len(vs)); got != want {
		t.Errorf("Count() = %d, want %d", got, want)
	}
	checkAccuracy(t, s, vs, allQuantiles())
}

func TestMergeSelf(t *testing.T) {
	vs := generate(datasets[2], 3, 1000)
	s := sketchOf(t, DefaultAlpha, vs)
	if err := s.Merge(s); err != nil {
		t.Fatalf("Merge(self): %v", err)
	}
	want := sketchOf(t, DefaultAlpha, append(vs, vs...))
	if got, w := mustMarshal(t, s), mustMarshal(t, want); string(got) != string(w) {
		t.Errorf("Merge(self) differs from adding every value twice")
	}
}

func TestMergeEmptyAndNil(t *testing.T) {
	s := sketchOf(t, DefaultAlpha, []float64{1, 2, 3, math.NaN()})
	want := mustMarshal(t, s)
	for _, o := range []*Sketch{nil, mustNew(t, DefaultAlpha), new(Sketch)} {
		if err := s.Merge(o); err != nil {
			t.Fatalf("Merge(empty): %v", err)
		}
	}
	if got := mustMarshal(t, s); string(got) != string(want) {
		t.Errorf("merging empty sketches changed the sketch")
	}
	e := mustNew(t, DefaultAlpha)
	if err := e.Merge(s); err != nil {
		t.Fatalf("Merge: %v", err)
	}
	if got := mustMarshal(t, e); string(got) != string(want) {
		t.Errorf("empty.Merge(s) differs from s")
	}
}

func TestMergeAlphaMismatch(t *testing.T) {
	a := sketchOf(t, 0.01, []float64{1, 2})
	b := sketchOf(t, 0.02, []float64{3})
	before := mustMarshal(t, a)
	err := a.Merge(b)
	if !errors.Is(err, ErrAlphaMismatch) {
		t.Fatalf("Merge with different alpha: got %v, want ErrAlphaMismatch", err)
	}
	if got := mustMarshal(t, a); string(got) != string(before) {
		t.Errorf("failed Merge changed the sketch")
	}
	if err := a.Merge(mustNew(t, 0.02)); !errors.Is(err, ErrAlphaMismatch) {
		t.Errorf("Merge of an empty sketch with different alpha: got %v, want ErrAlphaMismatch", err)
	}
}
