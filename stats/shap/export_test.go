package shap

// NewTreeExplainerLimit tabulates only the trees whose paths have at most
// limit distinct features, so that tests reach Tree's recursion for the
// others.
var NewTreeExplainerLimit = newTreeExplainer
