// Package pricing is the LLM price table: what an organization pays per
// million input and output tokens of a provider's model, the built-in
// defaults under it, the cost of a completion that was logged without one,
// and GET/PUT /llm/prices. It may import identity, plumbing and the store
// contract.
package pricing
