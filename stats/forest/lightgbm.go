package forest

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
)

// ParseLightGBM reads a LightGBM text model (Booster.save_model or
// model_to_string; LightGBM 3 and 4): one output (regression objectives
// and binary with sigmoid:1), numerical splits. Splits send x <= threshold
// left in float64; decision_type gives the default direction and which
// values count as missing; covers are internal_count and leaf_count, as in
// shap. A model trained with average_output (random forest mode) averages
// its trees.
func ParseLightGBM(data []byte) (*Ensemble, error) {
	e := &Ensemble{Scale: 1, Compare: LessEqual, Link: "identity"}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	var tree map[string]string
	var trees []map[string]string
	sawHeader, average := false, false
	flush := func() {
		if tree != nil {
			trees = append(trees, tree)
			tree = nil
		}
	}
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "tree":
			sawHeader = true
			continue
		case strings.HasPrefix(line, "Tree="):
			flush()
			tree = map[string]string{}
			continue
		case line == "end of trees":
			flush()
		case line == "average_output":
			average = true
		}
		if line == "end of trees" {
			break
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		if tree != nil {
			tree[k] = v
			continue
		}
		if err := lgbHeader(e, k, v); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, invalid("reading the LightGBM model: %v", err)
	}
	flush()
	if !sawHeader {
		return nil, invalid("not a LightGBM text model (no 'tree' header)")
	}
	for ti, kv := range trees {
		t, err := lgbTree(ti, kv)
		if err != nil {
			return nil, err
		}
		e.Trees = append(e.Trees, t)
	}
	if average && len(e.Trees) > 0 {
		e.Scale = 1 / float64(len(e.Trees))
	}
	if err := e.Validate(); err != nil {
		return nil, err
	}
	return e, nil
}

// lgbHeader reads one header line of the model.
func lgbHeader(e *Ensemble, k, v string) error {
	switch k {
	case "num_class", "num_tree_per_iteration":
		if v != "1" {
			return invalid("%s=%s: multi-output models are not supported", k, v)
		}
	case "max_feature_idx":
		n, err := strconv.Atoi(v)
		if err != nil {
			return invalid("max_feature_idx %q is not an integer", v)
		}
		e.NumFeatures = n + 1
	case "feature_names":
		e.Features = strings.Fields(v)
	case "objective":
		f := strings.Fields(v)
		if len(f) == 0 {
			return invalid("empty objective")
		}
		switch f[0] {
		case "regression", "regression_l1", "huber", "fair", "quantile", "mape":
		case "binary":
			if len(f) > 1 && f[1] != "sigmoid:1" {
				return invalid("objective %q: only sigmoid:1 is supported", v)
			}
			e.Link = "logit"
		default:
			return invalid("objective %q is not supported", v)
		}
	}
	return nil
}

// lgbTree builds tree ti from its key=value lines: internal nodes are
// 0..num_leaves−2, leaf j becomes node num_leaves−1+j, and a child c < 0
// is leaf ^c.
func lgbTree(ti int, kv map[string]string) (Tree, error) {
	nl, err := strconv.Atoi(kv["num_leaves"])
	if err != nil || nl < 1 {
		return Tree{}, invalid("tree %d: num_leaves %q", ti, kv["num_leaves"])
	}
	if kv["num_cat"] != "" && kv["num_cat"] != "0" {
		return Tree{}, invalid("tree %d: categorical splits are not supported", ti)
	}
	if kv["is_linear"] == "1" {
		return Tree{}, invalid("tree %d: linear trees are not supported", ti)
	}
	ni := nl - 1
	leafVal, err := lgbFloats(kv, "leaf_value", nl, ti)
	if err != nil {
		return Tree{}, err
	}
	t := Tree{Nodes: make([]Node, ni+nl)}
	if nl == 1 {
		t.Nodes[0] = Node{Left: -1, Right: -1, Value: leafVal[0]}
		return t, nil
	}
	leafCount, err := lgbFloats(kv, "leaf_count", nl, ti)
	if err != nil {
		return Tree{}, err
	}
	feat, err := lgbFloats(kv, "split_feature", ni, ti)
	if err != nil {
		return Tree{}, err
	}
	thr, err := lgbFloats(kv, "threshold", ni, ti)
	if err != nil {
		return Tree{}, err
	}
	dt, err := lgbFloats(kv, "decision_type", ni, ti)
	if err != nil {
		return Tree{}, err
	}
	left, err := lgbFloats(kv, "left_child", ni, ti)
	if err != nil {
		return Tree{}, err
	}
	right, err := lgbFloats(kv, "right_child", ni, ti)
	if err != nil {
		return Tree{}, err
	}
	count, err := lgbFloats(kv, "internal_count", ni, ti)
	if err != nil {
		return Tree{}, err
	}
	child := func(c float64) int {
		if c < 0 {
			return ni + int(^int64(c))
		}
		return int(c)
	}
	for i := range ni {
		d := int(dt[i])
		if d&1 != 0 {
			return Tree{}, invalid("tree %d node %d: categorical splits are not supported", ti, i)
		}
		miss := [...]Missing{MissingNone, MissingZero, MissingNaN, MissingNaN}[(d>>2)&3]
		t.Nodes[i] = Node{Left: child(left[i]), Right: child(right[i]), Feature: int(feat[i]), Threshold: thr[i],
			DefaultLeft: d&2 != 0, Missing: miss, Cover: count[i]}
	}
	for j := range nl {
		t.Nodes[ni+j] = Node{Left: -1, Right: -1, Value: leafVal[j], Cover: leafCount[j]}
	}
	return t, nil
}

// lgbFloats parses the space-separated numbers of key, which must be n.
func lgbFloats(kv map[string]string, key string, n, ti int) ([]float64, error) {
	f := strings.Fields(kv[key])
	if len(f) != n {
		return nil, invalid("tree %d: %s has %d values, want %d", ti, key, len(f), n)
	}
	out := make([]float64, n)
	for i, s := range f {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, invalid("tree %d: %s[%d] %q is not a number", ti, key, i, s)
		}
		out[i] = v
	}
	return out, nil
}
