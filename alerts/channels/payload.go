package channels

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/vigilhq/vigil/alerts"
)

// Payload is the JSON document of a delivery: a webhook's body.
type Payload struct {
	Event      string    `json:"event"`
	DeliveryID string    `json:"delivery_id"`
	Alert      AlertBody `json:"alert"`
}

// AlertBody is the alert as delivered.
type AlertBody struct {
	ID           string               `json:"id"`
	RuleID       string               `json:"rule_id"`
	RuleName     string               `json:"rule_name"`
	ModelID      string               `json:"model_id"`
	AlertType    string               `json:"alert_type"`
	Severity     string               `json:"severity"`
	Status       alerts.Status        `json:"status"`
	Observations []alerts.Observation `json:"observations"`
	Count        int64                `json:"count"`
	WindowEnd    time.Time            `json:"window_end"`
	TriggeredAt  time.Time            `json:"triggered_at"`
}

// newPayload is the payload of an event of in, for the delivery id.
func newPayload(event, id string, in alerts.Instance) Payload {
	obs := in.Observations
	if obs == nil {
		obs = []alerts.Observation{}
	}
	return Payload{Event: event, DeliveryID: id, Alert: AlertBody{ID: in.ID, RuleID: in.RuleID, RuleName: in.RuleName, ModelID: in.ModelID,
		AlertType: in.AlertType, Severity: in.Severity, Status: in.Status, Observations: obs, Count: in.Count,
		WindowEnd: in.WindowEnd.UTC(), TriggeredAt: in.TriggeredAt.UTC()}}
}

// Summary is the one-line text of the payload: Slack's text, the
// e-mail's subject.
func (p Payload) Summary() string {
	verb := "opened"
	if p.Event == alerts.EventReopened {
		verb = "open again"
	}
	return fmt.Sprintf("[%s] %s: alert %s on model %s", strings.ToUpper(p.Alert.Severity), p.Alert.RuleName, verb, p.Alert.ModelID)
}

// Details are the observed conditions, one line each.
func (p Payload) Details() string {
	var b strings.Builder
	for _, o := range p.Alert.Observations {
		v := "no value"
		if o.Value != nil {
			v = strconv.FormatFloat(*o.Value, 'g', 6, 64)
		}
		fmt.Fprintf(&b, "%s = %s (%s %s over %d min)\n", o.MetricName, v, o.Operator,
			strconv.FormatFloat(o.Threshold, 'g', -1, 64), o.WindowMinutes)
	}
	fmt.Fprintf(&b, "alert %s, window ending %s, held in %d window(s)\n", p.Alert.ID, p.Alert.WindowEnd.Format(time.RFC3339), p.Alert.Count)
	return b.String()
}

func decodePayload(b []byte) (Payload, error) {
	var p Payload
	err := json.Unmarshal(b, &p)
	return p, err
}
