package fairness

import (
	"testing"
)

// benchRows is the size of the benchmark of the issue: fairness over ten
// million rows, against fairlearn's MetricFrame on the same rows
// (testdata/bench_fairlearn.py).
const benchRows = 10_000_000

// BenchmarkAudit10M audits two attributes (gender: 3 groups, race: 5) given
// as strings, with labels, every metric: what bench_fairlearn.py times.
func BenchmarkAudit10M(b *testing.B) {
	gender, race, truth, pred := syntheticRows(benchRows)
	in := Input{
		Attributes: []Attribute{
			{Name: "gender", Values: labelled(syntheticGenders, gender)},
			{Name: "race", Values: labelled(syntheticRaces, race)},
		},
		Pred: pred, Truth: truth,
	}
	benchAudit(b, in)
}

// BenchmarkAudit10MEncoded is the same audit with the attributes
// dictionary-encoded, as a columnar store hands them out.
func BenchmarkAudit10MEncoded(b *testing.B) {
	gender, race, truth, pred := syntheticRows(benchRows)
	in := Input{
		Attributes: []Attribute{
			{Name: "gender", Levels: syntheticGenders, Codes: gender},
			{Name: "race", Levels: syntheticRaces, Codes: race},
		},
		Pred: pred, Truth: truth,
	}
	benchAudit(b, in)
}

func benchAudit(b *testing.B, in Input) {
	b.Helper()
	b.SetBytes(int64(len(in.Pred)))
	b.ReportAllocs()
	var rep Report
	for b.Loop() {
		var err error
		if rep, err = Audit(in); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(in.Pred)), "ns/row")
	b.Logf("%s; gender disparate impact %.6f, race %.6f", rep, rep.Attributes[0].Results[3].Value, rep.Attributes[1].Results[3].Value)
}
