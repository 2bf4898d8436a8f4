// Package kserve receives KServe's payload logging: the CloudEvents
// (binary or structured mode) of type org.kubeflow.serving.inference.request
// and .response that KServe's logger posts, paired by their ce-id into one
// prediction of the model named by the inference service. A half waits in
// the transactional store for the other (so a restart loses none) and
// expires, after a while, as a dead letter.
//
// It may import the event log contract, identity, registry, plumbing and
// the store contract.
package kserve
