-- Spec 3 names Kernel SHAP shap_kernel (issue 41): explanations and
-- per-model configurations stored under the earlier name kernel_shap
-- take the spec's. kernel_shap stays accepted on input as an alias.

UPDATE explanations SET method = 'shap_kernel' WHERE method = 'kernel_shap';
UPDATE explanation_configs SET default_method = 'shap_kernel' WHERE default_method = 'kernel_shap';
