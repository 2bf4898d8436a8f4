-- Uploaded drift references (PUT /drift/reference/{model_id}): one per
-- model, in the model's organization. The data is not kept, only its
-- profiles (processors/profile, JSON stored as TEXT): input_profile of
-- reference_data, output_profile of prediction_data (NULL when none was
-- sent). uploaded_at is Unix microseconds.

CREATE TABLE drift_references (
    model_id       TEXT PRIMARY KEY REFERENCES models (id) ON DELETE CASCADE,
    org_id         TEXT NOT NULL,
    input_profile  TEXT NOT NULL,
    output_profile TEXT,
    uploaded_at    BIGINT NOT NULL
);
