-- KServe payload logging (issue 18): the half of a request/response pair
-- that came first waits here for the other, under the CloudEvents id the
-- two share, so that a restart loses none. The second half completes the
-- row in one upsert; its prediction is then logged and the row deleted. A
-- row whose first half came more than the expiry ago is swept: logged when
-- complete, else set aside as a dead letter. request and response are the
-- JSON payloads, NULL until they come; times are Unix microseconds.

CREATE TABLE kserve_pairs (
    org_id      TEXT NOT NULL,
    event_id    TEXT NOT NULL,
    model_id    TEXT NOT NULL,
    request     TEXT,
    response    TEXT,
    request_at  BIGINT,
    response_at BIGINT,
    metadata    TEXT NOT NULL,
    first_at    BIGINT NOT NULL,
    PRIMARY KEY (org_id, event_id)
);

CREATE INDEX kserve_pairs_first_at ON kserve_pairs (first_at);
