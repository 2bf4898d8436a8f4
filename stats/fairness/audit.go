package fairness

import (
	"fmt"
	"slices"
	"strings"
)

// Audit computes the fairness metrics of in: per attribute the groups'
// counts and rates and each requested metric, then the summaries, the
// overall score, severity and recommendations. Errors wrap ErrInvalid.
func Audit(in Input) (Report, error) {
	in, err := in.checked()
	if err != nil {
		return Report{}, err
	}
	rep := Report{Rows: int64(len(in.Pred)), Labelled: in.Truth != nil}
	var all [cells]int64
	for _, a := range in.Attributes {
		t, err := tallyOf(a, in.Pred, in.Truth)
		if err != nil {
			return Report{}, err
		}
		all = t.total()
		ar, err := attributeReport(in, a.Name, t)
		if err != nil {
			return Report{}, err
		}
		rep.Attributes = append(rep.Attributes, ar)
	}
	rep.Overall = newGroup("", all, rep.Labelled)
	rep.summarise(in.Metrics)
	rep.Recommendations = recommend(rep, in.Thresholds, in.SmallGroup)
	return rep, nil
}

// tallyOf counts one attribute in whichever form it came.
func tallyOf(a Attribute, pred, truth []bool) (tally, error) {
	if a.Values != nil {
		return tallyValues(a.Values, pred, truth), nil
	}
	return tallyCodes(a.Name, a.Levels, a.Codes, pred, truth)
}

// total adds up every level and the missing rows.
func (t tally) total() [cells]int64 {
	out := t.missing
	for i, v := range t.counts {
		out[i%cells] += v
	}
	return out
}

// attributeReport builds the groups of one attribute and judges its metrics.
func attributeReport(in Input, name string, t tally) (AttributeReport, error) {
	labelled := in.Truth != nil
	ar := AttributeReport{Name: name}
	for _, i := range t.order() {
		ar.Groups = append(ar.Groups, newGroup(t.levels[i], t.cellsOf(i), labelled))
	}
	if t.missing != [cells]int64{} {
		if in.MissingGroup == "" {
			for _, c := range t.missing {
				ar.Missing += c
			}
		} else {
			if hasGroup(ar.Groups, in.MissingGroup) {
				return ar, invalid("attribute %q: missing-value group %q is also a group label", name, in.MissingGroup)
			}
			ar.Groups = insertGroup(ar.Groups, newGroup(in.MissingGroup, t.missing, labelled))
		}
	}
	ref := -1
	if r, ok := in.Reference[name]; ok {
		ar.Reference = r
		if !hasGroup(ar.Groups, r) {
			ar.Groups = insertGroup(ar.Groups, Group{Name: r})
		}
		ref = slices.IndexFunc(ar.Groups, func(g Group) bool { return g.Name == r })
	}
	data := attributeData{name: name, groups: ar.Groups, ref: ref, labelled: labelled, asZero: in.UndefinedAsZero}
	for _, m := range in.Metrics {
		ar.Results = append(ar.Results, evaluate(ruleOf(m, in.Thresholds), data))
	}
	return ar, nil
}

func hasGroup(groups []Group, name string) bool {
	return slices.ContainsFunc(groups, func(g Group) bool { return g.Name == name })
}

// insertGroup adds g at its place in name order.
func insertGroup(groups []Group, g Group) []Group {
	i, _ := slices.BinarySearchFunc(groups, g.Name, func(a Group, name string) int { return strings.Compare(a.Name, name) })
	return slices.Insert(groups, i, g)
}

// String renders a one-line summary for logs.
func (r Report) String() string {
	if !r.Scored {
		return fmt.Sprintf("fairness audit of %d rows: no metric computed", r.Rows)
	}
	return fmt.Sprintf("fairness audit of %d rows: score %.2f (%s), severity %s", r.Rows, r.Score, r.Band, r.Severity)
}
