// Package modelserver calls a served model for the model-agnostic
// explanations (Kernel SHAP, LIME): the Open Inference Protocol V2 of
// KServe, Triton and MLServer (POST {url}/v2/models/{name}/infer), KServe
// V1 (POST {url}/v1/models/{name}:predict) and MLflow's scoring server
// (POST {url}/invocations with a dataframe_split). A Client sends rows in
// batches of at most MaxBatch, one request per batch, never one per row;
// each request has a timeout, and a Client refuses to start a batch that
// would take it past its request budget, so an explanation cannot make
// more calls than its budget nor hang. The target passes the outbound
// guard (platform/outbound): http or https, no non-public address unless
// the operator allows it, no redirect followed, answers size-capped.
//
// It imports the platform only; explanation uses it.
package modelserver
