-- Each organization's LLM prices (issue 18): US dollars per million input
-- and output tokens of a provider's model, over the built-in defaults of
-- package pricing. PUT /llm/prices replaces an organization's rows in one
-- transaction. provider and model are lower case; provider '*' prices a
-- model whatever its provider. updated_at is Unix microseconds.

CREATE TABLE llm_prices (
    org_id             TEXT NOT NULL,
    provider           TEXT NOT NULL,
    model              TEXT NOT NULL,
    input_per_million  DOUBLE PRECISION NOT NULL,
    output_per_million DOUBLE PRECISION NOT NULL,
    updated_at         BIGINT NOT NULL,
    PRIMARY KEY (org_id, provider, model)
);
