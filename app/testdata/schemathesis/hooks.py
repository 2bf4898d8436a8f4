"""Schemathesis hooks of TestSchemathesis (app/schemathesis_test.go).

Two kinds, each narrow:

* filter_case keeps the run from sawing off the branch it sits on (its own
  key revoked, its owner demoted).
* filter_failure drops a failure only where the document states a rule that
  JSON Schema cannot express (a cross-field or referential rule, written in
  the operation's description or info.description) and the request breaks
  it, and only when the server's answer names exactly the fields that rule
  concerns. Any other refusal of schema-valid data still fails the run.
"""

import base64
import binascii
import gzip
import json
import os
import re
import unicodedata
from datetime import date, datetime, timedelta, timezone
from email.utils import parseaddr
from urllib.parse import urlparse

import schemathesis

KEY_ID = os.environ["VIGIL_ST_KEY_ID"].lower()
USER_ID = os.environ["VIGIL_ST_USER_ID"].lower()


@schemathesis.hook
def filter_case(ctx, case):
    """Drop the two requests that would lock the run out.

    Schemathesis reuses the ids it sees in responses (GET /auth/me names the
    caller and its key) as path parameters. Left alone, it promotes a user
    it created to admin and then demotes the key's owner, or revokes its own
    key; every later request then answers 401 or 403, which the document
    allows, and the run passes while testing nothing. The owner may still
    be "demoted" to admin; every other key and user is fair game.
    """
    path = case.operation.path
    params = case.path_parameters or {}
    method = case.method.upper()
    if method == "DELETE" and path == "/api-keys/{key_id}":
        return str(params.get("key_id", "")).lower() != KEY_ID
    if method == "PUT" and path == "/users/{user_id}/role":
        if str(params.get("user_id", "")).lower() == USER_ID:
            return isinstance(case.body, dict) and case.body.get("role") == "admin"
    return True


# The problem the server names a field with when its text holds U+0000
# (info.description: "Text fields, query parameters and path parameters
# never carry the NUL character"). JSON Schema has no way to say it of every
# string, object key and nested free-form value.
NUL_PROBLEM = "must not contain the NUL character (U+0000)"


@schemathesis.hook
def filter_failure(ctx, failure, case, response):
    """Keep every failure but those the document's stated rules explain."""
    op = f"{case.method.upper()} {case.operation.path}"
    if failure.code in ("ST204", "ST205") and case.operation.path == "/drift-config/presets":
        # PUT /drift-config/{model_id} takes "presets" for a model id (and
        # answers 400 or 404 there), so PUT is routed on this path and
        # Fiber's Allow names it.
        return not (case.method.upper() in ("PUT", "OPTIONS") and "PUT" in failure.message)
    if failure.code in ("ST204", "ST205") and case.operation.path in ("/risk-register/config", "/risk-register/portfolio"):
        # Likewise PATCH /risk-register/{entry_id} takes "config" and
        # "portfolio" for an entry id (and answers 404 there).
        return not (case.method.upper() in ("PATCH", "OPTIONS") and "PATCH" in failure.message)
    if failure.code in ("ST204", "ST205") and case.operation.path in ("/governance/review-boards/my-reviews", "/governance/review-boards/requests"):
        # Likewise GET, PUT and DELETE /governance/review-boards/{board_id}
        # take "my-reviews" and "requests" for a board id (and answer 404
        # there).
        return not (case.method.upper() in ("GET", "PUT", "DELETE", "OPTIONS") and
                    any(m in failure.message for m in ("GET", "PUT", "DELETE")))
    if failure.code in ("ST204", "ST205") and case.operation.path == "/export/exports/bulk":
        # Likewise GET /export/exports/{export_id} takes "bulk" for an
        # export id (and answers 404 there).
        return not (case.method.upper() in ("GET", "OPTIONS") and "GET" in failure.message)
    if failure.code in ("ST204", "ST205") and case.operation.path in (
            "/explanations/generate", "/explanations/bulk", "/explanations/compare", "/explanations/visualization"):
        # Likewise GET /explanations/{explanation_id} takes "generate",
        # "bulk", "compare" and "visualization" for an explanation id (and
        # answers 404 there).
        return not (case.method.upper() in ("GET", "OPTIONS") and "GET" in failure.message)
    if failure.code in ("ST204", "ST205") and case.operation.path == "/codehost/repositories/track":
        # Likewise GET, PATCH and DELETE /codehost/repositories/{repository_id}
        # take "track" for a repository id (and answer 404 there).
        return not (case.method.upper() in ("GET", "PATCH", "DELETE", "OPTIONS") and
                    any(m in failure.message for m in ("GET", "PATCH", "DELETE")))
    if failure.code in ("ST204", "ST205") and case.operation.path.endswith("/branch-protection/enable"):
        # GET .../branch-protection/{branch} takes "enable" for a branch
        # name (its description says so).
        return not (case.method.upper() in ("GET", "OPTIONS") and "GET" in failure.message)
    if failure.code != "ST202" or response.status_code not in (400, 422):
        return True
    try:
        details = response.json()["error"]["details"]
    except (ValueError, KeyError, TypeError):
        return True
    if not isinstance(details, dict) or not details:
        return True
    named = _named(details)
    if not named:
        return True
    if all(problem == NUL_PROBLEM for problem in named.values()) and _holds_nul(case):
        return False
    broken = _broken_rules(op, case)
    return not (broken and all(_covered(field, broken) for field in named))


def _covered(field, broken):
    """Whether a stated rule names field: exactly, or through an entry
    ending in "*" that stands for every field with that prefix (a rule
    whose fields the server's data decides, like an artifact's features)."""
    return field in broken or any(b.endswith("*") and field.startswith(b[:-1]) for b in broken)


def _named(details):
    """Field to problem, from a 422's details (a batch's per-item errors too)."""
    if isinstance(details.get("errors"), list):
        return {e.get("field"): e.get("message") for e in details["errors"] if isinstance(e, dict)}
    return dict(details)


def _holds_nul(case):
    text = json.dumps([case.body if isinstance(case.body, (dict, list, str)) else None,
                       case.query, case.path_parameters], default=str)
    return "\\u0000" in text


def _time(s):
    if not isinstance(s, str):
        return None
    try:
        t = datetime.fromisoformat(s.upper().replace("Z", "+00:00"))
    except ValueError:
        return None
    return t if t.tzinfo else None


def _ordered_range(values, start, end, strict, end_default_now=False):
    """The fields of a [start, end] range that breaks its order, if any."""
    s, e = _time(values.get(start)), _time(values.get(end))
    if e is None and values.get(end) is None and end_default_now:
        e = datetime.now(timezone.utc) + timedelta(seconds=5)
    if s is None or e is None:
        return set()
    if s > e or (strict and s == e):
        return {end}
    return set()


# Operations whose range must be ordered: where the range is read, its
# field names, whether start must be strictly before end, and whether an
# absent end means now (the parameter descriptions say so).
RANGES = {
    "GET /predictions/export": ("query", "start_time", "end_time", True, True),
    "GET /predictions/models/{model_id}/stats": ("query", "start_time", "end_time", True, True),
    "POST /predictions/query": ("body", "start_time", "end_time", True, False),
    "GET /metrics/aggregate": ("query", "start_date", "end_date", True, False),
    "GET /metrics/trend": ("query", "start_date", "end_date", True, False),
    "GET /llm/metrics": ("query", "start_date", "end_date", True, False),
    "GET /drift/reports": ("query", "start_date", "end_date", False, False),
    "POST /bias/audit": ("body", "start_date", "end_date", True, False),
    "POST /webhooks/workflow-tool/execution": ("body", "started_at", "finished_at", False, False),
    "GET /alerts/instances": ("query", "start_time", "end_time", True, False),
    "GET /alerts/statistics": ("query", "start_time", "end_time", True, True),
    "POST /governance/review-boards/archive/search": ("body", "start_date", "end_date", True, False),
    "POST /governance/review-boards/archive/export": ("body", "start_date", "end_date", True, False),
}

LABEL_FORM = ("sensitive_attributes", "y_true", "y_pred", "group_data", "metrics_to_compute")
PREDICTIONS_FORM = ("protected_attributes", "metrics", "prediction_field", "label_field", "start_date", "end_date")


def _present(body, names):
    return [n for n in names if body.get(n) is not None]


def _continuous(values):
    """Whether a list holds a number with a fraction (not a class label)."""
    return isinstance(values, list) and any(
        type(x) in (int, float) and not float(x).is_integer() for x in values)


def _broken_rules(op, case):
    """The fields of the cross-field rules that case breaks, as the
    operation's description states them."""
    body = case.body if isinstance(case.body, dict) else {}
    broken = set()
    if op in RANGES:
        where, start, end, strict, now = RANGES[op]
        values = body if where == "body" else (case.query or {})
        broken |= _ordered_range(values, start, end, strict, now)
    if op == "POST /bias/audit":
        broken |= _bias_rules(body)
    if op in ("POST /drift/detect", "PUT /drift/reference/{model_id}", "POST /drift/reference/{model_id}/append"):
        broken |= _drift_rules(op, body)
    if op in ("PUT /drift/reference/{model_id}", "POST /drift/reference/{model_id}/append", "PUT /drift-config/{model_id}"):
        sent = body.get("model_id")
        if sent is not None and str(sent).lower() != str((case.path_parameters or {}).get("model_id", "")).lower():
            broken.add("model_id")  # "when sent, must be the path's"
    if op == "PUT /models/{model_id}/artifact":
        broken |= _artifact_rules(body)
    if op == "POST /explanations/generate":
        broken |= _explanation_rules(body)
    if op == "POST /explanations/bulk":
        # generate's rules, instance by instance.
        broken |= {"model_id", "background", "background[*", "instances[*", "config.max_features"}
    if op in ("POST /explanations/compare", "POST /explanations/visualization"):
        # The stored explanations decide: completed ones of one model, and
        # (dependence) a feature they name.
        broken |= {"explanation_ids", "explanation_ids[*", "feature"}
    if op == "PUT /models/{model_id}/serving":
        # The outbound guard judges the url (its host's address), the
        # protocol whether model_name must be sent (and output_name may
        # be), and header names and values follow HTTP's rules (and a mask
        # needs a stored value).
        broken |= {"url", "model_name", "output_name", "headers"}
    if op == "POST /export/exports":
        broken |= _export_period(body)
    if op == "POST /export/exports/bulk":
        for item in body.get("exports") or []:
            broken |= _export_period(item if isinstance(item, dict) else {})
        broken.add("")  # an export refused whole: a template or model not the organization's, the quota spent
    if op == "POST /export/evidence-pack":
        if (body.get("start") is None) != (body.get("end") is None):
            broken |= {"start", "end"}  # both or neither
        else:
            broken |= _export_period(body)
    if op == "POST /organizations/{org_id}/branding/logo":
        broken.add("logo")  # the content decides: a PNG that decodes, or an SVG that runs and fetches nothing
    if op in ("POST /export/configs", "PUT /export/configs/{config_id}"):
        broken |= _export_config(body)
    if op == "POST /export/exports/{export_id}/share" and not _plain_email(body.get("recipient_email")):
        broken.add("recipient_email")  # an address net/mail reads back unchanged
    if op in ("POST /export/scheduled-reports", "PUT /export/scheduled-reports/{report_id}"):
        broken |= _schedule_rules(body)
    if op in ("POST /export/integrations", "PUT /export/integrations/{integration_id}"):
        broken |= _integration_rules(body)
    if op in ("POST /llm/completions", "POST /llm/completions/batch"):
        items = body.get("completions") if op.endswith("/batch") else [body]
        for t in (i.get("tokens") for i in items or [] if isinstance(i, dict)):
            if isinstance(t, dict) and t.get("total_tokens") not in (None, 0):
                if t["total_tokens"] != (t.get("prompt_tokens") or 0) + (t.get("completion_tokens") or 0):
                    broken.add("tokens.total_tokens")
    if op == "PUT /llm/prices":
        seen = set()  # "Two entries of one provider and model (case-insensitively) answer 422 naming the second's model"
        for i, p in enumerate(body.get("prices") or []):
            if isinstance(p, dict) and isinstance(p.get("provider"), str) and isinstance(p.get("model"), str):
                key = (p["provider"].lower(), p["model"].lower())
                if key in seen:
                    broken.add(f"prices[{i}].model")
                seen.add(key)
    if op == "POST /kserve/events" and not _kserve_event_ok(case):
        broken.add("cloudevent")
    if op == "POST /llm/toxicity" and body.get("text") is None and body.get("completion_id") is None:
        broken.add("text")  # "at least one is required"
    if op == "POST /metrics/calculate":
        if body.get("y_prob") is not None and body.get("y_score") is not None:
            broken.add("y_prob")
        if body.get("y_pred") is None and set(body.get("metric_types") or []) - {"roc_auc", "log_loss"}:
            broken.add("y_pred")  # "needed by every metric but roc_auc and log_loss"
        if set(body.get("metric_types") or []) & {"roc_auc", "log_loss"} and body.get("y_score") is None \
                and body.get("y_prob") is None:
            broken.add("y_score")  # roc_auc and log_loss need y_score or y_prob
        kinds = {f: {type(x) is str for x in body.get(f) or []} for f in ("y_true", "y_pred")}
        if len(kinds["y_true"] | kinds["y_pred"]) > 1:
            broken.add("y_pred")  # labels all numbers or all strings, y_true and y_pred alike
        strings = True in kinds["y_true"]
        if body.get("pos_label") is not None and (type(body["pos_label"]) is str) != strings:
            broken.add("pos_label")  # "of y_true's type"
        if any((type(x) is str) != strings for x in body.get("labels") or []):
            broken.add("labels")  # "of y_true's type, like pos_label"
        classification = {"accuracy", "precision", "recall", "f1_score", "roc_auc", "log_loss"}
        chosen = set(body.get("metric_types") or [])
        if chosen & classification and _continuous(body.get("y_true")):
            broken.add("y_true")  # "take class labels: strings, or numbers without a fraction"
        if chosen & (classification - {"roc_auc", "log_loss"}) and _continuous(body.get("y_pred")):
            broken.add("y_pred")  # "Class labels for accuracy, precision, recall and f1_score"
        labels = body.get("labels") or []
        if any(type(a) is type(b) and not a < b for a, b in zip(labels, labels[1:])):
            broken.add("labels")  # "Every class, sorted and unique"
        n = len(body.get("y_true") or [])
        if "r2" in (body.get("metric_types") or []) and n < 2:
            broken.add("y_true")  # r2 is not defined below two samples
        for field in ("y_pred", "y_score", "y_prob"):
            if isinstance(body.get(field), list) and len(body[field]) != n:
                broken.add(field)  # one per y_true value
    if op in ("POST /alerts/rules", "PATCH /alerts/rules/{rule_id}"):
        broken |= _alert_rule_rules(body)
    if op == "POST /alerts/instances/{alert_id}/snooze":
        until = _time(body.get("until"))
        now = datetime.now(timezone.utc)
        # "must be in the future, at most 30 days ahead" (until's
        # description); a margin either side for the request's time.
        if until is not None and not (now + timedelta(seconds=5) < until < now + timedelta(days=30) - timedelta(seconds=5)):
            broken.add("until")
    if op in ("POST /predictions/log/batch", "POST /metrics/batch", "POST /llm/completions/batch"):
        items = body.get("predictions") or body.get("metrics") or body.get("completions") or []
        if any(isinstance(i, dict) and i.get("model_id") not in (None, body.get("model_id")) for i in items):
            broken.add("model_id")
    if op == "POST /auth/register" and body.get("organization_name") is not None:
        # Only an open sign-up without a token creates an organization,
        # and every request of the run carries the admin's key.
        broken.add("organization_name")
    if op == "POST /codehost/connect/pat":
        # "it must be accepted by the code host": the run's host refuses
        # every token it did not issue.
        broken.add("personal_access_token")
    if op in ("POST /auth/register", "POST /users") and _weak_password(body):
        broken.add("password")  # "not a commonly used password, not containing the username"
    if op in ("POST /risk-register", "PATCH /risk-register/{entry_id}"):
        broken |= _risk_rules(body)
    query = case.query or {}
    if op == "GET /risk-register" and query.get("limit") is not None and query.get("page_size") is not None:
        broken.add("limit")  # "page_size's alias (send one of them; both answer 422 naming limit)"
    if op == "PUT /risk-register/config":
        th = body.get("severity_thresholds")
        if isinstance(th, dict) and not (th.get("critical", 0) > th.get("high", 0) > th.get("medium", 0)):
            broken.add("severity_thresholds")  # "critical > high > medium"
    if op.startswith("POST /governance/review-boards") or op.startswith("PUT /governance/review-boards"):
        broken |= _review_rules(op, body)
    if op == "PUT /trust-score/config":
        sent = {k: v for k, v in body.items() if k.endswith("_weight") and v is not None}
        if sent and all(v == 0 for v in sent.values()):
            # "at least one weight in force must be positive": zeros sent
            # may zero the last positive one.
            broken |= set(sent)
    if op in ("POST /users", "PUT /users/{user_id}/role"):
        # The role must be one of the organization's (built-in or created
        # with POST /roles): a reference, which no schema can check.
        if body.get("role") not in (None, "admin", "editor", "viewer"):
            broken.add("role")
    if op == "PUT /drift-config/{model_id}":
        sev = ((body.get("threshold_config") or {}).get("severity")) or {}
        medium, high = sev.get("medium"), sev.get("high")
        # high must be above medium; either left out takes the preset's
        # (medium 0.1, high 0.2).
        medium = 0.1 if medium is None else medium
        high = 0.2 if high is None else high
        if isinstance(medium, (int, float)) and isinstance(high, (int, float)) and high <= medium:
            broken |= {"threshold_config.severity.high", "threshold_config.severity.medium"}
        for name, fc in (body.get("feature_configs") or {}).items():
            if isinstance(fc, dict) and not _threshold_fits(fc.get("method"), fc.get("threshold")):
                broken.add(f"feature_configs.{name}.threshold")
        channels = (body.get("alert_config") or {}).get("channels") or []
        for i, ch in enumerate(channels):
            if isinstance(ch, dict) and not _target_fits(ch.get("type"), ch.get("target")):
                broken.add(f"alert_config.channels[{i}].target")
        ref = (body.get("schedule_config") or {}).get("reference") or {}
        if ref.get("type") == "uploaded" and (ref.get("start") is not None or ref.get("end") is not None):
            broken.add("schedule_config.reference")  # "uploaded: start and end must be null"
        if (ref.get("start") is None) != (ref.get("end") is None):
            # start and end together, or both null.
            broken |= {"schedule_config.reference.start", "schedule_config.reference.end"}
        if _time(ref.get("start")) and _time(ref.get("end")) and _time(ref["start"]) >= _time(ref["end"]):
            broken.add("schedule_config.reference.end")
    return broken


def _artifact_rules(body):
    """PUT /models/{model_id}/artifact: a tree model's content must be a
    model file Vigil reads (generated text never is), and its features as
    many as the model reads; a linear model has one coefficient per
    feature."""
    if body.get("kind") in ("xgboost_json", "lightgbm_text", "sklearn_json"):
        return {"content", "features"}
    if isinstance(body.get("coefficients"), list) and isinstance(body.get("features"), list):
        if len(body["coefficients"]) != len(body["features"]):
            return {"coefficients"}
    return set()


def _export_config(body):
    """POST and PUT /export/configs: start and end with date_range custom
    only (and then ordered, at most 366 days); each delivery method once;
    an integration for webhook, s3 and sftp, none for download; recipients
    for email only, unless it names an integration."""
    broken = set()
    custom = body.get("date_range") == "custom"
    if custom and (body.get("start") is None or body.get("end") is None):
        broken |= {"start", "end"}
    if not custom and (body.get("start") is not None or body.get("end") is not None):
        broken.add("start")
    if custom:
        broken |= _export_period(body)
    seen = set()
    for i, d in enumerate(body.get("delivery") or []):
        if not isinstance(d, dict):
            continue
        method, recipients = d.get("method"), d.get("recipients")
        integration = d.get("integration_id") or ""  # null and "" alike: none
        if method in seen:
            broken.add(f"delivery[{i}].method")
        seen.add(method)
        if (method in ("webhook", "s3", "sftp") and not integration) or (method == "download" and integration):
            broken.add(f"delivery[{i}].integration_id")  # "required for webhook, s3 and sftp ... refused for download"
        if recipients is not None and (method != "email" or integration):
            broken.add(f"delivery[{i}].recipients")  # email's alone, and not beside an integration
        if method == "email" and not integration and recipients is None:
            broken.add(f"delivery[{i}].recipients")  # email names recipients or an integration
    return broken


def _export_period(body):
    """POST /export/exports: date_to (or its alias end) not before
    date_from (or start), at most 366 days."""
    first = "start" if body.get("date_from") is None else "date_from"
    last = "end" if body.get("date_to") is None else "date_to"
    try:
        s, e = date.fromisoformat(body.get(first)), date.fromisoformat(body.get(last))
    except (TypeError, ValueError):
        return set()
    return {last} if e < s or (e - s).days + 1 > 366 else set()


def _plain_email(value):
    """Whether the server surely reads value as an e-mail address: plain
    characters (anything else, a quoted or internationalized form, may be
    refused)."""
    return not isinstance(value, str) or bool(_ALERT_EMAIL.fullmatch(value))


# A standard 5-field cron expression the server surely takes: each field
# "*" or a number in its range (anything else may be refused, or never come
# due).
_CRON_RANGES = ((0, 59), (0, 23), (1, 28), (1, 12), (0, 6))


def _schedule_rules(body):
    """/export/scheduled-reports: cron_expression a standard 5-field cron
    expression that comes due; recipients plain e-mail addresses."""
    broken = set()
    if isinstance(body.get("name"), str) and not body["name"].strip():
        broken.add("name")  # "not blank"
    cron = body.get("cron_expression")
    if isinstance(cron, str):
        fields = cron.split()
        ok = len(fields) == 5 and all(f == "*" or (f.isascii() and f.isdigit() and lo <= int(f) <= hi)
                                       for f, (lo, hi) in zip(fields, _CRON_RANGES))
        if not ok:
            broken.add("cron_expression")
    for i, r in enumerate(body.get("recipients") or []):
        if not _plain_email(r):
            broken.add(f"recipients[{i}]")
    return broken


def _integration_rules(body):
    """/export/integrations: the type decides the settings and secrets it
    takes and needs (the operation's description). A webhook, s3 or sftp
    integration's target must also pass the outbound guard and its
    secrets their lengths, so their settings and secrets are the type's to
    name; email and api are checked exactly."""
    broken = set()
    if isinstance(body.get("name"), str) and not body["name"].strip():
        broken.add("name")  # "not blank"
    kind = body.get("type")
    if kind in ("webhook", "s3", "sftp"):
        return broken | {"settings.*", "secrets.*"}
    settings = body.get("settings") if isinstance(body.get("settings"), dict) else {}
    secrets = body.get("secrets") if isinstance(body.get("secrets"), dict) else {}
    for name, value in settings.items():
        if value not in (None, False, "", 0, []) and not (kind == "email" and name == "recipients"):
            broken.add("settings." + name)  # "a setting of another type"
    for name, value in secrets.items():
        if value not in (None, ""):
            broken.add("secrets." + name)  # "a secret of another type"
    if kind == "email":
        recipients = settings.get("recipients") or []
        if not recipients:
            broken.add("settings.recipients")
        for i, r in enumerate(recipients):
            if not _plain_email(r):
                broken.add(f"settings.recipients[{i}]")
    return broken


def _explanation_rules(body):
    """POST /explanations/generate: the model's uploaded artifact (or its
    serving endpoint, or its surrogate's logged predictions) decides
    (model_id without any; the features an instance or background row may
    name; whether the method needs background rows; a logged prediction's
    input_data; instance and prediction_id, exactly one of them)."""
    # The artifact's features decide both the names an instance or a
    # background row may carry and the ones it must carry (a linear model
    # has no missing values), so every instance.* and background[i].* field
    # is the artifact's to name. config.max_features must equal
    # num_features when both are sent (they name one count).
    return {"model_id", "background", "instance", "prediction_id", "instance.*", "background[*", "config.max_features"}


def _review_rules(op, body):
    """The review boards' referential rules, as their operations state
    them: members, boards and models of the organization, a quorum within
    the board's voting members, a comment to deny or request changes."""
    broken = set()
    for i, m in enumerate(body.get("members") or []):
        if isinstance(m, dict) and m.get("user_id") is not None:
            broken.add(f"members[{i}].user_id")  # a user of the organization, each once
    if op.endswith("/members") and body.get("user_id") is not None:
        broken.add("user_id")  # a user of the organization
    if op == "POST /governance/review-boards/requests":
        broken |= {"board_id", "model_id"}  # the organization's, the board with a voting member
        if body.get("quorum") is not None:
            broken.add("quorum")  # at most the board's voting members
    if op.endswith("/decisions") and body.get("decision") in ("deny", "request_changes"):
        if not str(body.get("comment") or "").strip():
            broken.add("comment")  # "required (not blank) to deny or request changes"
    return broken


def _risk_rules(body):
    """The risk register's referential and workflow rules, as the entry
    operations describe them."""
    broken = set()
    if body.get("category") is not None:
        broken.add("category")  # a member of the organization's taxonomy, which PUT /risk-register/config replaces
    if body.get("owner_id") not in (None, ""):
        broken.add("owner_id")  # a user of the organization
    if body.get("model_ids"):
        broken.add("model_ids")  # models of the organization
    if body.get("status") is not None:
        broken.add("status")  # the move must be allowed from the entry's current status
        reason = body.get("status_reason")
        if reason is None or not str(reason).strip():
            broken.add("status_reason")  # required with status
    elif body.get("status_reason") is not None:
        broken.add("status_reason")  # accepted only with status
    return broken


def _kind(x):
    """A detection value's kind; None for a missing one."""
    if x is None or x == "" or x == "NaN":
        return None
    if isinstance(x, bool):
        return "boolean"
    return "string" if isinstance(x, str) else "number"


def _threshold_fits(method, threshold):
    """Below 1 for ks_test, chi_squared and without a method; at most 1
    for js_divergence (the threshold's description)."""
    if not isinstance(threshold, (int, float)) or isinstance(threshold, bool):
        return True
    if method in (None, "ks_test", "chi_squared"):
        return threshold < 1
    if method == "js_divergence":
        return threshold <= 1
    return True


def _target_fits(kind, target):
    """Whether target is what its channel type takes: an e-mail address
    (email), an http(s) URL (webhook); the target's description."""
    if not isinstance(target, str):
        return True
    if kind == "email":
        addr = parseaddr(target)[1]
        return addr == target and "@" in target
    if kind == "webhook":
        u = urlparse(target)
        return u.scheme in ("http", "https") and bool(u.netloc)
    return True


# What the server surely takes as a channel's target (AlertChannel.target's
# description): an http(s) URL of a host name (its last label starts with a
# letter, so no spelling of an address; not localhost), port and plain path
# characters, an address of plain characters. Anything else may be refused
# (not a URL, or not a public address), and is excused.
_ALERT_URL = re.compile(r"https?://(?:[A-Za-z0-9-]+\.)*[A-Za-z][A-Za-z0-9-]*\.?(:[0-9]{1,5})?(/[A-Za-z0-9._~/-]*)?")
_ALERT_EMAIL = re.compile(r"[A-Za-z0-9_%+-]+(\.[A-Za-z0-9_%+-]+)*@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*")


def _alert_rule_rules(body):
    """The fields of an alert rule's channels whose target does not fit
    its type."""
    broken = set()
    for i, ch in enumerate(body.get("notification_channels") or []):
        if not isinstance(ch, dict) or not isinstance(ch.get("target"), str):
            continue
        kind, target = ch.get("type"), ch["target"]
        pattern = _ALERT_EMAIL if kind == "email" else _ALERT_URL
        host = (urlparse(target).hostname or "").rstrip(".").lower()
        local = kind != "email" and (host == "localhost" or host.endswith(".localhost"))
        if local or not pattern.fullmatch(target):
            broken.add(f"notification_channels[{i}].target")
    return broken


def _bias_rules(body):
    broken = set()
    label, logged = _present(body, LABEL_FORM), _present(body, PREDICTIONS_FORM)
    if label and logged:
        broken |= set(label) | set(logged)  # one form only
    if not label:
        if not body.get("protected_attributes"):
            broken.add("protected_attributes")  # the logged-predictions form needs it
        for a in body.get("reference_group") or {}:
            if a not in (body.get("protected_attributes") or []):
                broken.add("reference_group." + a)  # keys must be audited attributes
        return broken
    if not body.get("sensitive_attributes"):
        broken.add("sensitive_attributes")  # the label-supplied form needs it
    y_pred = body.get("y_pred")
    if not y_pred:
        broken.add("y_pred")
        return broken
    n = len(y_pred)
    if isinstance(body.get("y_true"), list) and len(body["y_true"]) != n:
        broken.add("y_true")
    attrs = body.get("sensitive_attributes") or []
    groups = body.get("group_data") or {}
    for a in attrs:
        if not isinstance(groups.get(a), list) or len(groups[a]) != n:
            broken.add("group_data." + a)
    for a in groups:
        if a not in attrs:
            broken.add("group_data." + a)
    for a in body.get("reference_group") or {}:
        if a not in attrs:
            broken.add("reference_group." + a)
    if body.get("favourable_label") is None:
        # Without favourable_label, outcomes are 0/1 or true/false.
        for field in ("y_pred", "y_true"):
            vals = body.get(field) or []
            if any(v not in (0, 1) for v in vals):  # True == 1 and False == 0 in Python
                broken.add(field)
    return broken


def _drift_rules(op, body):
    broken = set()
    if op == "POST /drift/detect":
        ref, cur = body.get("reference_data") or {}, body.get("current_data") or {}
        for f in set(ref) ^ set(cur):
            broken |= {"reference_data." + f, "current_data." + f}
        for f in set(ref) & set(cur):
            kinds = {_kind(x) for x in (ref[f] or []) + (cur[f] or [])} - {None}
            if len(kinds) > 1:
                broken |= {"reference_data." + f, "current_data." + f}  # one kind a feature
        for side, cols in (("reference_data", ref), ("current_data", cur)):
            for f, vals in cols.items():
                if isinstance(vals, list) and all(x is None or x == "" or x == "NaN" for x in vals):
                    broken.add(side + "." + f)  # missing values are left out: none left
                if isinstance(vals, list) and len({_kind(x) for x in vals} - {None}) > 1:
                    broken.add(side + "." + f)  # numbers, strings or booleans, never a mix
        config = body.get("config") or {}
        if not _threshold_fits(config.get("method"), config.get("threshold")):
            broken.add("config.threshold")
        return broken
    for side in ("reference_data", "prediction_data"):
        cols = body.get(side)
        if isinstance(cols, dict) and len({len(v) for v in cols.values() if isinstance(v, list)}) > 1:
            broken |= {side + "." + f for f in cols}
    return broken


_COMMON = None


def _common():
    """The server's list of common passwords (identity/commonpasswords)."""
    global _COMMON
    if _COMMON is None:
        with gzip.open(os.environ["VIGIL_ST_COMMON_PASSWORDS"], "rt", encoding="utf-8") as f:
            _COMMON = {line.rstrip("\n") for line in f if line.strip()}
    return _COMMON


def _period(s):
    """The shortest string whose repetition is s."""
    for n in range(1, len(s) // 2 + 1):
        if len(s) % n == 0 and s[:n] * (len(s) // n) == s:
            return s[:n]
    return s


def _weak_password(body):
    """Whether the body's password breaks the stated policy beyond its
    length: a commonly used one (or one repeated, or a run of up to four
    characters repeated), or one containing the username."""
    pw, user = body.get("password"), body.get("username")
    if not isinstance(pw, str):
        return False
    p = unicodedata.normalize("NFC", pw).lower()
    if isinstance(user, str) and user and user.lower() in p:
        return True
    unit = _period(p)
    return p in _common() or (unit != p and (unit in _common() or len(unit) <= 4))


KSERVE_TYPES = ("org.kubeflow.serving.inference.request", "org.kubeflow.serving.inference.response")


def _kserve_event_ok(case):
    """POST /kserve/events: whether the event keeps the rules its
    description states (binary mode's ce-* headers, or a structured
    event's attributes)."""
    body = case.body
    structured = (case.media_type or "").startswith("application/cloudevents+json")
    if structured:
        if not isinstance(body, dict):
            return False
        attrs = {k: body.get(k) for k in ("id", "type", "source", "time", "inferenceservicename", "namespace",
                                          "component", "endpoint")}
        data = body.get("data")
        if isinstance(body.get("data_base64"), str) and body["data_base64"]:
            try:
                data = json.loads(base64.b64decode(body["data_base64"], validate=True))
            except (ValueError, binascii.Error, UnicodeDecodeError):
                return False
    else:
        headers = {k.lower(): v for k, v in (case.headers or {}).items()}
        if headers.get("ce-specversion") != "1.0":
            return False
        attrs = {k: headers.get("ce-" + k) for k in ("id", "type", "source", "time", "inferenceservicename",
                                                     "namespace", "component", "endpoint")}
        data = body
    if not isinstance(data, dict):
        return False
    text = {k: v for k, v in attrs.items() if isinstance(v, str)}
    if any("\x00" in v for v in text.values()):
        return False
    if not 1 <= len(text.get("id", "")) <= 200 or text.get("type") not in KSERVE_TYPES:
        return False
    if not 1 <= len(text.get("source", "")) <= 255 or len(text.get("inferenceservicename", "")) > 255:
        return False
    if structured and body.get("time") is not None:
        return _time(body["time"]) is not None
    return not text.get("time") or _time(text["time"]) is not None
