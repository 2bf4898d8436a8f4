// Package webhook receives the code host's event deliveries and works
// them. POST /codehost/webhooks checks a delivery's signature
// (X-Hub-Signature-256, HMAC-SHA256 under the repository's secret) before
// its body is read (API.deliver gives the order and each answer), and
// records it once per repository in the durable queue.
//
// Processor works that queue (the processor role): it leases a delivery,
// reads the push, tag or release, finds the model files by the
// repository's patterns and its .monitor.yml, registers them as model
// versions or logs them for review, and records the outcome; a failure of
// the code host or the store is retried with backoff, MaxAttempts times.
//
// It imports codehost, hostapi, connection, monitorfile, the registry's
// model type, the platform and the store errors.
package webhook
