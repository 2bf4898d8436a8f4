package kserve

import (
	"encoding/base64"
	"net/http"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	h := http.Header{}
	for k, v := range map[string]string{"ce-specversion": "1.0", "ce-id": "ev-1", "ce-type": TypeRequest,
		"ce-source": "http://localhost:9081/", "ce-inferenceservicename": "sklearn-iris", "ce-time": "2026-01-01T00:00:00.5Z"} {
		h.Set(k, v)
	}
	e, err := Parse("application/json", h.Get, []byte(`{"instances":[[1,2]]}`))
	if err != nil || e.ID != "ev-1" || e.ModelName() != "sklearn-iris" || string(e.Data) != `{"instances":[[1,2]]}` ||
		!e.Time.Equal(time.Date(2026, 1, 1, 0, 0, 0, 5e8, time.UTC)) {
		t.Fatalf("got %+v, %v, want the binary-mode request", e, err)
	}
	data := base64.StdEncoding.EncodeToString([]byte(`{"predictions":[1]}`))
	none := func(string) string { return "" }
	e, err = Parse("application/cloudevents+json; charset=utf-8", none, []byte(`{"specversion":"1.0","id":"ev-1",
		"type":"`+TypeResponse+`","source":"isvc-a","data_base64":"`+data+`","extension":1}`))
	if err != nil || e.Type != TypeResponse || e.ModelName() != "isvc-a" || string(e.Data) != `{"predictions":[1]}` {
		t.Fatalf("got %+v, %v, want the structured response, named by its source", e, err)
	}
	for _, c := range []struct {
		ctype, body string
		h           func(string) string
	}{
		{"application/json", `{}`, none}, // no ce-* headers
		{"application/json", `[1]`, h.Get},
		{"application/cloudevents+json", `{"specversion":"1.0","id":"x","type":"other","source":"s","data":{}}`, none},
		{"application/cloudevents+json", `{"specversion":"1.0","id":"x","type":"` + TypeRequest + `","source":"s","data":{},"time":""}`, none},
		{"application/cloudevents+json", `{"specversion":"1.0","id":"x","type":"` + TypeRequest + `","source":"s","data":"text"}`, none},
		{"application/cloudevents+json", `{"specversion":"0.3","id":"x","type":"` + TypeRequest + `","source":"s","data":{}}`, none},
	} {
		if _, err := Parse(c.ctype, c.h, []byte(c.body)); err == nil {
			t.Errorf("Parse(%s, %s): got no error, want one", c.ctype, c.body)
		}
	}
}
