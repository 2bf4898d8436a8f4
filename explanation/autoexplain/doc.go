// Package autoexplain explains a sampled share of every logged prediction
// of the models with auto_explain on (issue 16 point 4). The Explainer,
// run by the processor role over a consumer group of its own
// (processors/explaining), chooses the predictions by a hash of their id
// (Sampled, at the model's Config.AutoExplainRate), computes each with
// the exact method of the model's artifact (explanation.ExplainWithArtifact:
// TreeSHAP on a tree model) within a budget of work per second, and stores one
// explanation per prediction, of origin auto. The explained ratio they
// make is explanation/coverage's.
//
// It imports explanation (the records, configurations and artifacts it
// computes with), the platform and the store errors; it must not import
// the event log, the analytical store or an engine.
package autoexplain
