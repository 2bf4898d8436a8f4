package forest

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// xgbModel is the part of XGBoost's JSON model that a prediction needs.
type xgbModel struct {
	Learner struct {
		FeatureNames    []string `json:"feature_names"`
		GradientBooster struct {
			Name  string `json:"name"`
			Model struct {
				Trees    []xgbTree `json:"trees"`
				TreeInfo []int     `json:"tree_info"`
			} `json:"model"`
		} `json:"gradient_booster"`
		LearnerModelParam struct {
			BaseScore  string `json:"base_score"`
			NumClass   string `json:"num_class"`
			NumFeature string `json:"num_feature"`
			NumTarget  string `json:"num_target"`
		} `json:"learner_model_param"`
		Objective struct {
			Name string `json:"name"`
		} `json:"objective"`
	} `json:"learner"`
}

// xgbTree is one tree of XGBoost's JSON model (arrays indexed by node id).
type xgbTree struct {
	LeftChildren    []int     `json:"left_children"`
	RightChildren   []int     `json:"right_children"`
	DefaultLeft     []any     `json:"default_left"`
	SplitIndices    []int     `json:"split_indices"`
	SplitConditions []float64 `json:"split_conditions"`
	SplitType       []int     `json:"split_type"`
	SumHessian      []float64 `json:"sum_hessian"`
}

// xgbLinks maps the objectives Vigil reads to the link of their output;
// the base score of a logit objective is stored as a probability.
var xgbLinks = map[string]string{
	"reg:squarederror":     "identity",
	"reg:linear":           "identity",
	"reg:absoluteerror":    "identity",
	"reg:pseudohubererror": "identity",
	"binary:logistic":      "logit",
	"reg:logistic":         "logit",
	"binary:logitraw":      "identity",
}

// ParseXGBoost reads a model written by XGBoost's save_model to a .json
// name (XGBoost 1.6 and later; the gbtree booster, one output). The
// margin is base_score (turned into log-odds for the logistic objectives)
// plus the leaves; covers are the nodes' sum_hessian, as in shap.
func ParseXGBoost(data []byte) (*Ensemble, error) {
	var m xgbModel
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, invalid("not an XGBoost JSON model: %v", err)
	}
	l := &m.Learner
	if l.GradientBooster.Name != "gbtree" {
		return nil, invalid("booster %q: only gbtree is supported", l.GradientBooster.Name)
	}
	link, ok := xgbLinks[l.Objective.Name]
	if !ok {
		return nil, invalid("objective %q is not supported", l.Objective.Name)
	}
	if n, _ := strconv.Atoi(l.LearnerModelParam.NumClass); n > 1 {
		return nil, invalid("multi-class models are not supported (num_class %d)", n)
	}
	if n, _ := strconv.Atoi(l.LearnerModelParam.NumTarget); n > 1 {
		return nil, invalid("multi-target models are not supported (num_target %d)", n)
	}
	nf, err := strconv.Atoi(l.LearnerModelParam.NumFeature)
	if err != nil {
		return nil, invalid("num_feature %q is not an integer", l.LearnerModelParam.NumFeature)
	}
	base, err := xgbBaseScore(l.LearnerModelParam.BaseScore)
	if err != nil {
		return nil, err
	}
	if link == "logit" {
		if base <= 0 || base >= 1 {
			return nil, invalid("base_score %v of a logistic objective is not in (0, 1)", base)
		}
		base = math.Log(base / (1 - base))
	}
	e := &Ensemble{Base: base, Scale: 1, Compare: Less, Float32: true, NumFeatures: nf,
		Features: l.FeatureNames, Link: link}
	for ti := range l.GradientBooster.Model.Trees {
		t, err := xgbConvert(ti, &l.GradientBooster.Model.Trees[ti])
		if err != nil {
			return nil, err
		}
		e.Trees = append(e.Trees, t)
	}
	if err := e.Validate(); err != nil {
		return nil, err
	}
	return e, nil
}

// xgbBaseScore reads base_score: "0.5", or "[5E-1]" since XGBoost 3.
func xgbBaseScore(s string) (float64, error) {
	s = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(s), "["), "]")
	if strings.Contains(s, ",") {
		return 0, invalid("base_score %q has several outputs", s)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, invalid("base_score %q is not a number", s)
	}
	return v, nil
}

// xgbConvert turns XGBoost tree ti into a Tree.
func xgbConvert(ti int, x *xgbTree) (Tree, error) {
	n := len(x.LeftChildren)
	if len(x.RightChildren) != n || len(x.DefaultLeft) != n || len(x.SplitIndices) != n ||
		len(x.SplitConditions) != n || len(x.SumHessian) != n {
		return Tree{}, invalid("tree %d: node arrays differ in length", ti)
	}
	t := Tree{Nodes: make([]Node, n)}
	for i := range n {
		if len(x.SplitType) == n && x.SplitType[i] != 0 {
			return Tree{}, invalid("tree %d node %d: categorical splits are not supported", ti, i)
		}
		dl := fmt.Sprint(x.DefaultLeft[i])
		nd := Node{Left: x.LeftChildren[i], Right: x.RightChildren[i], Feature: x.SplitIndices[i],
			DefaultLeft: dl == "1" || dl == "true", Cover: float64(float32(x.SumHessian[i]))}
		// XGBoost stores float32 values: round as it reads them.
		v := float64(float32(x.SplitConditions[i]))
		if nd.Left < 0 {
			nd.Left, nd.Right, nd.Value = -1, -1, v
		} else {
			nd.Threshold = v
		}
		t.Nodes[i] = nd
	}
	return t, nil
}
