package alerts

import (
	"fmt"
	"net/mail"
	"net/url"
	"strings"

	"github.com/vigilhq/vigil/platform/web"
)

// validate checks a whole rule, naming each offending field as the
// request does (conditions[0].operator).
func (r Rule) validate() error {
	var v web.Problems
	v.Required("name", r.Name)
	v.MaxLen("name", r.Name, 200)
	v.MaxLen("description", r.Description, 2000)
	v.Required("alert_type", r.AlertType)
	v.OneOf("alert_type", r.AlertType, AlertTypes...)
	v.Required("severity", r.Severity)
	v.OneOf("severity", r.Severity, Severities...)
	switch n := len(r.Conditions); {
	case n == 0:
		v.Add("conditions", "must hold at least one condition")
	case n > MaxConditions:
		v.Add("conditions", fmt.Sprintf("must hold at most %d conditions", MaxConditions))
	}
	for i, c := range r.Conditions {
		f := func(name string) string { return fmt.Sprintf("conditions[%d].%s", i, name) }
		v.Required(f("metric_name"), c.MetricName)
		if c.MetricName != "" {
			if p := metricProblem(c.MetricName); p != "" {
				v.Add(f("metric_name"), p)
			}
		}
		v.Required(f("operator"), c.Operator)
		v.OneOf(f("operator"), c.Operator, Operators...)
		if c.WindowMinutes < 1 || c.WindowMinutes > MaxWindowMinutes {
			v.Add(f("window_minutes"), fmt.Sprintf("must be 1-%d", MaxWindowMinutes))
		}
	}
	if len(r.Channels) > MaxChannels {
		v.Add("notification_channels", fmt.Sprintf("must hold at most %d channels", MaxChannels))
	}
	for i, ch := range r.Channels {
		f := func(name string) string { return fmt.Sprintf("notification_channels[%d].%s", i, name) }
		v.Required(f("type"), ch.Type)
		v.OneOf(f("type"), ch.Type, ChannelTypes...)
		v.Required(f("target"), ch.Target)
		v.MaxLen(f("target"), ch.Target, 2000)
		if p := targetProblem(ch); p != "" {
			v.Add(f("target"), p)
		}
	}
	if r.CooldownMinutes < 0 || r.CooldownMinutes > MaxCooldownMinutes {
		v.Add("cooldown_minutes", fmt.Sprintf("must be 0-%d", MaxCooldownMinutes))
	}
	return v.Err()
}

// targetProblem says what is wrong with a channel's target for its type:
// an absolute http(s) URL for webhook and slack, an e-mail address for
// email. Whether the address may be reached is the delivery's check.
func targetProblem(ch Channel) string {
	if ch.Target == "" || len(ch.Target) > 2000 {
		return ""
	}
	switch ch.Type {
	case "webhook", "slack":
		u, err := url.Parse(ch.Target)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
			return "must be an absolute http or https URL without credentials"
		}
	case "email":
		a, err := mail.ParseAddress(ch.Target)
		if err != nil || a.Address != ch.Target || !strings.Contains(a.Address, "@") {
			return "must be an e-mail address such as oncall@example.com"
		}
	}
	return ""
}
