// Package serving keeps the endpoint a model is served at (spec 3, issue
// 16): PUT, GET and DELETE /models/{model_id}/serving. A Serving names
// the protocol (modelserver.Protocols), URL (checked by the outbound
// guard), model name, features in the model's order, the output to read,
// the timeout, batch size and request budget of one explanation, and the
// request headers, sealed at rest (secretbox) and answered masked.
// Endpoint opens them into the modelserver.Endpoint that Kernel SHAP and
// LIME call when the model has no artifact (explanation.Access).
//
// CheckFeatures is the rule of a model's feature names, which an
// uploaded artifact's follow too.
//
// It imports explanation/modelserver, identity, registry, the platform
// and the store errors; it must not import explanation, the event log,
// the analytical store or an engine.
package serving
