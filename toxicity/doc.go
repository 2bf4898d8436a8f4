// Package toxicity scores texts for toxicity by six heads (toxicity,
// severe_toxicity, obscene, threat, insult, identity_attack) behind the
// Scorer interface, each result naming its scorer: Builtin, a lexicon
// that needs nothing installed, and HTTP, an adapter to a model server
// (Perspective-style, OpenAI-moderation-style or plain JSON); and serves
// POST /llm/toxicity. It may import the event log contract, identity,
// plumbing and the store contract.
package toxicity
