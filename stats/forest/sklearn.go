package forest

import (
	"encoding/json"
)

// skModel is the JSON export of testdata/export_sklearn.py.
type skModel struct {
	Format       string   `json:"format"`
	Version      int      `json:"version"`
	Estimator    string   `json:"estimator"`
	NFeatures    int      `json:"n_features"`
	FeatureNames []string `json:"feature_names"`
	Base         float64  `json:"base"`
	Scale        float64  `json:"scale"`
	Link         string   `json:"link"`
	Trees        []skTree `json:"trees"`
}

// skTree is one tree of the export (arrays indexed by node id).
type skTree struct {
	Left      []int     `json:"children_left"`
	Right     []int     `json:"children_right"`
	Feature   []int     `json:"feature"`
	Threshold []float64 `json:"threshold"`
	MissLeft  []int     `json:"missing_go_to_left"`
	Value     []float64 `json:"value"`
	Weight    []float64 `json:"weighted_n_node_samples"`
}

// ParseSklearn reads scikit-learn trees exported by
// testdata/export_sklearn.py (format "vigil-sklearn-trees", version 1;
// the script's header documents every field). Splits send x <= threshold
// left, comparing x in float32; covers are weighted_n_node_samples.
func ParseSklearn(data []byte) (*Ensemble, error) {
	var m skModel
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, invalid("not a scikit-learn tree export: %v", err)
	}
	if m.Format != "vigil-sklearn-trees" || m.Version != 1 {
		return nil, invalid("format %q version %d: want vigil-sklearn-trees version 1", m.Format, m.Version)
	}
	if m.Link != "identity" && m.Link != "logit" {
		return nil, invalid("link %q: want identity or logit", m.Link)
	}
	e := &Ensemble{Base: m.Base, Scale: m.Scale, Compare: LessEqual, Float32: true,
		NumFeatures: m.NFeatures, Features: m.FeatureNames, Link: m.Link}
	for ti := range m.Trees {
		x := &m.Trees[ti]
		n := len(x.Left)
		if len(x.Right) != n || len(x.Feature) != n || len(x.Threshold) != n || len(x.Value) != n ||
			len(x.Weight) != n || (len(x.MissLeft) != n && len(x.MissLeft) != 0) {
			return nil, invalid("tree %d: node arrays differ in length", ti)
		}
		t := Tree{Nodes: make([]Node, n)}
		for i := range n {
			nd := Node{Left: x.Left[i], Right: x.Right[i], Feature: x.Feature[i], Threshold: x.Threshold[i],
				Value: x.Value[i], Cover: x.Weight[i]}
			if len(x.MissLeft) == n {
				nd.DefaultLeft = x.MissLeft[i] == 1
			}
			if nd.Left < 0 {
				nd.Left, nd.Right = -1, -1
			}
			t.Nodes[i] = nd
		}
		e.Trees = append(e.Trees, t)
	}
	if err := e.Validate(); err != nil {
		return nil, err
	}
	return e, nil
}
